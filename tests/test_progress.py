"""Progress bars: drawn on a terminal (a pseudo-terminal here), never in a pipe or with --json."""
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# a small rulebook: the bar is the same for any (a shipped game's check takes seconds more each)
CHECK = [sys.executable, "-m", "interpreter.cli", "check", str(ROOT / "tests" / "rulebooks" / "tiny_duel"),
         "--games", "6", "--players", "2", "--jobs", "1"]


def _run_in_pty(cmd) -> str:
    pid, fd = pty.fork()
    if pid == 0:                                    # the child: stdin/stdout/stderr are the terminal
        os.chdir(ROOT)
        os.environ["TERM"] = "xterm"
        os.environ.pop("CI", None)
        os.execv(cmd[0], cmd)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:                             # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    return out.decode("utf-8", "replace")


def test_check_draws_a_bar_with_time_left_on_a_terminal(tmp_path):
    out = _run_in_pty(CHECK + ["--replays", str(tmp_path)])
    assert "check Tiny duel" in out
    assert "/6" in out                              # done/total of the 6 games
    assert "left" in out
    assert "6 games" in out                         # the summary still follows


def test_check_is_quiet_in_a_pipe(tmp_path):
    proc = subprocess.run(CHECK + ["--replays", str(tmp_path)], cwd=ROOT, capture_output=True, text=True)
    assert "left" not in proc.stderr and "left" not in proc.stdout
    assert "/6" not in proc.stderr
    assert "6 games" in proc.stdout


def test_check_json_is_quiet_on_a_terminal(tmp_path):
    out = _run_in_pty(CHECK + ["--format", "json", "--replays", str(tmp_path)])
    assert "left" not in out and "/6" not in out


@pytest.mark.slow
def test_bench_draws_a_bar_on_a_terminal_and_not_in_a_pipe():
    bench = [sys.executable, "-m", "interpreter.cli", "bench", str(ROOT / "rules" / "yak"), "--games", "4",
             "--players", "2"]
    assert "left" in _run_in_pty(bench)
    proc = subprocess.run(bench, cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and "left" not in proc.stdout + proc.stderr
    assert "4 games in" in proc.stdout


@pytest.mark.slow     # 4-7 s each: moved out of the default run, which must stay under 5 minutes
def test_report_draws_a_bar_on_a_terminal_and_not_in_a_pipe(tmp_path):
    pytest.importorskip("matplotlib", reason="reports need the report extra (pip install -e '.[report]')")
    report = [sys.executable, "-m", "interpreter.cli", "report", str(ROOT / "rules" / "yak"), "--games", "4",
              "--players", "2", "--jobs", "1", "--out", str(tmp_path / "r")]
    out = _run_in_pty(report)
    assert "report Yak" in out and "/4" in out and "left" in out
    proc = subprocess.run(report, cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and "left" not in proc.stdout + proc.stderr
    assert "report.html" in proc.stdout


@pytest.mark.slow
def test_a_long_test_run_draws_a_bar_on_a_terminal_and_not_in_a_pipe():
    test = [sys.executable, "-m", "interpreter.cli", "test", str(ROOT / "rules" / "yak")]
    n = len(list((ROOT / "rules" / "yak" / "scenarios").glob("*.yaml")))
    out = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", _run_in_pty(test))      # colours off
    assert f"{n}/{n}" in out and "PASS" in out and " passed, 0 failed" in out
    proc = subprocess.run(test, cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and f"{n}/{n}" not in proc.stdout + proc.stderr and proc.stderr == ""
