"""Random-playout speed of two checkouts side by side: the table of docs/performance.md.

    python benchmarks/compare.py OLD_CHECKOUT NEW_CHECKOUT [--games 60] [--rounds 3]

Each checkout needs its own virtual environment in ``.venv`` (``pip install -e .``
there).  For every game of NEW/rules and every player count, the runs
alternate — old, new pure Python (``REGELWERK_PURE=1``), new native when the
new checkout has a native build — ``--rounds`` times, so that a change in the
machine's load touches all three alike; each run is one ``regelwerk bench
--repeat 1`` process of ``--games`` seeded games, and the table gives the
median games/s of the rounds and the ratios to the old checkout.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

RATE = re.compile(r"([\d.]+) games/s")


def bench(checkout: Path, game: str, players: int, games: int, pure: bool) -> tuple[float, str]:
    env = dict(os.environ)
    if pure:
        env["REGELWERK_PURE"] = "1"
    else:
        env.pop("REGELWERK_PURE", None)
    out = subprocess.run([str(checkout / ".venv/bin/regelwerk"), "bench", str(checkout / "rules" / game),
                          "--players", str(players), "--games", str(games), "--repeat", "1"],
                         capture_output=True, text=True, env=env, check=True).stdout
    last = [line for line in out.splitlines() if "games/s" in line][-1]
    backend = last.rsplit("(", 1)[-1].rstrip(")").split(", ", 1)[-1] if "(" in last else ""
    return float(RATE.search(last).group(1)), backend


def player_counts(checkout: Path, game: str) -> list:
    code = ("import sys; from interpreter.game import Rulebook; g = Rulebook.load(sys.argv[1]).game; "
            "print(*range(g.min_players, g.max_players + 1))")
    out = subprocess.run([str(checkout / ".venv/bin/python"), "-c", code, str(checkout / "rules" / game)],
                         capture_output=True, text=True, check=True).stdout
    return [int(x) for x in out.split()]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--game", action="append", help="only these games (folder names)")
    args = ap.parse_args(argv)
    games = args.game or sorted(p.name for p in (args.new / "rules").iterdir() if (p / "game.yaml").exists())
    print("| game | players | old games/s | new, pure Python | × | new, native | × |")
    print("|---|---|---|---|---|---|---|")
    for game in games:
        for n in player_counts(args.new, game):
            old, pure, native = [], [], []
            native_backend = ""
            for _ in range(args.rounds):
                old.append(bench(args.old, game, n, args.games, pure=True)[0])
                pure.append(bench(args.new, game, n, args.games, pure=True)[0])
                rate, native_backend = bench(args.new, game, n, args.games, pure=False)
                native.append(rate)
            o, p, nat = statistics.median(old), statistics.median(pure), statistics.median(native)
            nat_cells = (f"{nat:.1f} | {nat / o:.1f}" if native_backend.startswith("native")
                         else f"— ({native_backend}) | —")
            print(f"| {game} | {n} | {o:.1f} | {p:.1f} | {p / o:.1f} | {nat_cells} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
