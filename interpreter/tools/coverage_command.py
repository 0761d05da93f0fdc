"""``regelwerk coverage RULEBOOK [--format json] [--html FILE [--mutants STATE]]``: the command, apart
from what it measures (coverage.py) and the page it can write (coverage_html.py), which both use."""
from __future__ import annotations

from pathlib import Path

from .coverage import format_json, format_text, measure
from .coverage_html import format_html, survivors_from_state


def add_parser(sub) -> None:
    c = sub.add_parser("coverage", help="which steps, branches, table rows, triggers and actions the scenarios run")
    c.add_argument("rulebook", metavar="RULEBOOK")
    c.add_argument("--format", choices=["text", "json"], default="text")
    c.add_argument("--html", metavar="FILE", help="also write a page of the rulebook's files with what is "
                                                 "covered at each line")
    c.add_argument("--mutants", metavar="STATE", help="with --html: show the survivors recorded in this "
                                                     "`regelwerk mutate --state` file at their lines")
    c.set_defaults(func=cmd_coverage)


def cmd_coverage(args) -> int:
    report = measure(args.rulebook)
    print(format_json(report) if args.format == "json" else format_text(report))
    if getattr(args, "html", None):
        survivors = survivors_from_state(args.mutants) if args.mutants else None
        Path(args.html).write_text(format_html(report, survivors), encoding="utf-8")
        if args.format == "text":
            print(f"wrote {args.html}")
    elif getattr(args, "mutants", None):
        from ..commands import UsageError
        raise UsageError("--mutants goes with --html")
    return 1 if any(not r.ok for r in report.scenarios) else 0
