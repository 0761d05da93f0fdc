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
    assert "places" in out and "1. Player" in out and "(greedy)" in out


def test_play_log_file_replays(tmp_path, capsys):
    log = tmp_path / "game.jsonl"
    code, out, _ = run(capsys, "play", AZUL, "--players", "3", "--seed", "2", "--json", "--log", str(log))
    assert code == 0
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert lines[0]["seed"] == 2 and len(lines) - 1 == json.loads(out)["decisions"]


@pytest.mark.parametrize("argv, words", [
    (["play", AZUL, "--players", "9"], "for 2 to 4 players"),
    (["play", AZUL, "--players", "x"], "invalid int value"),
    (["play", AZUL], "required"),
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


def test_test_command_counts_scenarios(capsys):
    code, out, _ = run(capsys, "test", AZUL)
    assert code == 0
    last = out.strip().splitlines()[-1]
    assert last.endswith("scenarios") and " 0 failed" in last


def test_bench_prints_rates(capsys):
    code, out, _ = run(capsys, "bench", AZUL, "--games", "2", "--players", "2")
    assert code == 0 and "games/s" in out and "decisions/s" in out
