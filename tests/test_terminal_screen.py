"""The terminal at 80×24: the first decision of each shipped game on one screen, in a real pty."""
import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time

import pytest

from conftest import ROOT, RULES, game_folders
from interpreter.game import Rulebook
from interpreter.play.view import build_view

GAMES = [p.name for p in game_folders()]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]|\r")
CLEAR = "\x1b[2J"


def run_in_pty(cmd, env, cols=80, rows=24, until="> ", timeout=60.0) -> str:
    """What ``cmd`` writes to a terminal of ``cols``×``rows`` until it prints ``until`` (then it is told quit)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=env["HOME"],
                            start_new_session=True)
    os.close(slave)
    out = b""
    deadline = time.time() + timeout
    try:
        while time.time() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
                if ANSI.sub("", out.decode("utf-8", "replace")).rstrip().endswith(until.rstrip()):
                    break
            elif proc.poll() is not None:
                break
        os.write(master, b"quit\n")
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
    finally:
        os.close(master)
    return out.decode("utf-8", "replace")


@pytest.mark.parametrize("game", GAMES)
def test_the_board_and_every_choice_of_the_first_decision_fit_80_by_24(game, tmp_path):
    seed = 3
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(PYTHONPATH=str(ROOT), TERM="xterm-256color", HOME=str(tmp_path), REGELWERK_LOGS=str(tmp_path / "logs"))
    raw = run_in_pty([sys.executable, "-m", "interpreter.cli", "play", str(RULES / game), "--players", "2",
                      "--seats", "human,random", "--seed", str(seed)], env)
    assert CLEAR in raw, raw[-2000:]                          # the compact screen: drawn anew each decision
    screen = ANSI.sub("", raw.split(CLEAR)[-1])
    lines = screen.rstrip("\n").split("\n")
    assert lines[-1].endswith("> "), lines[-3:]
    assert len(lines) <= 24, "\n".join(lines)
    assert max(len(x) for x in lines) <= 80
    # what the person sees at the first decision: computed from the game itself
    st = Rulebook.load(RULES / game).new_game(2, seed)
    assert st.current_player() == 0
    view = build_view(st, 0)
    text = "\n".join(lines)
    assert view["game"] in lines[0] and "Player 1 to decide" in lines[0]
    n = 0
    for group in view["actions"]:
        for o in group["options"]:
            n += 1
            assert re.search(rf"(^|\s){n} {re.escape(o['say'])}(\s|$)", text, re.M), (o["say"], text)
    # the board: every shared family with something visible in it, and the person's own zones
    names = [f["title"] for f in view["shared"]]
    shown = [x for x in names if re.search(rf"^{re.escape(x)}:", text, re.M)]
    assert len(shown) >= len(names) - 2, (names, text)       # piles of hidden counts may give way
    assert "Player 1 (you)" in text
    mine = [f["title"] for f in view["players"][0]["families"]]
    assert all(re.search(rf"^{re.escape(x)}:", text, re.M) for x in mine), (mine, text)
