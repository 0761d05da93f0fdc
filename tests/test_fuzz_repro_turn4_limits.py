"""The fourth round of fuzzing reproducers that concern the engine limits (issue 38, N1, N15,
N9; ``tests/fuzz_repro/turn4``, copies of ``shared/fuzz-repro/turn4``): every limit holds
at run time for values of every size: each ends in a located error, within seconds and
bounded memory."""
from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).with_name("fuzz_repro") / "turn4"
LOCATED = re.compile(r"^\s*(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): (error|warning): ")


def _cap(mb: int):
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))
    return limit


def run_cli(*argv, cwd=HERE, env=None, timeout=60, mb=1536) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "interpreter.cli", *map(str, argv)], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, preexec_fn=_cap(mb), env={**os.environ, **(env or {})},
                          stdin=subprocess.DEVNULL)


def located(proc, code: str, message: str) -> list:
    """The (file, line, col) of each located diagnostic with ``code`` and ``message``; none
    may be a traceback."""
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out and "RecursionError" not in out and "MemoryError" not in out, out[-2000:]
    return [(m["file"], int(m["line"]), int(m["col"])) for line in out.splitlines()
            for m in [LOCATED.match(line)] if m and f"[{code}]" in line and message in line]


@pytest.mark.parametrize("case, where", [("N1_set_param_unbounded", ("N1_set_param_unbounded/game.yaml", 7, 23)),
                                         ("N1_set_param_unbounded/hand",
                                          ("N1_set_param_unbounded/hand/game.yaml", 16, 24))])
def test_n1_a_set_parameter_with_too_many_sets_is_refused_before_one_is_built(case, where):
    start = time.monotonic()
    proc = run_cli("play", case, "--players", "2", "--seed", "1", "--quiet", mb=1024)
    assert proc.returncode == 1
    assert located(proc, "RW910", "more than 1,000,000 choices (limit 'elements')") == [where]
    assert time.monotonic() - start < 30


def test_n1_counting_the_sets_builds_none():
    from interpreter.engine.run.choices import choose_sets
    from interpreter.engine.run.limits import LimitError
    with pytest.raises(LimitError, match="sets of 1 to 30 of these 60 elements"):
        choose_sets(range(1, 61), 1, 30)
    assert len(choose_sets(range(1, 61), 1, 3)) == 60 + 1770 + 34220      # C(60, 1..3)


def test_n15_many_small_kept_lists_reach_the_memory_limit():
    # the limit lowered to 300 MB (the process starts near 60 MB), the address space capped at 1.5 GB:
    # without the look at the memory for small lists the run ends in a MemoryError, not RW910
    start = time.monotonic()
    proc = run_cli("play", "N15_memory_limit_bypass_small_lists", "--players", "2", "--seed", "1", "--quiet",
                   env={"REGELWERK_LIMITS": "memory=300"}, timeout=120)
    assert proc.returncode == 1
    assert located(proc, "RW910", "(limit 'memory')") == [("N15_memory_limit_bypass_small_lists/game.yaml", 10, 38)]
    assert time.monotonic() - start < 60


def test_small_builds_add_up_to_a_look_at_the_memory():
    from interpreter.engine.run import limits
    before = (limits.LIMITS.work, limits.LIMITS.memory)
    try:
        limits.WORK[0] = 0
        limits.NEXT[0] = limits.BIG
        limits.configure(memory=1)
        for _ in range(limits.BIG // 1000):       # 65 lists of 1,000: no look yet
            limits.check_size(1000, "a list")
        with pytest.raises(limits.LimitError, match="limit 'memory'"):
            for _ in range(2):
                limits.kept((0,) * 1000)          # a kept list counts as built
    finally:
        limits.configure(work=before[0], memory=before[1])
        limits.WORK[0] = 0
        limits.NEXT[0] = limits.BIG


def test_n9_a_sentence_nested_too_deep_is_located_and_play_has_no_traceback(tmp_path):
    subprocess.run([sys.executable, str(HERE / "N9_say_nested_brackets" / "make.py"), "100000"], cwd=tmp_path,
                   check=True, timeout=60)
    proc = run_cli("validate", "game", cwd=tmp_path)
    assert proc.returncode == 1
    assert located(proc, "RW251", "[brackets] nested more than 100 deep (limit 'depth')") == [("game/game.yaml", 16, 210)]
    assert "RW299" not in proc.stdout + proc.stderr
    play = run_cli("play", "game", "--players", "2", "--seed", "1", "--quiet", cwd=tmp_path)
    located(play, "RW251", "")                      # no traceback, whatever it says
    assert play.returncode in (0, 1)


def test_a_sentence_nested_up_to_the_limit_still_reads():
    from interpreter.engine.display.say import parse_template, slots
    deep = "[a" * 100 + "{n}" + "]b" * 100
    assert [s.name for s in slots(parse_template(deep))] == ["n"]
