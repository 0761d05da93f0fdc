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


def run_cli(*argv, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "interpreter.cli", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=10, preexec_fn=_limit_memory)


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
