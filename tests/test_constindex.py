"""A `for` over a constant list whose body runs only for elements holding a value runs over
those elements alone (interpreter/engine/compile/constindex.py): the same game as the plain loop."""
from __future__ import annotations

import pytest

from interpreter.ai.bots import RandomBot
from interpreter.engine.compile import constindex, control
from interpreter.engine.run.values import Record
from interpreter.game import Rulebook

HEADER = """\
regelwerk: 1
game: {name: Test, players: {min: 2, max: 4}}
constants:
  shapes:
    expr: "[{id: 1, cells: [(1, 1), (1, 2)], kind: 1}, {id: 2, cells: [(1, 2), (2, 2)], kind: 2},
            {id: 3, cells: [(2, 2), (1, 1), (1, 1)], kind: 1}]"
variables: {x: 0, seen: 0}
actions:
  pick:
    params: {n: "1..2"}
    do: [{set: "x += n"}]
flow:
  - repeat: 2
    do:
      - for: "r in 1..2"
        do:
          - for: "c in 1..2"
            do: [{call: visit, with: {r: r, c: c}}]
end: {score: "seen"}
"""

VISIT = """\
procedures:
  visit:
    params: {r: int, c: int}
    do:
      - for: "b in shapes"
        do:
          - if: "%s"
            then:
              - log: "shape {b.id}"
              - set: "seen = seen * 10 + b.id"
              - decide: [pick]
                who: 0
%s
"""


def _play(rb, seed, round_trip=False):
    st = rb.new_game(2, seed)
    bots = [RandomBot(seed, s) for s in range(2)]
    while not st.is_terminal():
        if round_trip:
            st = rb.state_from_json(st.to_json())
        st.apply_index(bots[st.current_player()].choose_index(st))
    return st.history, st.scores(), st.log


def _load(rulebook, cond, more=""):
    return Rulebook.load(rulebook(HEADER + VISIT % (cond, more)))


def _indexed(rb) -> bool:
    rb.new_game(2, 1)
    proc = rb.game.all_procs["proc:visit"]
    return any("const_index" in (e.__doc__ or "") for e in proc.entries)


def _plain(rulebook, monkeypatch, cond, more=""):
    with monkeypatch.context() as m:
        m.setattr(control, "indexed_iterable", lambda *a: None)
        rb = _load(rulebook, cond, more)
        assert not _indexed(rb)
        return rb


# (the condition, the shapes visited in one round of the four cells (1,1) (1,2) (2,1) (2,2), by hand)
CASES = [
    ("(r, c) in b.cells and x >= 0", [1, 3, 1, 2, 2, 3]),        # shape 3 holds (1, 1) twice: once
    ("(r, c) in b.cells", [1, 3, 1, 2, 2, 3]),
    ("b.kind == c", [1, 3, 2, 1, 3, 2]),
    ("r == b.kind and c != 2", [1, 3, 2]),
]


@pytest.mark.parametrize("cond,visited", CASES)
def test_an_indexed_loop_plays_the_same_game_as_the_plain_one(rulebook, monkeypatch, cond, visited):
    rb = _load(rulebook, cond)
    assert _indexed(rb)
    plain = _plain(rulebook, monkeypatch, cond)
    for seed in (1, 2, 3):
        got = _play(rb, seed)
        assert got == _play(plain, seed)
        assert got[2] == [f"shape {i}" for i in visited * 2]
        assert got[1][0] == int("".join(str(i) for i in visited * 2))
        assert _play(rb, seed, round_trip=True)[:2] == got[:2]     # stopped and resumed inside the loop


@pytest.mark.parametrize("cond,more", [
    ("(r, c) in b.cells", "              - set: \"r = 2\""),  # the value looked for changes
    ("(r, c) in b.cells or x > 100", ""),                                # not a test every round passes through
    ("x >= 0 and (r, c) in b.cells", ""),                                # not the first test
    ("(r, seen) in b.cells", ""),                                        # a variable: the body changes it
    ("(r, b.kind) in b.cells", ""),                                      # reads the element
])
def test_a_loop_that_cannot_be_indexed_is_left_alone(rulebook, monkeypatch, cond, more):
    rb = _load(rulebook, cond, more)
    assert not _indexed(rb)
    plain = _plain(rulebook, monkeypatch, cond, more)
    assert _play(rb, 1) == _play(plain, 1)


def test_an_if_with_an_else_is_left_alone(rulebook):
    rb = Rulebook.load(rulebook(HEADER + (VISIT % ("(r, c) in b.cells", "")).rstrip("\n")
                                + "\n            else: [{set: \"x += 1\"}]\n"))
    assert not _indexed(rb)


def test_items_with_keeps_the_order_and_falls_back_when_it_cannot_tell():
    a = Record({"cells": ((1, 1), (1, 2)), "kind": 1, "name": "ab"})
    b = Record({"cells": [(1, 2)], "kind": 2, "name": "b"})
    xs = (a, b)
    ix: dict = {}
    assert constindex.items_with(ix, xs, "cells", True, (1, 2)) == (a, b)
    assert constindex.items_with(ix, xs, "cells", True, (1, 1)) == (a,)
    assert constindex.items_with(ix, xs, "cells", True, (9, 9)) == ()
    assert constindex.items_with(ix, xs, "kind", False, 2) == (b,)
    assert constindex.items_with(ix, xs, "cells", True, [1, 2]) is xs      # cannot be hashed
    assert constindex.items_with(ix, xs, "name", True, "a") is xs          # a string: substrings
    assert constindex.items_with(ix, xs, "other", False, 1) is xs          # no such field
    assert constindex.items_with(ix, (a, 5), "kind", False, 1) == (a, 5)   # not a record
    assert constindex.items_with(ix, (Record({"k": [1]}),), "k", False, 1) == (Record({"k": [1]}),)
