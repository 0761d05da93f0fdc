"""Scenarios state what a seat sees (`sees:`), what it knows (`knows:`) and the game-over
breakdown (`score_parts`); a wrong statement fails at its place in the file (docs/scenarios.md)."""
from conftest import ROOT

from interpreter.game import Rulebook
from interpreter.tools.scenarios import ScenarioRunner

BOOKS = ROOT / "tests" / "rulebooks"

PEEK = """\
scenario: "Peek: a hand is seen by its owner; a peek shows it to the peeker alone"
source: >
  By hand from tests/rulebooks/knowledge: Player 1 holds a 2, Player 2 a 5, the deck (top last)
  1, 6. Each sees its own card and only a count of the other's; nobody sees the deck (2 cards).
  Player 1 peeks at Player 2's card: now Player 1 sees the 5 too; Player 2 still sees 1 card of
  Player 1's hand, not which. Both are told the peek (it has no secret parameter).
players: 2
seed: 1
start:
  zones:
    "hand[0]": ["2"]
    "hand[1]": ["5"]
    deck: ["1", "6"]
steps:
  - sees:
      0: {"hand[0]": ["2"], "hand[1]": 1, deck: 2}
      1: {"hand[1]": ["5"], "hand[0]": hidden}
      each: {deck: hidden, discard: shown}
    knows:
      each: {"points[0]": 0, "points[1]": 0, decisions: []}
  - play: "peek(target=1)"
  - sees:
      0: {"hand[1]": ["5"]}
      1: {"hand[0]": 1}
    knows:
      each: {decisions: ["0: peek(target=1)"]}
"""


def run(folder, text, tmp_path, name="s.yaml"):
    file = tmp_path / name
    file.write_text(text)
    return ScenarioRunner(Rulebook.load(BOOKS / folder), file).run()


def failure(result):
    assert not result.ok
    d = result.messages[0]
    return d.pos.line, d.pos.col, d.message


def test_sees_and_knows_hold(tmp_path):
    result = run("knowledge", PEEK, tmp_path)
    assert result.ok, [d.format() for d in result.messages]


def test_a_zone_seen_but_said_hidden_fails_at_its_place(tmp_path):
    text = PEEK.replace('0: {"hand[1]": ["5"]}', '0: {"hand[1]": hidden}')
    line, col, message = failure(run("knowledge", text, tmp_path))
    assert (line, col) == (23, 11)
    assert message == "seat 0, hand[1]: expected only a count, but it sees [5]"


def test_a_count_said_seen_fails(tmp_path):
    text = PEEK.replace('1: {"hand[0]": 1}', '1: {"hand[0]": ["2"]}')
    line, _, message = failure(run("knowledge", text, tmp_path))
    assert line == 24 and message == "seat 1, hand[0]: expected [2], but it sees only a count (1)"


def test_a_wrong_count_and_wrong_labels_fail(tmp_path):
    line, _, message = failure(run("knowledge", PEEK.replace("deck: 2}", "deck: 3}"), tmp_path))
    assert line == 16 and message == "seat 0, deck: expected a count of 3, it sees 2"
    line, _, message = failure(run("knowledge", PEEK.replace('0: {"hand[0]": ["2"]', '0: {"hand[0]": ["3"]'),
                                    tmp_path))
    assert line == 16 and message == "seat 0, hand[0]: expected [3], it sees [2]"


def test_a_decision_told_differently_fails(tmp_path):
    text = PEEK.replace('each: {decisions: ["0: peek(target=1)"]}', 'each: {decisions: ["0: peek(…)"]}')
    line, _, message = failure(run("knowledge", text, tmp_path))
    assert line == 26 and "is told the decisions ['0: peek(target=1)'], expected ['0: peek(…)']" in message


def test_a_variable_value_and_hidden_variable(tmp_path):
    line, _, message = failure(run("knowledge", PEEK.replace('"points[0]": 0,', '"points[0]": 1,'), tmp_path))
    assert line == 20 and message == "seat 0 is shown points[0] = 0, expected 1"
    line, _, message = failure(run("knowledge", PEEK.replace('"points[0]": 0,', '"points[0]": hidden,'), tmp_path))
    assert line == 20 and message == "seat 0 is shown points[0] (0), expected it hidden"


def test_bad_entries_are_located_errors(tmp_path):
    # a seat the game does not have, a zone or variable it does not have, a value of no form
    cases = [
        (PEEK.replace("      each: {deck: hidden", "      5: {deck: hidden"), 18, "'5' is not a seat of this game"),
        (PEEK.replace("each: {deck: hidden,", "each: {dek: hidden,"), 18, "unknown zone 'dek'"),
        (PEEK.replace('each: {"points[0]": 0,', 'each: {"pints[0]": 0,'), 20, "unknown variable 'pints'"),
        (PEEK.replace("deck: 2}", "deck: visible}"), 16, "deck"),
    ]
    for text, line, words in cases:
        result = run("knowledge", text, tmp_path)
        assert not result.ok
        d = result.messages[0]
        assert d.pos.line == line and words in d.message, d.format()
        assert d.format().startswith(f"{tmp_path / 's.yaml'}:{line}:")


HINT = """\
scenario: "A colour hint tells the target which of its cards are red and which are not"
source: >
  By hand from tests/rulebooks/hints: Player 2 holds blue2, red3, blue1 (bottom first), which
  only the others see (visible: viewer != p). Player 1 hints red to Player 2: card 2 (red3) is
  red, cards 1 and 3 (blue2, blue1) are not. Player 1 is told nothing (it sees the hand).
players: 2
seed: 1
start:
  zones:
    "hand[0]": [red1, blue1, red2]
    "hand[1]": [blue2, red3, blue1]
    deck: [red1, blue3, blue2, red2, blue1, red1]
steps:
  - play: "hint_color(target=1,color=red)"
  - knows:
      1: {facts: ["hand[1] 1: color != red", "hand[1] 2: color == red", "hand[1] 3: color != red"], hints: 2}
      0: {facts: []}
    sees:
      1: {"hand[1]": 3, "hand[0]": [blue1, red1, red2]}
"""


def test_knows_the_facts_told(tmp_path):
    result = run("hints", HINT, tmp_path)
    assert result.ok, [d.format() for d in result.messages]
    text = HINT.replace('"hand[1] 1: color != red", ', "")
    line, _, message = failure(run("hints", text, tmp_path))
    assert line == 16 and "seat 1 knows facts" in message


PARTS = """\
scenario: "The breakdown by part at the end"
source: >
  By hand, from tests/rulebooks/score_parts: seat 0 takes 3 then 2 (5 taken: bonus 4, 5 + 4 = 9);
  seat 1 takes 1 then 3 (4 taken, no bonus). Parts: seat 0 bonus 4, taking 5; seat 1 bonus 0, taking 4.
players: 2
seed: 1
steps:
  - play: "take(n=3)"
  - play: "take(n=1)"
  - play: "take(n=2)"
  - play: "take(n=3)"
expect:
  scores: [9, 4]
  score_parts: [{bonus: 4, taking: 5}, {bonus: 0, taking: 4}]
"""


def test_score_parts(tmp_path):
    assert run("score_parts", PARTS, tmp_path).ok
    assert run("score_parts", PARTS.replace("[{bonus: 4, taking: 5}", "[{bonus: 4}"), tmp_path).ok   # some parts
    line, col, message = failure(run("score_parts", PARTS.replace("{bonus: 0, taking: 4}", "{bonus: 4, taking: 0}"),
                                     tmp_path))
    assert (line, col) == (14, 3) and message == "score_parts: seat 1: bonus: expected 4, got 0"
    line, _, message = failure(run("score_parts", PARTS.replace("{bonus: 0, taking: 4}", "{bonus: 0, tkaing: 4}"),
                                   tmp_path))
    assert line == 14 and "no score part 'tkaing' (its parts: bonus, taking)" in message
    line, _, message = failure(run("score_parts", PARTS.replace(", {bonus: 0, taking: 4}]", "]"), tmp_path))
    assert line == 14 and "one mapping of part to points per seat (2 seats)" in message


def test_the_format_is_in_the_schema(tmp_path):
    from interpreter.tools.scenarios import check_scenario
    file = tmp_path / "s.yaml"
    file.write_text(PEEK.replace("deck: 2}", "deck: [1, {a: 2}]}"))
    found = check_scenario(None, file)
    assert found and found[0].pos.line == 16
