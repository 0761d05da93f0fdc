"""Text: str(x), '+' between texts, and end_game text interpolated like log."""
import pytest

from dsl.diagnostics import RulebookError
from interpreter.game import Rulebook

BOOK = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 2}}
variables:
  n: 0
actions:
  go: {do: [{set: "n += 7"}, {log: "{'total ' + str(n) + ' at ' + seat_name(player)}"}]}
flow:
  - turns: 0
    once: true
    do: [{decide: [go]}]
  - end_game: "{seat_name(1)} ends at {n} with {str(n * 2) + '!'}"
end: {score: "n"}
"""


def test_str_and_joining_texts_and_end_game_interpolation(rulebook):
    rb = Rulebook.load(rulebook(BOOK))
    st = rb.new_game(2, 0)
    names = rb.layout(2).seat_names
    st.apply_action("go")
    st.apply_action("go")
    assert st.is_terminal()
    assert f"total 7 at {names[0]}" in st.log
    assert f"total 14 at {names[1]}" in st.log
    assert f"game ends: {names[1]} ends at 14 with 28!" in st.log
    assert rb.evaluate(st, "str(n) + str(true) + str(-3)") == "14true-3"


@pytest.mark.parametrize("bad, message", [
    ("'a' + 1", "'+' joins two texts"),
    ("1 + 'a'", "'+' joins two texts"),
])
def test_text_plus_a_number_is_a_type_error(rulebook, bad, message):
    with pytest.raises(RulebookError) as err:
        Rulebook.load(rulebook(BOOK.replace("str(n * 2) + '!'", bad)))
    assert "RW102" in str(err.value) and message in str(err.value)


def test_a_misspelled_name_in_end_game_text_is_reported(rulebook):
    with pytest.raises(RulebookError) as err:
        Rulebook.load(rulebook(BOOK.replace("{n} with", "{nn} with")))
    assert "RW101" in str(err.value) and ":11:" in str(err.value)
