"""The command line, as a user runs it."""
import json
import subprocess
import sys

import pytest

from conftest import RULES
from interpreter.cli import main

AZUL = str(RULES / "azul_summer_pavilion")


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_help_lists_the_commands():
    proc = subprocess.run([sys.executable, "-m", "interpreter.cli", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0
    for cmd in ("validate", "play", "test", "bench"):
        assert cmd in proc.stdout


@pytest.mark.parametrize("players", [2, 3, 4])
def test_play_json_is_deterministic(capsys, players):
    code, out1, _ = run(capsys, "play", AZUL, "--players", str(players), "--seed", "5", "--json")
    assert code == 0
    code, out2, _ = run(capsys, "play", AZUL, "--players", str(players), "--seed", "5", "--json")
    assert out1 == out2
    result = json.loads(out1)
    assert len(result["scores"]) == players and len(result["ranking"]) == players
    assert result["winners"] and result["decisions"] > 0


def test_play_text_prints_progress_and_scores(capsys):
    code, out, _ = run(capsys, "play", AZUL, "--players", "2", "--seed", "1", "--bots", "greedy,random")
    assert code == 0
    assert "Place " in out and "1. Player" in out and "(greedy)" in out


def test_play_log_file_replays(tmp_path, capsys):
    log = tmp_path / "game.jsonl"
    code, out, _ = run(capsys, "play", AZUL, "--players", "3", "--seed", "2", "--json", "--log", str(log))
    assert code == 0
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert lines[0]["seed"] == 2 and len(lines) - 1 == json.loads(out)["decisions"]


@pytest.mark.parametrize("argv, words", [
    (["play", AZUL, "--players", "9"], "for 2 to 4 players"),
    (["play", AZUL, "--players", "x"], "'x' is not a whole number"),
    (["play", AZUL, "--players", "2", "--bots", "random,,greedy"], "empty name"),
    (["play", AZUL, "--players", "2", "--bots", ","], "empty name"),
    (["play", AZUL, "--players", "2", "--seed", "-1"], "must be from 0"),
    (["bench", AZUL, "--games", "-1"], "must be at least 1, not -1"),
    (["bench", AZUL, "--games", "-3"], "must be at least 1, not -3"),
    (["bench", AZUL, "--games", "0"], "must be at least 1, not 0"),
    (["bench", AZUL, "--players", "0"], "must be at least 1, not 0"),
    (["bench", AZUL, "--players", "7"], "for 2 to 4 players, not 7"),
    (["bench", AZUL, "--repeat", "0"], "must be at least 1"),
    (["check", AZUL, "--games", "1", "--players", ","], "takes numbers like 2,3,4"),
    (["check", AZUL, "--games", "1", "--players", "2", "--check-every", "0"], "must be at least 1, not 0"),
    (["check", AZUL, "--games", "1", "--max-decisions", "-5"], "must be at least 1"),
    (["check", AZUL, "--games", "1", "--jobs", "-2"], "must be from 0 to 256"),
    (["replay", "x.jsonl", "--until", "-1"], "must be at least 0"),
    (["play", AZUL, "--players", "2", "--bots", "genius"], "unknown bot"),
    (["play", AZUL, "--players", "2", "--variant", "nope"], "unknown variant"),
    (["play", AZUL, "--players", "2", "--option", "x"], "NAME=VALUE"),
    (["frobnicate"], "invalid choice"),
    (["test", "/no/such/place"], "no such file"),
])
def test_bad_arguments_give_one_line(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert words in err and err.strip().count("\n") == 0


def test_play_without_players_plays_the_fewest_the_game_allows(capsys):
    """Issue 38: no --players is the game's minimum, said in one line with how to ask for more."""
    code, out, _ = run(capsys, "play", AZUL, "--seed", "1")
    assert code == 0
    assert out.splitlines()[0] == "2 players (the fewest Azul: Summer Pavilion allows; --players up to 4)"
    assert "1. Player" in out and "Player 3" not in out


def test_a_shipped_game_named_by_a_path_that_is_not_here_says_its_name(capsys, tmp_path, monkeypatch):
    """`rules/yak` outside the checkout: the error says to name the game (`yak`)."""
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "play", "rules/yak", "--seed", "1")
    assert code == 2 and "the shipped game is called 'yak'" in err and "regelwerk play yak" in err


def test_play_help_names_every_bot(capsys):
    from interpreter.ai.bots import BOTS
    with pytest.raises(SystemExit):
        run(capsys, "play", "--help")
    out = capsys.readouterr().out
    assert "with bots" not in out and all(b in out for b in BOTS)


def test_a_seat_may_repeat_a_bot_name(capsys):
    code, out, _ = run(capsys, "play", AZUL, "--players", "3", "--seed", "4", "--bots", "random,random,greedy", "--json")
    assert code == 0 and json.loads(out)["bots"] == ["random", "random", "greedy"]


def test_play_without_a_seed_prints_the_seed_it_chose(capsys):
    code, out, _ = run(capsys, "play", AZUL, "--players", "2", "--quiet")
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith("seed ")
    seed = int(first.split()[1])
    # the printed seed plays the same game again
    _, out_a, _ = run(capsys, "play", AZUL, "--players", "2", "--seed", str(seed), "--quiet")
    assert out_a.strip().splitlines()[-3:] == out.strip().splitlines()[-3:]


def test_play_json_without_a_seed_reports_it(capsys):
    code, out, _ = run(capsys, "play", AZUL, "--players", "2", "--json")
    assert code == 0 and isinstance(json.loads(out)["seed"], int)


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith("regelwerk 0.")


def test_test_command_counts_scenarios(capsys):
    code, out, _ = run(capsys, "test", AZUL)
    assert code == 0
    last = out.strip().splitlines()[-1]
    assert last.endswith("scenarios") and " 0 failed" in last


def test_bench_prints_rates(capsys):
    code, out, _ = run(capsys, "bench", AZUL, "--games", "2", "--players", "2")
    assert code == 0 and "games/s" in out and "decisions/s" in out
