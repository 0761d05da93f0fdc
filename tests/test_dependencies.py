"""Remembered function results are forgotten by dependency (interpreter/dependencies.py):
a change forgets only the results that read what changed, and a result the state
still remembers always equals a fresh computation."""
import pytest

from interpreter.ai.bots import RandomBot
from interpreter.game import Rulebook

from conftest import RULES, SHIPPED

HEAD = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 2}}
enums:
  color: [red, blue]
components:
  chip:
    attributes: {color: color}
    items:
      - {for_each: {color: [red, blue]}, count: 3}
    label: "{color}"
    home: bag
zones:
  bag: {type: bag}
  out: {}
  side: {}
  hand: {index: {p: players}}
"""

FUNCTIONS = """\
functions:
  out_size: {value: "count(out)"}
  out_plus_one: {value: "out_size() + 1"}
  reds_in_hand: {params: {p: player}, value: "count(hand[p], c -> c.color == red)"}
  doubled: {value: "n * 2"}
  side_and_n: {value: "count(side) + n"}
  size: {params: {z: zone}, value: "count(z)"}
  reds_of: {params: {z: zone}, value: "count(z, c -> c.color == red)"}
  home_of: {params: {c: chip}, value: "zone_of(c)"}
"""


def load(rulebook, body: str):
    return Rulebook.load(rulebook(HEAD + FUNCTIONS + body))


def test_the_plan_names_for_each_zone_family_and_variable_the_functions_that_read_it(rulebook):
    rb = load(rulebook, """
variables: {n: 0}
flow: []
end: {score: "0"}
""")
    name_of = {f.slot: name for name, f in rb.game.functions.items()}
    drop = {key: {name_of[slot] for slot in slots} for key, slots in rb.game.memo_drop.items()}
    any_zone = {"home_of"}                  # where a component is: any move matters
    # a zone passed in: a move forgets the results for the zones it changed (memo_keyed), not all
    assert [(name_of[slot], positions, n) for slot, positions, n in rb.game.memo_keyed] == [("size", (0,), 1),
                                                                                        ("reds_of", (0,), 1)]
    assert drop["out"] == {"out_size", "out_plus_one"} | any_zone      # out_plus_one through out_size
    assert drop["side"] == {"side_and_n"} | any_zone
    assert drop["hand"] == {"reds_in_hand"} | any_zone
    assert drop["bag"] == any_zone
    assert drop["n"] == {"doubled", "side_and_n"}    # variables are read by name only


def test_a_change_forgets_only_the_results_that_read_what_changed(rulebook):
    rb = load(rulebook, """
variables: {n: 0, a: 0, b: 0, c: 0, d: 0, e: 0}
flow:
  - set: "a = out_size() + doubled() + size(out)"
  - {draw: 1, from: bag, to: side}
  - set: "b = out_size() + side_and_n()"
  - set: "n = 5"
  - set: "c = doubled() + side_and_n()"
  - {draw: 1, from: bag, to: out}
  - set: "d = out_plus_one() + size(out)"
  - {decide: [wait], who: 0}
actions:
  wait: {do: []}
end: {score: "0"}
""")
    st = rb.new_game(2, 1)
    v = {name: st.v[rb.game.variables[name].offset] for name in "abcd"}
    assert v["a"] == 0 + 0 + 0
    assert v["b"] == 0 + (1 + 0)             # the draw to side: side_and_n forgotten, out_size kept
    assert v["c"] == 10 + (1 + 5)            # n = 5: doubled and side_and_n forgotten
    assert v["d"] == (1 + 1) + 1             # the draw to out: out_size and out_plus_one forgotten
    # the draw to out kept what reads n and side only; out_size was computed again
    memo = {name: st.memo[f.slot] for name, f in rb.game.functions.items()}
    assert memo["doubled"] == {None: 10}
    assert memo["side_and_n"] == {None: 1 + 5}
    assert memo["out_size"] == {None: 1}


def test_a_move_forgets_the_results_of_a_function_of_a_zone_only_for_the_zones_it_changed(rulebook):
    rb = load(rulebook, """
variables: {n: 0, a: 0, b: 0}
flow:
  - set: "a = reds_of(out) + reds_of(side) + reds_of(bag)"
  - {draw: 1, from: bag, to: side}
  - set: "b = reds_of(out) + reds_of(side) + reds_of(bag)"
  - {decide: [wait], who: 0}
actions:
  wait: {do: []}
end: {score: "0"}
""")
    st = rb.new_game(2, 1)
    zones = {z.name: z for z in st.lay.zones}
    drawn_red = int(st.z[zones["side"].id][0].label == "red")
    assert st.v[rb.game.variables["a"].offset] == 0 + 0 + 3
    assert st.v[rb.game.variables["b"].offset] == 0 + drawn_red + 3 - drawn_red     # side and bag computed again
    results = st.memo[rb.game.functions["reds_of"].slot]
    assert results == {zones["out"]: 0, zones["side"]: drawn_red, zones["bag"]: 3 - drawn_red}
    st.move((st.z[zones["side"].id][0],), zones["out"], False, None)    # side -> out: out's and side's forgotten
    assert results == {zones["bag"]: 3 - drawn_red}


def test_a_function_of_two_arguments_keeps_its_results_by_the_first_then_the_second(rulebook):
    # codegen.memo_path: {p: {c: result}}, forgotten by a move into hand[p] like any result
    rb = Rulebook.load(rulebook(HEAD + """
functions:
  held: {params: {p: player, c: color}, value: "count(hand[p], t -> t.color == c)"}
variables: {a: 0, b: 0}
flow:
  - {draw: 2, from: bag, to: "hand[0]"}
  - set: "a = held(0, red) * 10 + held(0, blue) + 100 * held(1, red)"
  - {decide: [wait], who: 0}
actions:
  wait:
    do:
      - {draw: 1, from: bag, to: "hand[0]"}
      - set: "b = held(0, red) * 10 + held(0, blue)"
end: {score: "0"}
"""))
    st = rb.new_game(2, 1)
    hand = next(z for z in st.lay.zones if z.name == "hand[0]")
    reds = sum(t.label == "red" for t in st.z[hand.id])
    assert st.v[rb.game.variables["a"].offset] == reds * 10 + (2 - reds)
    slot = rb.game.functions["held"].slot
    # (asked for red, held(1, _) fills blue too: a count by a colour fills its row, rowfill.py)
    assert st.memo[slot] == {0: {"red": reds, "blue": 2 - reds}, 1: {"red": 0, "blue": 0}}
    st.apply("wait")
    reds = sum(t.label == "red" for t in st.z[hand.id])
    assert st.v[rb.game.variables["b"].offset] == reds * 10 + (3 - reds)
    assert st.memo[slot] == {0: {"red": reds, "blue": 3 - reds}}    # the draw forgot them all


def _remembered(results, nparams: int) -> list:
    """``(arguments, result)`` of every result in one function's slot of ``State.memo``: one
    argument the key, two a dictionary per value of the first of results by the second,
    more a tuple (codegen.memo_path)."""
    if not results:
        return []
    if nparams == 2:
        return [((a, b), value) for a, inner in results.items() for b, value in inner.items()]
    return [(() if nparams == 0 else (key,) if nparams == 1 else key, value) for key, value in results.items()]


@pytest.mark.parametrize("game", SHIPPED)
def test_every_remembered_result_equals_a_fresh_computation(game):
    """After every decision of random games, each result the state remembers is
    what the function gives on a copy that remembers nothing."""
    rb = Rulebook.load(RULES / game)
    funcs = {f.slot: (name, f.compiled, len(f.params)) for name, f in rb.game.functions.items()}
    checked = 0
    for seed in (1, 2):
        st = rb.new_game(3 if game != "moonlight_market" else 2, seed, logging=False)
        bots = [RandomBot(seed, s) for s in range(st.lay.num_seats)]
        while not st.is_terminal():
            st.apply_index(bots[st.current_player()].choose_index(st))
            for slot, results in enumerate(st.memo):
                name, fn, nparams = funcs[slot]
                for args, value in _remembered(results, nparams):
                    fresh = st.clone()          # a clone remembers nothing
                    assert fn(fresh, *args) == value, (game, seed, name, args)
                    checked += 1
    assert checked > 100


@pytest.mark.parametrize("game", SHIPPED)
def test_a_move_between_two_zones_forgets_what_either_makes_stale_each_once(game):
    # Layout.stale_two (moves._forget_two): the union of the two zones' stale results, no slot twice
    rb = Rulebook.load(RULES / game)
    lay = rb.new_game(3 if game != "moonlight_market" else 2, 1, logging=False).lay
    stale = lay.stale_results
    for a in lay.zones:
        for b in lay.zones:
            got = lay.stale_two[a.id][lay.zone_family_no[b.id]]
            if stale[a.id] is None or stale[b.id] is None:
                assert got is None
            else:
                assert sorted(got) == sorted(set(stale[a.id]) | set(stale[b.id])), (game, a.name, b.name)


NOT_REMEMBERED = HEAD + """\
functions:
  # asked only by open_count(p), which passes p on: asked again only while one open_count runs
  # (a lambda: not written out where it is called, calls.inlinable)
  open_at: {params: {p: player, k: int}, value: "count(hand[p], c -> c.color != none) < k and k > 0"}
  open_count: {params: {p: player}, value: "count([k for k in 1..4 if open_at(p, k)])"}
  # asked by two functions: both may ask the same question
  reds: {params: {p: player}, value: "count(hand[p], c -> c.color == red) + count(hand[p])"}
  by_reds: {params: {p: player}, value: "reds(p) * 10 + count(hand[p])"}
  by_reds_too: {params: {p: player}, value: "reds(p) * 100 + count(hand[p])"}
  # asked by a function that does not pass its parameter on
  first_seat: {params: {p: player}, value: "count(hand[p], c -> c.color == red) + count(out) * 2"}
  seat_zero: {params: {p: player}, value: "first_seat(0) + count(hand[p]) + count(out)"}
  # asked by a function that reads more (the side zone): forgotten by changes it is not
  blues: {params: {p: player}, value: "count(hand[p], c -> c.color == blue) * 3 + count(hand[p])"}
  blues_and_side: {params: {p: player}, value: "blues(p) + count(side) + count(hand[p])"}
  # asked in a step
  in_step: {params: {p: player}, value: "count(hand[p]) * 7 + count(hand[p], c -> c.color == red)"}
  wrap_step: {params: {p: player}, value: "in_step(p) + count(hand[p])"}
variables: {x: [], y: 0}
flow:
  - {draw: 2, from: bag, to: "hand[0]"}
  - set: "x = [open_count(0), open_count(1), by_reds(0), by_reds_too(0), seat_zero(1), blues_and_side(0),
                wrap_step(0)]"
  - set: "y = in_step(0)"
end: {score: "0"}
"""


def test_a_result_asked_for_only_by_one_function_for_its_own_arguments_is_not_remembered(rulebook):
    """dependencies.not_remembered: open_at's results are asked for only while open_count(p)
    computes (for p passed on, k of 1..4 once each): they are computed, not remembered — the
    values the same; every other function here keeps its results, each for its reason."""
    rb = Rulebook.load(rulebook(NOT_REMEMBERED))
    funcs = rb.game.functions
    assert [name for name, f in funcs.items() if not f.remembered] == ["open_at"]
    st = rb.new_game(2, 1)
    hand = next(z for z in st.lay.zones if z.name == "hand[0]")
    n = len(st.z[hand.id])
    reds = sum(t.label == "red" for t in st.z[hand.id])
    # open_count(0): k in 1..4 with 2 < k: 3, 4 -> 2;  open_count(1): 0 < k for all four -> 4
    # by_reds(0) = (reds + 2) * 10 + 2;  by_reds_too(0) = (reds + 2) * 100 + 2
    # seat_zero(1) = first_seat(0) + 0 + 0 = reds;  blues_and_side(0) = (2 - reds) * 3 + 2 + 0 + 2
    # wrap_step(0) = 2 * 7 + reds + 2
    assert n == 2
    assert list(rb.evaluate(st, "x")) == [2, 4, (reds + 2) * 10 + 2, (reds + 2) * 100 + 2, reds,
                                          (2 - reds) * 3 + 4, 14 + reds + 2]
    assert st.memo[funcs["open_at"].slot] is None               # computed, never kept
    assert st.memo[funcs["open_count"].slot] == {0: 2, 1: 4}    # the function asking keeps its own
    for name in ("reds", "first_seat", "blues", "in_step"):
        assert st.memo[funcs[name].slot], name
