"""Start-up time: one new Python process imports Regelwerk, then loads and validates every game.

    python benchmarks/startup.py                      # median of 7 process starts, this checkout
    python benchmarks/startup.py --repeat 9 --root /path/to/other/checkout --python /path/to/python

Each run is a fresh ``python -c`` process that does what ``regelwerk validate
rules/<game>`` does for the four games (``check_rulebook``: read the YAML, the
schema, compile, every semantic check), asserting 0 errors and 0 warnings.
The time is the whole process, interpreter start included, measured from
outside.  One unmeasured run first warms the ``.pyc`` files (and any on-disk
cache), so the median is of warm starts (``PYTHONDONTWRITEBYTECODE`` is
dropped from the child's environment for this).  ``--root`` runs the code of another
checkout (its folder comes first on ``sys.path``), to compare old and new on
the same machine; give several ``--root``s to alternate their runs.  The CPU
time (user + system) of the same runs is printed too: on a shared machine it
varies less than the wall time.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAMES = ["azul_summer_pavilion", "iquazu", "moonlight_market", "yak"]

CODE = """
import sys
from interpreter.game import check_rulebook
for game in {games!r}:
    report, _ = check_rulebook("rules/" + game)
    if report.items:
        sys.exit(f"rules/{{game}}: {{len(report.items)}} problems")
""".format(games=GAMES)


def one_start(python: str, root: Path) -> tuple[float, float]:
    """(wall time, CPU time) of one process start."""
    env = dict(os.environ, PYTHONPATH=str(root))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # warm means with .pyc files: let the first run write them
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([python, "-c", CODE], cwd=root, env=env, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7, help="measured process starts per checkout (default 7)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter to run (default: this one)")
    ap.add_argument("--root", action="append", type=Path,
                    help="a checkout to measure (repeatable; default: this one)")
    args = ap.parse_args(argv)
    roots = [r.resolve() for r in (args.root or [ROOT])]
    times: dict = {r: [] for r in roots}
    for r in roots:
        one_start(args.python, r)  # warm the .pyc files and caches
    for _ in range(args.repeat):
        for r in roots:  # alternate, so that the machine's load falls on all alike
            times[r].append(one_start(args.python, r))
    for r in roots:
        ts = [w for w, _ in times[r]]
        cpu = statistics.median(c for _, c in times[r])
        print(f"{r}: median {statistics.median(ts):.3f} s of {len(ts)} process starts "
              f"(min {min(ts):.3f}, max {max(ts):.3f}; CPU time median {cpu:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
