"""Instructions per random-playout game of two checkouts: an A/B that noise cannot move.

    python benchmarks/instructions.py OLD_CHECKOUT NEW_CHECKOUT --game moonlight_market --players 3

On a shared machine the time of a run spreads by 5–15 %, more than most single
changes to the engine gain.  The number of machine instructions Python executes
for the same games is nearly the same in every run (with ``PYTHONHASHSEED`` fixed; within
~0.05 %: objects hashed by address iterate in an order that moves with memory layout), so a
change of 1 % shows as 1 %.  Each checkout (with its own ``.venv``) plays the
seeded random games of ``cpu_ab.py`` (seeds 0, 1, …) — in pure Python
(``REGELWERK_PURE=1``; ``--native``: with the native build), after one unmeasured game — under valgrind's cachegrind,
twice: with ``--short`` games and with ``--games``; the difference divided by the
number of extra games is the cost of one game without the start-up.  ``--ismcts P``
plays seat 0 with an ISMCTS bot of P playouts a decision, its time limit off (its
own one-second limit would bind under valgrind and make the count move with the
machine), the others random.

The cycle collector is the exception: a full collection walks every object the process holds
(the loaded rulebook's code among them), and whether one falls among the measured games moves with
how many objects a version allocates — up to ~2 % of a game either way, in a version that does
less work as much as in one that does more.  ``--collector off`` (``gc.disable()`` in the
children) leaves it out: for an A/B of a change that does not change what is kept alive, that
comparison is the exact one; the default (the collector on) is what a playout pays.

Instructions are not time (a cache miss costs more than an addition), so a
change worth keeping is also measured by time (``cpu_ab.py``, ``compare.py``);
but they tell which of two versions does less, reliably and in a minute.
Needs ``valgrind`` on PATH.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from cpu_ab import CHILD

# the same games as cpu_ab.py, with the unmeasured first game the same in both runs
CHILD = CHILD.replace("rb.new_game(players, n, logging=False)", "rb.new_game(players, 999, logging=False)")
CHILD = CHILD.replace("RandomBot(n, s)", "RandomBot(999, s)")
assert CHILD.count("999") == 2

IREFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def instructions(checkout: Path, game: str, players: int, games: int, native: bool = False,
                 collector: bool = True, ismcts: int = 0) -> int:
    env = dict(os.environ, PYTHONHASHSEED="0")
    child = CHILD if collector else "import gc\ngc.disable()\n" + CHILD
    if native:
        env.pop("REGELWERK_PURE", None)
    else:
        env["REGELWERK_PURE"] = "1"
    return counted(checkout, child, [game, str(players), str(games), str(ismcts)], env)


def counted(checkout: Path, child: str, args: list, env: dict) -> int:
    """Machine instructions of ``python -c child *args`` run by ``checkout``'s ``.venv`` in it
    (valgrind's cachegrind, its cache simulation off)."""
    run = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                          str(checkout / ".venv/bin/python"), "-c", child, *args],
                         cwd=checkout, capture_output=True, text=True, env=env)
    found = IREFS.search(run.stderr)
    if run.returncode != 0 or found is None:
        raise SystemExit(f"{checkout}: the run failed:\n{run.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def per_game(checkout: Path, game: str, players: int, short: int, games: int, native: bool = False,
             collector: bool = True, ismcts: int = 0) -> float:
    return ((instructions(checkout, game, players, games, native, collector, ismcts)
             - instructions(checkout, game, players, short, native, collector, ismcts)) / (games - short))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--game", action="append", required=True)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--short", type=int, default=5, help="games of the shorter run (default 5)")
    ap.add_argument("--games", type=int, default=25, help="games of the longer run (default 25)")
    ap.add_argument("--collector", choices=("on", "off"), default="on",
                    help="off: the cycle collector disabled in the measured runs (default on)")
    ap.add_argument("--native", action="store_true",
                    help="with each checkout's native build, if it has one (default: pure Python)")
    ap.add_argument("--ismcts", type=int, default=0, metavar="PLAYOUTS",
                    help="seat 0 an ISMCTS bot of that many playouts a decision, its time limit off (the "
                         "others random); a game takes minutes under valgrind: try --short 0 --games 1")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        ap.error("valgrind is not on PATH")
    if args.games <= args.short:
        ap.error("--games must be more than --short")
    for game in args.game:
        on = args.collector == "on"
        old = per_game(args.old, game, args.players, args.short, args.games, args.native, on, args.ismcts)
        new = per_game(args.new, game, args.players, args.short, args.games, args.native, on, args.ismcts)
        print(f"{game} {args.players}p: {old / 1e6:.2f} -> {new / 1e6:.2f} M instructions per game "
              f"({old / new:.3f}x)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
