"""A component's attributes read from slots of its layout's class (run/values.py
``component_class``): the same values as its ``attrs``, for every component of every
shipped game and the test rulebooks; what the generated code reads; pickling."""
import pickle

import pytest

from conftest import ROOT, SHIPPED
from interpreter.engine.run.values import Component, attribute_slot, component_class
from interpreter.game import Rulebook


@pytest.mark.parametrize("name", SHIPPED)   # the shipped games only: a user's folder in rules/ never joins
def test_every_slot_holds_the_attribute_of_that_name(name):
    rb = Rulebook.load(ROOT / "rules" / name)
    st = rb.new_game(rb.game.min_players, 0, logging=False)
    comps = st.lay.components
    assert comps
    for c in comps:
        assert isinstance(c, Component)
        for name, value in c.attrs.items():
            assert getattr(c, attribute_slot(name)) is value, (c.label, name)
        # a declared attribute this kind lacks leaves its slot empty (an AttributeError, not None)
        for name in type(c)._attribute_names:
            if name not in c.attrs:
                with pytest.raises(AttributeError):
                    getattr(c, attribute_slot(name))


def test_generated_code_reads_the_slot_and_gives_the_same_answers():
    rb = Rulebook.load(ROOT / "rules" / "azul_summer_pavilion")
    st = rb.new_game(4, 3, logging=False)
    for zone in ("bag", "supply", "factory[1]", "centre"):
        inside = st.z[rb.evaluate(st, zone).id]
        for col in {c.attrs["color"] for c in inside if "color" in c.attrs}:
            want = sum(1 for c in inside if c.attrs.get("color") == col)
            assert rb.evaluate(st, f"count({zone}, t -> t.kind == tile and t.color == {col})") == want
            assert want > 0


def test_classes_are_made_once_per_set_of_names_and_components_pickle():
    a = component_class(["color", "size", "color"])
    assert component_class(("size", "color")) is a
    assert a.__slots__ == ("a_color", "a_size")
    c = a(7, "tile", {"color": "red", "size": 2}, "red tile")
    back = pickle.loads(pickle.dumps(c))
    assert type(back) is a and back.a_color == "red" and back.a_size == 2
    assert (back.id, back.kind, dict(back.attrs), back.label) == (7, "tile", {"color": "red", "size": 2}, "red tile")


def test_a_name_that_is_no_python_identifier_stays_in_attrs_only():
    assert attribute_slot("color") == "a_color"
    assert attribute_slot("two words") is None
    cls = component_class(["two words", "ok"])
    assert cls.__slots__ == ("a_ok",)
    c = cls(0, "k", {"two words": 1, "ok": 2}, "k")
    assert c.attrs["two words"] == 1 and c.a_ok == 2


def test_an_action_id_shows_a_layout_component_by_its_label():
    from interpreter.engine.run.frames import id_part
    c = component_class(["color"])(3, "tile", {"color": "red"}, "red tile")
    assert id_part(c) == "red tile"
