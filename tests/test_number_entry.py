"""Numbers as numbers (issue 42): a parameter written as a range bounded by the state
(``0..money[player]``) is entered as a number in the terminal, and its action-space bound is
derived from the declared maximum of the variable that bounds it."""
import json
import os
import pty
import re
import select
import subprocess
import sys
import time

from conftest import ROOT
from interpreter.game import Rulebook, check_rulebook
from interpreter.play.tui import choose, number_groups
from interpreter.play.view import build_view

SEALED = ROOT / "tests" / "rulebooks" / "sealed_bids"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]|\r")


def test_the_bound_comes_from_the_declared_maximum(rulebook):
    # money: max 6 in the rulebook: bid(amount=0) … bid(amount=6), and no guess beyond
    ids = Rulebook.load(SEALED).action_space(2).ids
    assert ids == tuple(f"bid(amount={n})" for n in range(7))
    text = (SEALED / "game.yaml").read_text()
    more = rulebook(text.replace("init: 6, min: 0, max: 6", "init: 6, min: 0, max: 9"))
    assert Rulebook.load(more).action_space(2).ids[-1] == "bid(amount=9)"
    # without a maximum: RW240 names the variable to bound
    none = rulebook(text.replace("init: 6, min: 0, max: 6", "init: 6"))
    found = [d for d in check_rulebook(none)[0].items if d.code == "RW240"]
    assert found and "'money' declares no min and max" in found[0].message, found


def test_a_number_is_the_value_and_out_of_range_says_the_range():
    st = Rulebook.load(SEALED).new_game(2, 1)
    groups = number_groups(build_view(st, 0), st.game)
    assert [(g.action, g.param, sorted(g.values)) for g in groups] == [("bid", "amount", list(range(7)))]
    assert choose("4", [], groups) == ("bid(amount=4)", "")
    assert choose("bid 6", [], groups) == ("bid(amount=6)", "")
    assert choose("7", [], groups) == (None, "bid: amount cannot be 7 now (amount: a number, 0 to 6)")
    assert choose("bid(amount=2)", ["bid(amount=2)"], groups)[0] == "bid(amount=2)"   # an id still works


def test_a_person_enters_a_bid_as_a_number_in_a_real_terminal(tmp_path):
    log = tmp_path / "g.jsonl"
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(PYTHONPATH=str(ROOT), TERM="xterm-256color", HOME=str(tmp_path))
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "interpreter.cli", "play", str(SEALED), "--players", "2",
                             "--seats", "human,first", "--seed", "1", "--log", str(log)],
                            stdin=slave, stdout=slave, stderr=slave, env=env, cwd=tmp_path, start_new_session=True)
    os.close(slave)
    out, typed = "", ["5\n", "quit\n"]
    deadline = time.time() + 60
    try:
        while typed and time.time() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                out += os.read(master, 65536).decode("utf-8", "replace")
            except OSError:
                break
            if ANSI.sub("", out).rstrip().endswith("Player 1>"):
                os.write(master, typed.pop(0).encode())
                out += "\n--typed--\n"
        proc.wait(timeout=20)
    finally:
        os.close(master)
    screen = ANSI.sub("", out)
    assert "amount: a number, 0 to 6" in screen, screen[-2000:]
    assert "bid(amount=6)" not in screen.split("--typed--")[0]      # no list of every value
    moves = [json.loads(x) for x in log.read_text().splitlines()[1:]]
    # the person typed 5; the first-option bot bid 0; Player 1 won lot 1 and paid 5
    assert moves[:2] == [{"seat": 0, "action": "bid(amount=5)"}, {"seat": 1, "action": "bid(amount=0)"}]
    assert "amount: a number, 0 to 1" in screen.split("--typed--")[1]     # 6 - 5 coins left
