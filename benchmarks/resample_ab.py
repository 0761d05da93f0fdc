"""Resamples of shipped games by two checkouts, side by side: what a search bot pays per sample.

    python benchmarks/resample_ab.py OLD_CHECKOUT NEW_CHECKOUT --game yak [--rounds 5]
    python benchmarks/resample_ab.py OLD_CHECKOUT NEW_CHECKOUT --game yak --instructions

Each checkout (with its own ``.venv``) plays seeded random games of ``--players`` (3) players
and stops them after 80, 40 and 100 decisions (seeds 3, 4, 5; a game over by then stops ten
decisions earlier), makes the real game's replay for the seat to decide once (a search pays it
once per decision), then times ``--samples`` (60) resamples at each point.  Every round runs
one process per checkout, alternating, in pure Python (``REGELWERK_PURE=1``), and reports the
CPU milliseconds of all the resamples; printed: every round's figures and the medians.

``--instructions``: instead, machine instructions per resample under valgrind's cachegrind —
a run of ``--samples`` resamples at each point less a run of a third as many, divided by the
difference — which noise does not move (see instructions.py).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
from pathlib import Path

from instructions import counted

CHILD = """
import sys, time
sys.path.insert(0, '.')
from interpreter.game import Rulebook
from interpreter.ai.bots import RandomBot
rb = Rulebook.load('rules/' + sys.argv[1])
players, samples = int(sys.argv[2]), int(sys.argv[3])
spent = 0.0
for seed, stop in ((3, 80), (4, 40), (5, 100)):
    while True:
        st = rb.new_game(players, seed, logging=False)
        bots = [RandomBot(seed, s) for s in range(players)]
        n = 0
        while not st.is_terminal() and n < stop:
            st.apply_action(bots[st.current_player()].choose(st))
            n += 1
        if not st.is_terminal():
            break
        stop = n - 10
    seat = st.current_player()
    st.resample(seat, 0)                # the real game's replay, made once
    t = time.process_time()
    for k in range(samples):
        st.resample(seat, k + 1)
    spent += time.process_time() - t
print(spent * 1000)
"""

def _env() -> dict:
    return dict(os.environ, REGELWERK_PURE="1", PYTHONHASHSEED="0")


def cpu_ms(checkout: Path, game: str, players: int, samples: int) -> float:
    out = subprocess.run([str(checkout / ".venv/bin/python"), "-c", CHILD, game, str(players), str(samples)],
                         cwd=checkout, capture_output=True, text=True, env=_env(), check=True)
    return float(out.stdout.split()[-1])


def instructions(checkout: Path, game: str, players: int, samples: int) -> int:
    return counted(checkout, CHILD, [game, str(players), str(samples)], _env())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--game", action="append", required=True)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--samples", type=int, default=60, help="resamples at each of the three points (default 60)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--instructions", action="store_true", help="count machine instructions instead (valgrind)")
    args = ap.parse_args(argv)
    for game in args.game:
        if args.instructions:
            short = max(args.samples // 3, 1)
            per = {}
            for c in (args.old, args.new):
                per[c] = ((instructions(c, game, args.players, args.samples)
                           - instructions(c, game, args.players, short)) / (3 * (args.samples - short)))
            print(f"{game} {args.players}p: {per[args.old] / 1e6:.2f} -> {per[args.new] / 1e6:.2f} M instructions "
                  f"per resample ({per[args.old] / per[args.new]:.3f}x)", flush=True)
            continue
        old, new = [], []
        for _ in range(args.rounds):
            old.append(cpu_ms(args.old, game, args.players, args.samples))
            new.append(cpu_ms(args.new, game, args.players, args.samples))
        mo, mn = statistics.median(old), statistics.median(new)
        print(f"{game} {args.players}p: old {' '.join(f'{x:.0f}' for x in old)} | new "
              f"{' '.join(f'{x:.0f}' for x in new)} | median {mo:.0f} -> {mn:.0f} ms ({mo / mn:.2f}x)", flush=True)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
