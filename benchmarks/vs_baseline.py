"""The engine's random playouts against a hand-written Python implementation of the same game.

    python benchmarks/vs_baseline.py [--players 4] [--games 100] [--rounds 5]

``benchmarks/baselines/azul_summer_pavilion.py`` plays Azul: Summer Pavilion by
hand-written rules with the same seeded random policy, and so the same games
(tests/test_baseline_azul.py checks it), as ``regelwerk bench`` on
``rules/azul_summer_pavilion``.  Every round runs one process each —
the baseline, the engine in pure Python (``REGELWERK_PURE=1``), and the engine
with its native build when this checkout has one — alternating, so the
machine's load falls on all alike.  Each process plays one unmeasured game,
then ``--games`` seeded games (seeds 0, 1, …), and reports games per second of
its own CPU time (which moves less than the wall time when other work shares
the cores).  Printed: every round's rates, the medians, and the engine's
median as a fraction of the baseline's (the ratio; 1.0 = as fast as the
hand-written code).

``--cachegrind``: instead, what a game costs the processor, by valgrind's cachegrind with its
cache and branch simulation (one run of ``--short`` games and one of ``--games``, the
difference divided by the extra games; pure Python; slow: minutes): machine instructions,
first-level data-cache misses (reads and writes) and mispredicted branches per game, the
baseline's and the engine's side by side — why the ratio in time is lower than the ratio in
instructions.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAME = "azul_summer_pavilion"

ENGINE = """
import sys, time
from interpreter.game import Rulebook
from interpreter.ai.bots import RandomBot, play_out
from interpreter.native import backend, import_built
players, n = int(sys.argv[1]), int(sys.argv[2])
rb = Rulebook.load(sys.argv[3])
st = rb.new_game(players, n, logging=False)      # unmeasured, as in `regelwerk bench`: code made on first use
play_out(st, [RandomBot(n, s) for s in range(players)])
t = time.process_time()
for seed in range(n):
    st = rb.new_game(players, seed, logging=False)
    play_out(st, [RandomBot(seed, s) for s in range(players)])
rate = n / (time.process_time() - t)
import_built()
print(rate, backend())
"""


def run(args: list, env: dict) -> tuple[float, str]:
    out = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, env=env,
                         check=True).stdout.strip().splitlines()[-1]
    rate, _, backend = out.partition(" ")
    return float(rate), backend


#: cachegrind's summary lines: (what is printed, the pattern of the line's total)
_EVENTS = (("instructions", r"I\s+refs:\s+([\d,]+)"),
           ("L1 data misses", r"D1\s+misses:\s+([\d,]+)"),
           ("mispredicted branches", r"Mispredicts:\s+([\d,]+)"))


def _cachegrind(args: list, env: dict) -> list:
    run = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes",
                          "--cachegrind-out-file=/dev/null", sys.executable, *args],
                         cwd=ROOT, capture_output=True, text=True, env=dict(env, PYTHONHASHSEED="0"))
    found = [re.search(pattern, run.stderr) for _, pattern in _EVENTS]
    if run.returncode != 0 or None in found:
        raise SystemExit(f"the run failed:\n{run.stderr[-2000:]}")
    return [int(m.group(1).replace(",", "")) for m in found]


def cachegrind(players: int, short: int, games: int, env: dict) -> None:
    pure_env = dict(env, REGELWERK_PURE="1")
    per = {}
    for name, make in (("baseline", lambda n: [str(ROOT / "benchmarks" / "baselines" / f"{GAME}.py"),
                                               str(players), str(n)]),
                       ("engine", lambda n: ["-c", ENGINE, str(players), str(n), str(ROOT / "rules" / GAME)])):
        few, many = _cachegrind(make(short), pure_env), _cachegrind(make(games), pure_env)
        per[name] = [(b - a) / (games - short) for a, b in zip(few, many)]
    print(f"{GAME}, {players} players, per game ({games} games less {short}; pure Python):")
    for k, (event, _) in enumerate(_EVENTS):
        b, e = per["baseline"][k], per["engine"][k]
        print(f"  {event:22} baseline {b / 1e6:8.3f} M   engine {e / 1e6:8.3f} M   engine / baseline {e / b:5.2f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cachegrind", action="store_true",
                    help="instead: instructions, cache misses and mispredicted branches per game (valgrind)")
    ap.add_argument("--short", type=int, default=5, help="with --cachegrind: games of the shorter run (default 5)")
    args = ap.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if args.cachegrind:
        cachegrind(args.players, args.short, args.games, env)
        return 0
    pure_env = dict(env, REGELWERK_PURE="1")
    native_env = {k: v for k, v in env.items() if k != "REGELWERK_PURE"}
    engine = ["-c", ENGINE, str(args.players), str(args.games), str(ROOT / "rules" / GAME)]
    baseline = [str(ROOT / "benchmarks" / "baselines" / f"{GAME}.py"), str(args.players), str(args.games)]
    base, pure, native = [], [], []
    native_backend = ""
    for _ in range(args.rounds):
        base.append(run(baseline, env)[0])
        pure.append(run(engine, pure_env)[0])
        rate, native_backend = run(engine, native_env)
        if native_backend.startswith("native"):
            native.append(rate)
    mb, mp = statistics.median(base), statistics.median(pure)
    print(f"{GAME}, {args.players} players, {args.games} games per run, median of {args.rounds} alternated runs "
          f"(games/s of CPU time)")
    print(f"  hand-written baseline: {mb:7.1f}   ({' '.join(f'{x:.1f}' for x in base)})")
    print(f"  engine, pure Python:   {mp:7.1f}   ({' '.join(f'{x:.1f}' for x in pure)})   ratio {mp / mb:.2f}")
    if native:
        mn = statistics.median(native)
        print(f"  engine, native build:  {mn:7.1f}   ({' '.join(f'{x:.1f}' for x in native)})   ratio {mn / mb:.2f}")
    else:
        print(f"  engine, native build:  none in this checkout ({native_backend or 'pure Python'})")
    print(f"ratio (pure Python / baseline): {mp / mb:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
