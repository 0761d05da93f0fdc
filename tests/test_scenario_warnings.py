"""Scenario `start` options that change nothing are warned about (RW301);
the scenario still passes."""
import pytest
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


@pytest.mark.slow
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


def test_a_zone_the_start_empties_without_listing_it_is_named(tmp_path):
    # Azul's round preparation gives seat 1 the start tile, which lies in the centre: without
    # `centre: []` the start empties the centre silently; RW302 says so, at the key that took it
    text = (AZUL / "scenarios" / "05_round_preparation.yaml").read_text()
    assert '    centre: []' in text or '"centre": []' in text
    lines = [line for line in text.splitlines() if '"centre": []' not in line and "    centre: []" not in line]
    result = run(AZUL, "\n".join(lines) + "\n", tmp_path)
    assert result.ok
    found = [d for d in result.messages if d.code == "RW302"]
    assert len(found) == 1 and found[0].severity == "warning" and found[0].pos.line == 13
    assert "took every component of centre (1), which it does not list" in found[0].message
    listed = run(AZUL, text, tmp_path)          # listed: nothing to say
    assert listed.ok and not [d for d in listed.messages if d.code == "RW302"]


def test_taking_from_a_supply_that_keeps_some_is_not_warned_about(tmp_path):
    # Azul's first scenario fills factories from the bag, which still holds tiles afterwards
    result = run(AZUL, (AZUL / "scenarios" / "01_take_factory_with_joker.yaml").read_text(), tmp_path)
    assert result.ok and not [d for d in result.messages if d.code == "RW302"]
