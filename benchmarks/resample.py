"""How long ``State.resample`` takes, for a search to lean on (issue 36, item 3).

    python benchmarks/resample.py [--samples 50] [--states 8]

Two cases, each timed as the median over the states of the median time of one resample
(the real game's replay, made once per state and seat, is timed apart: a search pays it once):

* tricks52 (tests/rulebooks/tricks52): four players, 52 cards, must-follow, tricks swept face
  down; seeded random games stopped after 6 tricks (24 decisions), the seat to play resamples —
  the target is a median of at most 10 ms;
* N2's consistent game (../shared/fuzz-repro/turn4/N2_resample_work_unbounded/consistent, a hidden
  die thrown every turn): 10 resamples after 2,000 decisions — the target is at most 1 s.

Prints the machine's load beside the figures (the machine is shared: quote it with them).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from interpreter.game import Rulebook  # noqa: E402

TRICKS = HERE.parent / "tests" / "rulebooks" / "tricks52"
N2 = next((p for p in (HERE.parent.parent / "shared", Path.cwd().parent / "shared", Path("/work/shared"))
           if (p / "fuzz-repro").exists()), Path("shared")) / "fuzz-repro" / "turn4" / "N2_resample_work_unbounded" / "consistent"


def tricks(states: int, samples: int) -> tuple:
    import random
    rb = Rulebook.load(TRICKS)
    medians, firsts = [], []
    for seed in range(states):
        st = rb.new_game(4, seed, logging=False)
        r = random.Random(seed)
        while len(st.history) < 24:
            st.apply_action(r.choice(st.legal_actions()))
        seat = st.current_player()
        t = time.perf_counter()
        st.resample(seat, 0)
        firsts.append(time.perf_counter() - t)
        times = []
        for k in range(1, samples + 1):
            t = time.perf_counter()
            st.resample(seat, k)
            times.append(time.perf_counter() - t)
        medians.append(statistics.median(times))
    return statistics.median(medians), statistics.median(firsts)


def n2(decisions: int = 2000, samples: int = 10):
    if not N2.exists():
        return None
    rb = Rulebook.load(N2)
    st = rb.new_game(2, seed=1)
    while len(st.history) < decisions:
        st.apply(st.legal_actions()[0])
    t = time.perf_counter()
    st.resample(1, 0)
    first = time.perf_counter() - t
    t = time.perf_counter()
    for k in range(samples):
        st.resample(1, k + 1)
    return time.perf_counter() - t, first


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=50)
    ap.add_argument("--states", type=int, default=8)
    args = ap.parse_args()
    load = os.getloadavg()
    med, first = tricks(args.states, args.samples)
    print(f"tricks52 after 6 tricks: median resample {med * 1000:.1f} ms (the real game's replay, once per "
          f"state: {first * 1000:.1f} ms); target <= 10 ms")
    got = n2()
    if got is not None:
        total, first = got
        print(f"N2 consistent after 2,000 decisions: 10 resamples {total:.2f} s (the real game's replay, once: "
              f"{first:.2f} s); target <= 1 s")
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
