"""The ``rules`` subcommand: ``regelwerk rules RULEBOOK [--format html|md] [--players N] [--out FILE]``."""
from __future__ import annotations

import sys
from pathlib import Path

from ...commands import UsageError, whole


def add_parser(sub) -> None:
    r = sub.add_parser("rules", help="print the rules as a document (HTML or Markdown), generated from the rulebook")
    r.add_argument("rulebook", metavar="RULEBOOK")
    r.add_argument("--format", choices=["html", "md"], default="html")
    r.add_argument("--players", type=whole(1), help="component counts for this many players (default: every count)")
    r.add_argument("--out", metavar="FILE", help="write the document here (default: print it)")
    r.set_defaults(func=cmd_rules)


def cmd_rules(args) -> int:
    from . import build_document, write_html, write_markdown
    from ...game import Rulebook
    if args.players is not None:
        game = Rulebook.load(args.rulebook).game
        if not game.min_players <= args.players <= game.max_players:
            raise UsageError(f"{game.name} is for {game.min_players} to {game.max_players} players, "
                             f"not {args.players}")
    doc = build_document(args.rulebook, args.players)
    out_dir = Path(args.out).resolve().parent if args.out else Path.cwd()
    text = write_html(doc, out_dir) if args.format == "html" else write_markdown(doc, out_dir)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    else:
        sys.stdout.write(text)
    return 0
