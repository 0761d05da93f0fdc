"""Scenario hygiene (issue 32): a misspelt action id in a scenario is a located error
(RW320) before anything runs; `regelwerk validate` checks a rulebook's scenarios and
says what a scenario file is; `regelwerk test` reports a broken rulebook's errors once."""
import shutil

from conftest import RULES

from interpreter.cli import main
from interpreter.game import Rulebook
from interpreter.tools.scenarios import ScenarioRunner

AZUL = RULES / "azul_summer_pavilion"
FIRST = AZUL / "scenarios" / "01_take_factory_with_joker.yaml"


def run(text, tmp_path):
    file = tmp_path / "s.yaml"
    file.write_text(text)
    return ScenarioRunner(Rulebook.load(AZUL), file).run()


def with_steps(extra: str) -> str:
    text = FIRST.read_text()
    assert "\nsteps:\n" in text
    return text.replace("\nsteps:\n", "\nsteps:\n" + extra, 1)


def test_a_misspelt_action_in_reject_is_a_located_error(tmp_path):
    # before: `reject: "take_fatcory(...)"` passed, as no such id is ever legal
    result = run(with_steps('  - reject: "take_fatcory(factory=1,color=red)"\n'), tmp_path)
    assert not result.ok
    [d] = result.messages
    assert d.code == "RW320" and d.is_error
    assert "unknown action 'take_fatcory'" in d.message and "did you mean 'take_factory'" in d.message
    lines = (tmp_path / "s.yaml").read_text().splitlines()
    assert "take_fatcory" in lines[d.pos.line - 1]


def test_an_unknown_parameter_and_every_bad_id_are_reported(tmp_path):
    result = run(with_steps('  - reject: "take_factory(factroy_no=1,color=red)"\n'
                            '  - legal_excludes: ["take_factory(factory_no=1,color=red)", "pas"]\n'), tmp_path)
    assert not result.ok
    messages = [d.message for d in result.messages]
    assert len(messages) == 2 and all(d.code == "RW320" for d in result.messages)
    assert "has no parameter 'factroy_no'" in messages[0] and "did you mean 'factory_no'" in messages[0]
    assert "unknown action 'pas'" in messages[1]


def test_validate_checks_a_rulebooks_scenarios_and_names_a_scenario_file(tmp_path, capsys):
    book = tmp_path / "azul"
    shutil.copytree(AZUL, book)
    bad = book / "scenarios" / "99_bad.yaml"
    bad.write_text(with_steps('  - reject: "take_fatcory(factory=1,color=red)"\n'))
    assert main(["validate", str(book)]) == 1
    out = capsys.readouterr().out
    assert f"{bad}:" in out and "RW320" in out and "unknown action 'take_fatcory'" in out
    assert "invalid (1 error" in out and "scenarios checked" in out
    assert main(["validate", str(book / "scenarios" / FIRST.name)]) == 0
    out = capsys.readouterr().out
    assert f"a scenario of {book}" in out and "regelwerk test" in out


def test_test_reports_a_broken_rulebooks_errors_once(tmp_path, capsys):
    book = tmp_path / "azul"
    shutil.copytree(AZUL, book)
    flow = book / "flow.yaml"
    flow.write_text(flow.read_text() + "\nnot_a_section: 1\n")
    assert main(["test", str(book)]) == 1
    out = capsys.readouterr().out
    scenarios = len(list((book / "scenarios").glob("*.yaml")))
    assert out.count("unknown key 'not_a_section'") == 1
    assert out.count("has errors (above)") == scenarios - 1
    assert f"0 passed, {scenarios} failed" in out


YAK = RULES / "yak"


def run_in(book, text, tmp_path):
    file = tmp_path / "s.yaml"
    file.write_text(text)
    return ScenarioRunner(Rulebook.load(book), file).run()


REFUSED = """scenario: "Yak is for 2 to 4 players"
source: "Rulebook: set-ups for 2, 3 and 4 players only; no solo game, none for 5."
players: {n}
refused: "2 to 4 players"
"""


def test_refused_passes_only_when_setup_refuses_with_that_text(tmp_path):
    assert run_in(YAK, REFUSED.format(n=5), tmp_path).ok
    result = run_in(YAK, REFUSED.format(n=3), tmp_path)
    assert not result.ok and "should have been refused" in result.messages[0].message
    assert result.messages[0].pos.line == 4
    result = run_in(YAK, REFUSED.format(n=5).replace("2 to 4 players", "for adults"), tmp_path)
    assert not result.ok and "refused the game, but with: Yak is for 2 to 4 players, not 5" in result.messages[0].message
    result = run_in(YAK, REFUSED.format(n=5) + "steps: [{expect: {terminal: false}}]\n", tmp_path)
    assert not result.ok and "sets no game up" in result.messages[0].message


def test_a_legal_action_outside_the_action_space_fails_the_scenario(tmp_path):
    # the build's placement bounds narrowed to rows 2..: placing in row 1 is legal but not in the
    # fixed action space (RW906), which the scenario that meets the decision reports
    book = tmp_path / "yak"
    shutil.copytree(YAK, book)
    actions = book / "actions.yaml"
    text = actions.read_text()
    assert 'bounds: {r: "1..max_row"' in text
    actions.write_text(text.replace('bounds: {r: "1..max_row"', 'bounds: {r: "2..max_row"'))
    result = ScenarioRunner(Rulebook.load(book), book / "scenarios" / "43_build_crystal_counted_down.yaml").run()
    assert not result.ok
    assert "is not in the fixed action space" in result.messages[0].message
    assert "place(color=" in result.messages[0].message


def test_a_scenario_may_set_a_variable_that_may_be_hidden(rulebook, tmp_path):
    # issue 37: a scenario's `start: set:` of a hidden variable (one a `random` step draws
    # into) crashed with AttributeError in the scenario's step compiler (No Thanks!'s scenarios)
    folder = rulebook("""\
        regelwerk: 1
        game: {name: "Hidden die", players: {min: 2, max: 2}}
        variables:
          die: {index: {p: players}, init: 0, min: 0, max: 6, visible: "viewer == p"}
          guess_right: {index: {p: players}, init: false}
        actions:
          guess:
            params: {v: "1..6"}
            do: [{set: "guess_right[player] = v == die[next(player)]"}]
        flow:
          - phase: roll
            do:
              - for: "p in players"
                do:
                  - random: "r in 1..6"
                  - set: "die[p] = r"
          - phase: guessing
            do:
              - turns: 0
                once: true
                do: [{decide: [guess], otherwise: [{fail: "six guesses"}]}]
        end:
          score: "1 if guess_right[p] else 0"
        """)
    file = tmp_path / "s.yaml"
    file.write_text(
        'scenario: "Seat 0 guesses the die of seat 1 that the scenario set"\n'
        'source: "hand calculation: die[1] is set to 4, so guessing 4 is right; 3 is wrong"\n'
        "players: 2\nseed: 1\n"
        "start: {at: guessing, set: {\"die[1]\": 4}}\n"
        "steps:\n  - play: guess(v=4)\n  - expect: {\"guess_right[0]\": true, \"die[1]\": 4}\n")
    result = ScenarioRunner(Rulebook.load(folder), file).run()
    assert result.ok, "\n".join(d.format() for d in result.messages)
    file.write_text(file.read_text().replace("guess(v=4)", "guess(v=3)"))
    result = ScenarioRunner(Rulebook.load(folder), file).run()
    assert not result.ok and "guess_right[0]" in "\n".join(d.format() for d in result.messages)
