"""Dice: `random: "r in 1..6"` is a die; a scenario's `draws:` rigs its
faces like bag draws, and for environments every roll is a chance node with
six equally likely outcomes.  Rulebook: tests/rulebooks/dice (Pig)."""
from pathlib import Path

from interpreter.game import Rulebook
from interpreter.tools.scenarios import ScenarioRunner, find_scenarios

BOOK = Path(__file__).parent / "rulebooks" / "dice"


def test_the_rigged_scenario_passes():
    cases = find_scenarios([BOOK])
    assert cases
    for folder, file in cases:
        result = ScenarioRunner(Rulebook.load(folder), file).run()
        assert result.ok, "\n".join(d.format() for d in result.messages)


def test_a_face_the_die_does_not_have_is_a_located_error(tmp_path):
    text = (BOOK / "scenarios" / "01_rigged_dice.yaml").read_text().replace("draws: [4, 5, 6, 1]", "draws: [7]")
    file = tmp_path / "bad.yaml"
    file.write_text(text)
    result = ScenarioRunner(Rulebook.load(BOOK), file).run()
    assert not result.ok
    found = "\n".join(d.format() for d in result.messages)
    assert "'7'" in found and "1, 2, 3, 4, 5, 6" in found and "game.yaml:29" in found, found


def test_every_roll_is_a_chance_node_with_six_faces():
    cs = Rulebook.load(BOOK).new_chance_game(2)
    while cs.is_chance_node():                 # nothing random before the first decision
        cs.apply_outcome(cs.chance_outcomes()[0][0])
    cs.apply_action("roll")
    assert cs.is_chance_node()
    outcomes = cs.chance_outcomes()
    assert len(outcomes) == 6 and all(abs(p - 1 / 6) < 1e-12 for _, p in outcomes)
