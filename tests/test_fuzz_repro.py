"""Every input that once crashed `regelwerk` now ends in located diagnostics.

The folders under ``tests/fuzz_repro/`` are copies of the fuzzing
reproducers (``shared/fuzz-repro``, see its README): broken rulebooks (V*)
and rulebooks with a broken scenario (S*).  Each must end within 10 s and
1 GB with exit status 1, no traceback, and every error located inside the
reproducer's own files as ``file:line:col``.
"""
from __future__ import annotations

import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).with_name("fuzz_repro")
CASES = sorted(p.name for p in HERE.iterdir() if p.is_dir() and p.name[0] in "VS")
LOCATED = re.compile(r"^\s*(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): (error|warning): ")


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


#: wall-clock seconds a reproducer may take: each ends in about 3 s of CPU on a quiet machine; 30 s (the
#: bound the robustness issue sets) keeps a machine loaded 5x from failing a run that is not stuck
SECONDS = 30


def run_cli(*argv, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "interpreter.cli", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=SECONDS, preexec_fn=_limit_memory)


@pytest.mark.parametrize("case", CASES)
def test_reproducer_ends_in_located_errors(case):
    command = "test" if case.startswith("S") else "validate"
    proc = run_cli(command, case, cwd=HERE)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-2000:]
    assert "Traceback" not in out
    located = [LOCATED.match(line) for line in out.splitlines()]
    located = [m for m in located if m]
    assert located, out[-2000:]
    for m in located:
        path = (HERE / m["file"]).resolve()
        assert path.is_relative_to((HERE / case).resolve()), m.group(0)
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        assert 1 <= int(m["line"]) <= max(len(lines), 1), m.group(0)


EXHAUSTION = HERE / "exhaustion"
BOOKS = sorted(p.name for p in EXHAUSTION.iterdir() if p.is_dir())


@pytest.mark.slow
@pytest.mark.parametrize("book", BOOKS)
@pytest.mark.parametrize("command", [["play", "--players", "2", "--seed", "1", "--quiet"], ["test"]])
def test_rulebooks_that_ask_for_too_much_work_end_in_seconds(book, command):
    """Each of these once hung or ate gigabytes; now: a located limit error (or a clean game)."""
    proc = run_cli(command[0], book, *command[1:], cwd=EXHAUSTION)
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out
    assert proc.returncode in (0, 1), out[-2000:]
    if proc.returncode == 1:
        located = [m for m in map(LOCATED.match, out.splitlines()) if m]
        assert located, out[-2000:]
        for m in located:
            assert (EXHAUSTION / m["file"]).resolve().is_relative_to((EXHAUSTION / book).resolve()), m.group(0)


def test_limits_can_be_raised_for_research_runs():
    from interpreter.engine.run import limits
    before = limits.LIMITS.elements
    try:
        limits.configure(elements=10)
        with pytest.raises(limits.LimitError, match="at most 10 are allowed"):
            limits.check_size(11, "this list")
        with pytest.raises(ValueError, match="unknown limit"):
            limits.configure(nope=3)
    finally:
        limits.configure(elements=before)


def test_the_digits_limit_follows_every_change_of_it(monkeypatch):
    """check_number compares with a bound kept beside ``digits``: configure() and a plain
    assignment (as monkeypatch makes) both move it.  10**30 has 31 digits."""
    from interpreter.engine.run import limits
    assert limits.check_number(10 ** 30) == 10 ** 30
    monkeypatch.setattr(limits.LIMITS, "digits", 20)
    with pytest.raises(limits.LimitError, match="more than 20 digits"):
        limits.check_number(10 ** 30)
    before = limits.LIMITS.digits
    try:
        limits.configure(digits=40)
        assert limits.check_number(10 ** 30) == 10 ** 30
        assert limits.check_number(-10 ** 30) == -10 ** 30
        with pytest.raises(limits.LimitError):
            limits.check_number(10 ** 200)
    finally:
        limits.configure(digits=before)


CLI = HERE / "cli"
LOGS = sorted(p.name for p in CLI.glob("*.jsonl"))


@pytest.mark.parametrize("log", LOGS)
def test_a_malformed_log_is_reported_at_its_line(log, capsys, monkeypatch):
    """Replay files that once ended in tracebacks (their rulebooks are named rules/<game>, from the project root)."""
    from interpreter.cli import main
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    code = main(["replay", str(CLI / log)])
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert code == 1, out[-2000:]
    assert re.search(rf"{re.escape(log)}:\d+: error: ", out), out[-2000:]
    if log == "rb_etc.jsonl":  # names a system folder: refused, nothing of it printed
        assert "root:" not in out and "passwd" not in out
