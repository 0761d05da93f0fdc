"""How a value is written in action ids, logs and messages (``values.format_value``): as the
language writes it (docs/language.md: ``3``, ``"text"`` without its quotes, ``true``, ``none``),
a component by its label, a tuple in parentheses and a list in brackets, the parts written the
same way and joined by commas."""
from __future__ import annotations

from pathlib import Path

from interpreter.engine.run.values import format_value
from interpreter.game import Rulebook

ROOT = Path(__file__).resolve().parents[1]


def test_plain_values_are_written_as_the_language_writes_them():
    assert format_value(3) == "3"
    assert format_value(-12) == "-12"
    assert format_value(0) == "0"
    assert format_value("text") == "text"
    assert format_value("") == ""
    assert format_value(True) == "true"          # a bool is not written as the int it equals
    assert format_value(False) == "false"
    assert format_value(None) == "none"
    assert format_value(2.5) == "2.5"


def test_components_tuples_and_lists_are_written_part_by_part():
    rb = Rulebook.load(ROOT / "tests" / "rulebooks" / "zone_order")
    st = rb.new_game(1, 0)
    card = next(c for c in st.lay.components if c.kind == "card")
    assert format_value(card) == card.label
    assert format_value((1, True, None)) == "(1,true,none)"
    assert format_value([2, "a", (card, False)]) == f"[2,a,({card.label},false)]"
    assert format_value(()) == "()" and format_value([]) == "[]"


def test_a_str_or_int_subclass_is_written_by_the_general_path():
    class Shout(str):
        def __str__(self):
            return self.upper()

    class Count(int):
        pass
    assert format_value(Shout("hey")) == "HEY"
    assert format_value(Count(4)) == "4"
