"""Terminal play: a person against a bot, typed input, undo, hot-seat, the saved log."""
import io
import json
import os
import random
import re
import subprocess
import sys

import pytest
from rich.console import Console

from conftest import ROOT, RULES, game_folders
from interpreter.game import Rulebook
from interpreter.play.replay import replay_log
from interpreter.play.session import Session
from interpreter.play.tui import TerminalPlay, choose

GAMES = [p.name for p in game_folders()]
#: the longest terminal games run with the slow suites (CI runs both), to keep the default run short
LONG = {"yak", "azul_summer_pavilion"}
GAME_PARAMS = [pytest.param(g, marks=pytest.mark.slow) if g in LONG else g for g in GAMES]
RULE = re.compile(r"^─+ (Player \d) decides \(decision (\d+)\) ─+$", re.M)


def secret_labels(st, seat) -> set:
    """Labels of components in zones hidden from ``seat`` that no zone it sees shows."""
    obs = st.observation(seat)
    seen = {lbl for z in obs["zones"].values() if isinstance(z, list) for lbl in z}
    hidden = set()
    for zone in st.lay.zones:
        if isinstance(obs["zones"].get(zone.name), dict):
            hidden |= {c.label for c in st.z[zone.id]}
    return hidden - seen


def mentions(text, label) -> bool:
    return re.search(r"(?<![\w@-])" + re.escape(label) + r"(?![\w@-])", text) is not None


class Typist:
    """Types what a person would: a number, an id or a prefix; 'undo' once, at the third prompt."""

    def __init__(self, session, seed, undo_at=3):
        self.s = session
        self.rng = random.Random(seed)
        self.prompts = []     # (decisions so far, the human's observation) at each prompt
        self.undo_at = undo_at
        self.undone = None

    def __call__(self, prompt):
        st = self.s.state
        if not prompt.endswith("> "):
            return ""                                  # the "pass to" screen
        seat = st.current_player()
        self.prompts.append((len(self.s.history), st.observation(seat)))
        if len(self.prompts) == self.undo_at and self.undone is None:
            self.undone = len(self.prompts)
            return "undo"
        ids = [o["id"] for o in _numbered(st, seat)]     # numbered as shown: grouped by action
        assert sorted(ids) == sorted(st.legal_actions())
        pick = self.rng.randrange(len(ids))
        how = self.rng.random()
        if how < 0.6:
            return str(pick + 1)
        if how < 0.8:
            return ids[pick]
        prefix = ids[pick]
        while len(prefix) > 1 and sum(i.startswith(prefix[:-1]) for i in ids) == 1:
            prefix = prefix[:-1]
        return prefix


def _numbered(st, seat):
    from interpreter.play.view import build_view
    return [o for g in build_view(st, seat)["actions"] for o in g["options"]]


@pytest.mark.slow
@pytest.mark.parametrize("game", GAME_PARAMS)
def test_a_full_game_against_a_bot_in_the_terminal(game, tmp_path):
    rb = Rulebook.load(RULES / game)
    session = Session(rb, 2, 11, seats="human,random")
    out = io.StringIO()
    console = Console(file=out, width=140, color_system=None)
    typist = Typist(session, 11)
    log = tmp_path / "game.jsonl"
    assert TerminalPlay(session, log, console, typist).run() == 0
    assert session.state.is_terminal()
    text = out.getvalue()

    # undo went back to the previous decision of the person: same decisions so far, same view
    k = typist.undone
    assert k is not None
    before_len, before_obs = typist.prompts[k - 2]
    after_len, after_obs = typist.prompts[k]
    assert after_len == before_len and after_obs == before_obs

    # the person's screen never names a component hidden from them (checked at every decision shown)
    assert text.count("undone: back to Player 1's decision") == 1
    chunks = RULE.split(text.split("undone: back to")[1])     # after the undo, decision numbers are final
    checked = 0
    states, st = [], rb.new_game(2, 11)
    for _, action in session.history:
        states.append(st.clone())
        st.apply_action(action)
    for i in range(1, len(chunks) - 2, 3):
        name, number, body = chunks[i], int(chunks[i + 1]), chunks[i + 2]
        assert name == "Player 1"
        st = states[number - 1]
        assert st.current_player() == 0
        body = re.split(r"Player 1(?: \[Enter: [^\]]*\])?> ", body)[0]   # the view and the actions, up to the prompt
        for label in secret_labels(st, 0):
            assert not mentions(body, label), f"{label} is hidden from Player 1 but shown at decision {number}"
        opponent = re.search(r"╭─ Player 2.*?╰", body, re.S).group(0)
        seen = st.observation(0)["zones"]
        from interpreter.play.view import build_view
        titles = {f["name"]: f["title"] for p in build_view(st, 0)["players"] for f in p["families"]}
        for zone in st.lay.zones:
            obs = seen.get(zone.name)
            if isinstance(obs, dict) and zone.owner == 1 and obs["count"] and len(zone.index_values) == 1:
                assert f"{titles[zone.family]}: {obs['count']} hidden" in opponent   # under its title
        checked += 1
    assert checked >= 10

    # the saved log replays to the same scores
    done = replay_log(log)
    assert done.state.is_terminal() and done.state.scores() == session.state.scores()
    assert json.loads(log.read_text().splitlines()[0])["seats"][:2] == ["human", "random"]


def test_choose_by_number_id_or_unique_prefix():
    ids = ["take_factory(factory_no=1,color=red)", "take_factory(factory_no=2,color=red)", "take_centre(color=red)"]
    assert choose("2", ids) == (ids[1], "")
    assert choose(ids[2], ids) == (ids[2], "")
    assert choose("take_c", ids) == (ids[2], "")
    assert choose("take_factory(factory_no=2", ids) == (ids[1], "")
    assert choose("take_f", ids)[0] is None and "fits 2 actions" in choose("take_f", ids)[1]
    assert choose("4", ids)[0] is None and choose("xyz", ids)[0] is None


def test_hot_seat_passes_the_screen_and_keeps_secrets(tmp_path):
    rb = Rulebook.load(RULES / "yak")
    session = Session(rb, 2, 5, seats="human,human")
    out = io.StringIO()
    lines = iter(["1", "", "log", "1"])   # Player 1 chooses a card, the screen passes, Player 2 reads the log

    def read(prompt):
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None
    assert TerminalPlay(session, tmp_path / "hs.jsonl", Console(file=out, width=140, color_system=None), read).run() == 0
    text = out.getvalue()
    assert "Pass to Player 2" in text
    assert session.history[0][1].startswith("choose(card=")   # a secret (yak: choose is secret: true)
    after_pass = text.split("Pass to Player 2")[1]
    card = session.history[0][1][len("choose(card="):-1]
    # the story in the rulebook's words (display: say: choose: "Choose the {card} card")
    assert "Player 1: Choose the … card" in after_pass and f"Player 1: Choose the {card} card" not in after_pass
    assert f"Player 1: Choose the {card} card" in text.split("Pass to Player 2")[0]   # Player 1 was told their own
    assert len(session.history) == 2 and (tmp_path / "hs.jsonl").exists()


def test_quit_at_the_pass_screen_saves_the_game(tmp_path):
    session = Session(Rulebook.load(RULES / "yak"), 2, 5, seats="human,human")
    lines = iter(["1", "quit"])
    out = io.StringIO()
    code = TerminalPlay(session, tmp_path / "q.jsonl", Console(file=out, width=140, color_system=None),
                        lambda prompt: next(lines)).run()
    assert code == 0 and "game saved to" in out.getvalue()
    assert len((tmp_path / "q.jsonl").read_text().splitlines()) == 1 + 1


def test_play_through_stdin_with_undo_and_quit(tmp_path):
    log = tmp_path / "g.jsonl"
    proc = subprocess.run([sys.executable, "-m", "interpreter.cli", "play", str(RULES / "azul_summer_pavilion"),
                           "--players", "2", "--seats", "human,random", "--seed", "3", "--log", str(log)],
                          input="1\n1\nundo\n2\nnonsense\nquit\n", capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "undone: back to Player 1's decision 3" in proc.stdout
    assert "no action starts with 'nonsense'" in proc.stdout
    moves = [json.loads(x) for x in log.read_text().splitlines()[1:]]
    # decisions: P1 (1), bot, P1 (1) undone, P1 again (2), bot -> 4, the last by the bot
    assert [m["seat"] for m in moves] == [0, 1, 0, 1]
    done = replay_log(log)
    assert done.applied == 4 and done.state.current_player() == 0


def test_bots_by_name_and_unknown_seats(capsys):
    from interpreter.cli import main
    assert main(["play", str(RULES / "yak"), "--players", "2", "--seats", "human,genius"]) == 2
    assert "unknown seat 'genius'" in capsys.readouterr().err


def test_a_quit_game_goes_on_with_resume(tmp_path, capsys):
    from interpreter.cli import main
    log = tmp_path / "g.jsonl"
    book = str(RULES / "azul_summer_pavilion")
    old_stdin = sys.stdin
    try:
        sys.stdin = io.StringIO("1\n1\nquit\n")
        assert main(["play", book, "--players", "2", "--seats", "human,random", "--seed", "4", "--log", str(log)]) == 0
        saved = log.read_text().splitlines()
        assert len(saved) == 1 + 4                     # two decisions of the person, two of the bot
        sys.stdin = io.StringIO("1\nquit\n")
        assert main(["play", book, "--resume", str(log)]) == 0
    finally:
        sys.stdin = old_stdin
    out = capsys.readouterr().out
    assert "Player 1 decides (decision 5)" in out
    resumed = log.read_text().splitlines()
    assert resumed[:5] == saved and len(resumed) == 1 + 6


def test_a_person_s_game_is_saved_in_the_logs_folder_never_the_current_one(tmp_path):
    logs = tmp_path / "logs"
    work = tmp_path / "here"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "REGELWERK_LOGS": str(logs)}
    cmd = [sys.executable, "-m", "interpreter.cli", "play", str(RULES / "yak"), "--players", "2",
           "--seats", "human,random", "--seed", "3"]
    proc = subprocess.run(cmd, input="quit\n", capture_output=True, text=True, timeout=60, env=env, cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert "nothing saved" in proc.stdout                  # no decision: no file anywhere
    assert not list(work.iterdir()) and not logs.exists()
    proc = subprocess.run(cmd, input="1\nquit\n", capture_output=True, text=True, timeout=60, env=env, cwd=work)
    assert proc.returncode == 0, proc.stderr
    saved = list(logs.glob("yak-seed3-*.jsonl"))
    assert len(saved) == 1 and not list(work.iterdir())
    assert str(saved[0]) in proc.stdout.replace("\n", "")
    assert replay_log(saved[0]).applied >= 1


def test_a_forced_choice_is_taken_with_enter(tmp_path):
    rb = Rulebook.load(RULES / "moonlight_market")
    session = Session(rb, 2, 1, seats="human,random")
    prompts = []

    def read(prompt):
        prompts.append(prompt)
        st = session.state
        if len(st.legal_actions()) == 1:
            assert "[Enter: " in prompt
            return ""
        if len(prompts) > 60:
            return "quit"
        return "1"
    out = io.StringIO()
    TerminalPlay(session, tmp_path / "f.jsonl", Console(file=out, width=100, color_system=None), read).run()
    assert any("[Enter: " in p for p in prompts)


def test_the_log_on_disk_holds_every_decision_whenever_a_person_is_asked(tmp_path):
    """A person's game is kept on disk as it goes: at every prompt (where a kill or a closed terminal
    would end it) the log already holds every decision made, also right after an undo."""
    from interpreter.play.gamelog import read_log
    rb = Rulebook.load(RULES / "moonlight_market")
    session = Session(rb, 2, 5, seats="human,random")
    log = tmp_path / "live.jsonl"
    typist = Typist(session, 5, undo_at=4)
    checked = []

    def read(prompt):
        if prompt.endswith("> "):
            on_disk, problems = read_log(log)
            assert not problems
            assert [(seat, action) for _, seat, action in on_disk.actions] == session.history
            checked.append(len(session.history))
            if len(checked) == 12:
                raise EOFError                       # the terminal closes mid-game
        return typist(prompt)

    console = Console(file=io.StringIO(), width=140, color_system=None)
    assert TerminalPlay(session, log, console, read).run() == 0
    assert len(checked) == 12 and max(checked) > 4 and typist.undone is not None


@pytest.mark.skipif(not os.path.exists("/dev/null") or not __import__("stat").S_ISCHR(os.stat("/dev/null").st_mode),
                    reason="needs /dev/null as a character device")
def test_a_game_logged_to_dev_null_leaves_it_a_device():
    """A log written whole again (the first write, an undo) goes to a temporary file renamed over
    the log — but never over a device or a pipe: run as root, a rename over /dev/null put a file
    in its place (a test's game, 377 bytes) for every later program on the machine."""
    import stat
    from interpreter.play.gamelog import LiveLog
    log = LiveLog("/dev/null")
    head = {"rulebook": "x"}
    log.sync(head, [(0, "a")])
    log.sync(head, [(0, "a"), (1, "b")])          # appended
    log.sync(head, [(0, "c")])                    # an undo: written whole again
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert not os.path.exists("/dev/null.partial")
