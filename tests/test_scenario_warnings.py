"""Scenario `start` options that change nothing are warned about (RW301);
the scenario still passes."""
from conftest import RULES

from interpreter.game import Rulebook
from interpreter.tools.scenarios import ScenarioRunner

AZUL = RULES / "azul_summer_pavilion"


def run(book, text, tmp_path):
    file = tmp_path / "s.yaml"
    file.write_text(text)
    return ScenarioRunner(Rulebook.load(book), file).run()


def test_a_local_the_flow_does_not_have(tmp_path):
    # at a phase, a local the flow does not have is skipped (without `at:` it is an error)
    text = (AZUL / "scenarios" / "01_take_factory_with_joker.yaml").read_text().replace(
        "  at: take\n", "  at: take\n  locals: {zzz: 3}\n")
    result = run(AZUL, text, tmp_path)
    assert result.ok
    found = [d for d in result.messages if d.code == "RW301"]
    assert len(found) == 1 and "no local 'zzz'" in found[0].message and found[0].pos.line == 13


def test_a_player_that_no_turns_loop_uses(tmp_path):
    # Azul's `take` phase holds its own `turns: start_player` loop, so start.player is ignored
    text = (AZUL / "scenarios" / "01_take_factory_with_joker.yaml").read_text().replace(
        "  at: take\n", "  at: take\n  player: 1\n")
    assert "player: 1" in text
    result = run(AZUL, text, tmp_path)
    assert result.ok
    found = [d for d in result.messages if d.code == "RW301"]
    assert len(found) == 1 and "'player'" in found[0].message


def test_the_shipped_scenarios_have_no_warnings():
    from interpreter.tools.scenarios import find_scenarios
    books = {}
    for folder, file in find_scenarios([AZUL]):
        rb = books.setdefault(folder, Rulebook.load(folder))
        assert ScenarioRunner(rb, file).run().messages == []


def test_a_set_of_a_variable_that_has_no_such_index_is_a_located_failure(tmp_path):
    # `score` is indexed by the seats: score[7] of a 2-player game does not exist; the
    # scenario fails where it says so (it used to escape as a KeyError from generated code)
    text = (AZUL / "scenarios" / "01_take_factory_with_joker.yaml").read_text().replace(
        "  set: {round: 1, joker: purple, start_player: 0}\n",
        "  set: {round: 1, joker: purple, start_player: 0, \"score[7]\": 3}\n")
    assert "score[7]" in text
    result = run(AZUL, text, tmp_path)
    assert not result.ok
    [failure] = [d for d in result.messages if d.severity == "error"]
    assert failure.message == "there is no score[7]" and failure.pos.line == 13
