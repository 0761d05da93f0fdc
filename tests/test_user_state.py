"""Nothing in the current folder (issue 37): what a command writes without being told where
(check's replays, serve's database, play's logs) goes to the user state folder
(interpreter/userstate.py); a flag that names a place wins."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import RULES, ROOT

HEAD = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 2}}
tables:
  points: {1: 10}
variables: {n: 0, score: 0}
actions:
  inc: {params: {k: "1..2"}, do: [{set: "n += k"}, {set: "score = points[n]"}]}
flow:
  - repeat: 2
    do: [{decide: [inc], who: 0}]
end: {score: "score"}
"""


def _env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_STATE_HOME", "REGELWERK_STATE", "REGELWERK_LOGS")}
    env.update(HOME=str(home), PYTHONPATH=str(ROOT), REGELWERK_CACHE="0")
    return env


@pytest.mark.slow
def test_check_leaves_the_current_folder_empty(tmp_path):
    here, home = tmp_path / "here", tmp_path / "home"
    here.mkdir()
    home.mkdir()
    # the issue's `check rules/yak --games 5`, kept short here: one 2-player game writes the same state
    proc = subprocess.run([sys.executable, "-m", "interpreter.cli", "check", str(RULES / "yak"), "--games", "1",
                           "--players", "2"],
                          cwd=here, env=_env(home), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert list(here.iterdir()) == []


def test_checks_replays_go_to_the_state_folder_unless_a_flag_names_one(rulebook, tmp_path, monkeypatch, capsys):
    from interpreter.cli import main
    book = rulebook(HEAD)                       # n reaches 2 or more, and points has no row for it: RW905 in every game
    here, state = tmp_path / "here", tmp_path / "state"
    here.mkdir()
    monkeypatch.chdir(here)
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.delenv("REGELWERK_STATE", raising=False)
    assert main(["check", str(book), "--games", "2", "--jobs", "1"]) == 1
    out = capsys.readouterr().out
    files = sorted((state / "regelwerk" / "replays").glob("*.jsonl"))
    assert files and str(files[0]) in out and list(here.iterdir()) == []
    monkeypatch.setenv("REGELWERK_STATE", str(tmp_path / "own"))
    assert main(["check", str(book), "--games", "2", "--jobs", "1"]) == 1
    assert sorted((tmp_path / "own" / "replays").glob("*.jsonl"))
    assert main(["check", str(book), "--games", "2", "--jobs", "1", "--replays", "mine"]) == 1
    assert sorted((here / "mine").glob("*.jsonl")) and [p.name for p in here.iterdir()] == ["mine"]


def test_serve_leaves_the_current_folder_empty(tmp_path):
    pytest.importorskip("starlette", reason="serve needs the web extra")
    here, home = tmp_path / "here", tmp_path / "home"
    here.mkdir()
    home.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "interpreter.cli", "serve", str(RULES / "yak"), "--port", "0"],
                            cwd=here, env=_env(home), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()           # "Regelwerk: Yak at http://…" once it listens
        assert "http://" in line, line + (proc.stdout.read() if proc.poll() is not None else "")
        deadline = time.monotonic() + 30
        db = home / ".local" / "state" / "regelwerk" / "serve.sqlite"
        while not db.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert db.exists()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stdout.close()
    assert list(here.iterdir()) == []
