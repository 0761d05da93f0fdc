"""`regelwerk replay`: logs replay from any directory, bad lines are located, changed rulebooks reported."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, RULES
from interpreter.cli import main

YAK = RULES / "yak"
HEAD = {"rulebook": str(YAK), "players": 2, "seed": 1}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def write(path, *lines):
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("lines, line_no, words", [
    ([], 1, "empty"),
    (["hello"], 1, "not JSON"),
    ([[1, 2]], 1, "first line must be an object"),
    ([{"players": 2}], 1, "no 'rulebook'"),
    ([{**HEAD, "players": "two"}], 1, "'players' must be a whole number"),
    ([{**HEAD, "seed": "x"}], 1, "'seed' must be a whole number"),
    ([{**HEAD, "options": [1, 2]}], 1, "'options' must be an object"),
    ([{**HEAD, "variants": "bonus_cards"}], 1, "'variants' must be a list"),
    ([{**HEAD, "players": 99}], 1, "for 2 to 4 players, not 99"),
    ([HEAD, {"action": "no_such_action"}], 2, "'no_such_action' is not a legal action now"),
    ([HEAD, {"action": 5}], 2, "must be an action id"),
    ([HEAD, {}], 2, "no 'action'"),
    ([HEAD, [1]], 2, "must be an object"),
    ([HEAD, {"seat": 1, "action": "choose(card=build)"}], 2, "seat 0's turn"),
    ([{**HEAD, "rulebook": "/nonexistent"}], 1, "not a rulebook folder"),
    ([{**HEAD, "names": "Ann"}], 1, "'names' must be a list"),
    ([{**HEAD, "names": ["Ann", "Ann"]}], 1, "two seats have the same name"),
    ([{**HEAD, "names": ["A", "B", "C"]}], 1, "3 names for 2 players"),
])
def test_a_bad_log_is_one_located_line_and_exit_1(tmp_path, capsys, lines, line_no, words):
    log = write(tmp_path / "bad.jsonl", *lines)
    code, out, err = run(capsys, "replay", log)
    assert code == 1
    assert f"{log}:{line_no}: error: " in err and words in err
    assert "Traceback" not in err + out


def test_a_log_naming_a_system_folder_is_refused_without_reading_it(tmp_path, capsys):
    log = write(tmp_path / "etc.jsonl", {**HEAD, "rulebook": "/etc"})
    code, out, err = run(capsys, "replay", log)
    assert code == 1 and err.count("\n") == 1 and "not a rulebook folder" in err and out == ""


def test_non_utf8_log(tmp_path, capsys):
    log = tmp_path / "bin.jsonl"
    log.write_bytes(b"\xff\xfe\n")
    code, _, err = run(capsys, "replay", log)
    assert code == 1 and f"{log}:1: error: not UTF-8" in err


def test_a_log_replays_from_another_directory_to_the_same_scores(tmp_path, capsys, monkeypatch):
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "game.jsonl"
    code, out, _ = run(capsys, "play", RULES / "azul_summer_pavilion", "--players", "3", "--seed", "2", "--json",
                       "--log", log)
    assert code == 0
    played = json.loads(out)
    head = json.loads(log.read_text().splitlines()[0])
    assert not os.path.isabs(head["rulebook"])                  # relative to the log's folder
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = subprocess.run([sys.executable, "-m", "interpreter.cli", "replay", str(log)], cwd=elsewhere,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert f"{played['decisions']} decisions replayed" in proc.stdout
    assert f"scores {played['scores']}" in proc.stdout


def test_a_changed_rulebook_is_reported(tmp_path, capsys):
    book = tmp_path / "azul"
    shutil.copytree(RULES / "azul_summer_pavilion", book)
    log = tmp_path / "game.jsonl"
    assert run(capsys, "play", book, "--players", "2", "--seed", "3", "--quiet", "--log", log)[0] == 0
    code, _, err = run(capsys, "replay", log)
    assert code == 0 and err == ""
    with (book / "scoring.yaml").open("a") as f:
        f.write("# an edit\n")
    code, out, err = run(capsys, "replay", log)
    assert f"{log}:1: warning: the rulebook" in err and "has changed" in err


def test_until_and_show_draw_the_state_after_n_decisions(tmp_path, capsys):
    log = tmp_path / "game.jsonl"
    assert run(capsys, "play", YAK, "--players", "2", "--seed", "1", "--quiet", "--log", log)[0] == 0
    code, out, err = run(capsys, "replay", log, "--until", "3", "--show")
    assert code == 0, err
    assert "3 decisions replayed" in out
    told = [x for x in out.splitlines() if x.startswith(("Player 1: ", "Player 2: "))]
    assert len(told) == 3
    assert "Tower" in out and "Player 2" in out        # the tower under its title (display: titles:)


def test_the_names_of_play_names_are_kept_in_the_log_and_shown_again(tmp_path, capsys):
    # issue 42's leftover: `play --names` named the seats on the screen but the log forgot them
    log = tmp_path / "game.jsonl"
    assert run(capsys, "play", YAK, "--players", "2", "--seed", "1", "--quiet", "--names", "Ann,Bob",
               "--log", log)[0] == 0
    head = json.loads(log.read_text().splitlines()[0])
    assert head["names"] == ["Ann", "Bob"]
    code, out, err = run(capsys, "replay", log, "--until", "2", "--show")
    assert code == 0, err
    assert "Ann" in out and "Bob" in out and "Player 1" not in out
    from interpreter.play.session import Session
    from interpreter.game import Rulebook
    resumed = Session.from_log(Rulebook.load(YAK), log)           # what `play --resume` opens
    assert resumed.names == ["Ann", "Bob"] and resumed.seat_names[:2] == ["Ann", "Bob"]
    resumed.save(tmp_path / "again.jsonl")                         # and writes again
    assert json.loads((tmp_path / "again.jsonl").read_text().splitlines()[0])["names"] == ["Ann", "Bob"]
    # without --names the header has none, as before
    plain = tmp_path / "plain.jsonl"
    assert run(capsys, "play", YAK, "--players", "2", "--seed", "1", "--quiet", "--log", plain)[0] == 0
    assert "names" not in json.loads(plain.read_text().splitlines()[0])


def test_seat_counts_from_0_as_in_the_api(tmp_path, capsys):
    # issue 37: --seat counted from 1 while the API, the log and scenarios count from 0
    log = tmp_path / "game.jsonl"
    assert run(capsys, "play", YAK, "--players", "2", "--seed", "1", "--quiet", "--log", log)[0] == 0
    for seat, you in ((0, "Player 1 (you)"), (1, "Player 2 (you)")):
        code, out, err = run(capsys, "replay", log, "--until", "1", "--show", "--seat", seat)
        assert code == 0 and you in out, err
    code, out, err = run(capsys, "replay", log, "--until", "1", "--show", "--seat", 2)
    assert code == 2 and "--seat takes 0 to 1: seats count from 0" in err and "1 is Player 2" in err


def test_a_log_whose_line_breaks_an_invariant_is_located(tmp_path, capsys, rulebook):
    book = rulebook("""\
        regelwerk: 1
        game: {name: Inv, players: {min: 2, max: 2}}
        variables: {n: 0}
        actions:
          up: {do: [{set: "n = n + 1"}]}
        invariants:
          small: "n < 2"
        flow:
          - repeat: 5
            do: [{decide: [up], who: 0}]
        end:
          score: "n"
        """)
    log = write(tmp_path / "inv.jsonl", {"rulebook": str(book), "players": 2, "seed": 0},
                {"action": "up"}, {"action": "up"}, {"action": "up"})
    code, _, err = run(capsys, "replay", log)
    assert code == 1 and f"{log}:3: error: invariant 'small' is broken" in err
