"""The fixed action space of a layout (interpreter/spaces.py): every id that
can ever be legal, in a stable order, with a mask per state."""
import random

import pytest

from conftest import RULES
from interpreter.game import Rulebook, check_rulebook

HEAD = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 3}}
"""

GAMES = {"azul_summer_pavilion": (2, 3, 4), "iquazu": (2, 3, 4), "moonlight_market": (1, 2, 3, 4, 5),
         "yak": (2, 3, 4)}


def test_parameter_domains_are_bounded_from_their_expressions(rulebook):
    # n in 1..3; k in 0..n (a triangle: 3 + 4 + 2 ... see below); c an enum; p a seat
    rb = Rulebook.load(rulebook(HEAD + """
enums:
  color: [red, blue]
constants:
  top: 3
variables:
  level: {init: 0, min: 0, max: 2}
actions:
  take:
    params: {n: "1..top", k: "[x for x in 0..n if x != 1]"}
    do: []
  paint:
    params: {c: "[c for c in color if c != blue]", p: "[q for q in players if q != player]"}
    do: []
  climb:
    params: {to: "level + 1..level + 2"}
    do: []
  pass: {do: []}
flow:
  - decide: [take, paint, climb, pass]
end: {score: "0"}
"""))
    space = rb.action_space(2)
    # take: n=1 -> k in {0}; n=2 -> {0,2}; n=3 -> {0,2,3}: 6 ids, never k > n
    takes = [i for i in space.ids if i.startswith("take")]
    assert takes == ["take(n=1,k=0)", "take(n=2,k=0)", "take(n=2,k=2)", "take(n=3,k=0)", "take(n=3,k=2)",
                     "take(n=3,k=3)"]
    # paint: the comprehension keeps red only; p any seat of 2
    assert [i for i in space.ids if i.startswith("paint")] == ["paint(c=red,p=0)", "paint(c=red,p=1)"]
    # climb: level is 0..2, so to is 1..4
    assert [i for i in space.ids if i.startswith("climb")] == [f"climb(to={t})" for t in (1, 2, 3, 4)]
    assert "pass" in space.ids and len(space) == 13
    assert space.action_id(space.action_index("take(n=2,k=2)")) == "take(n=2,k=2)"
    assert rb.action_space(3) is rb.action_space(3)           # made once per layout
    assert len([i for i in rb.action_space(3).ids if i.startswith("paint")]) == 3


def test_an_unbounded_parameter_is_reported_and_bounds_fix_it(rulebook):
    body = """
variables:
  stack: 0
actions:
  push:
    params: {n: "1..stack + 1"}
    {bounds}do: [{set: "stack += n"}]
flow:
  - repeat: 3
    do: [{decide: [push], who: 0}]
end: {score: "stack"}
"""
    report, _ = check_rulebook(rulebook(HEAD + body.replace("{bounds}", "")))
    found = [d for d in report.items if d.code == "RW240"]
    assert len(found) == 1 and "'n'" in found[0].message and found[0].pos.line == 8   # the params line
    rb = Rulebook.load(rulebook(HEAD + body.replace("{bounds}", 'bounds: {n: "1..8"}\n    ')))
    report, _ = check_rulebook(rb.path)
    assert not [d for d in report.items if d.code == "RW240"]
    assert rb.action_space(2).ids == tuple(f"push(n={n})" for n in range(1, 9))
    # the stack grows 1, 2, 4: push(n=4) would be legal in the third decision, inside 1..8
    st = rb.new_game(2, 1)
    for expect in ([1], [1, 2], [1, 2, 3, 4]):
        mask = st.legal_mask()
        assert [n for n in range(1, 9) if mask[n - 1]] == expect
        st.apply_action(st.legal_actions()[-1])


def test_a_bound_naming_no_parameter_is_an_error(rulebook):
    report, game = check_rulebook(rulebook(HEAD + """
actions:
  push:
    params: {n: "1..3"}
    bounds: {m: "1..3"}
    do: []
flow: [{decide: [push]}]
end: {score: "0"}
"""))
    assert game is None and any("no parameter 'm'" in d.message for d in report.items)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_legal_id_of_random_games_lies_in_the_space(game):
    rb = Rulebook.load(RULES / game)
    for players in GAMES[game]:
        space = rb.action_space(players)
        assert space.unbounded == []
        rng = random.Random(players)
        for seed in (1,):
            st = rb.new_game(players, seed, logging=False)
            while not st.is_terminal():
                legal = st.legal_actions()
                mask = st.legal_mask()
                assert sum(mask) == len(legal)
                assert [space.action_id(i) for i, m in enumerate(mask) if m] == sorted(legal, key=space.action_index)
                # the same indices without writing ids (what the AI environments use), in the options' order
                assert space.indices_of(st.pending) == [space.index[a] for a in legal]
                st.apply_action(rng.choice(legal))


@pytest.mark.parametrize("book", ["gem_guild", "patch_quilt", "domino_kingdom", "sealed_offers", "cups"])
def test_indices_without_ids_are_the_indices_of_the_ids(book):
    """``ActionSpace.indices_of`` keys an option by its action and what its id shows of each
    value (a component's label, a set's members): the index of the id, also for sets and
    for components with the same label."""
    from pathlib import Path
    rb = Rulebook.load(Path(__file__).parent / "rulebooks" / book)
    n = rb.game.min_players
    space = rb.action_space(n)
    for seed in range(4):
        st = rb.new_game(n, seed, logging=False)
        rng = random.Random(seed)
        while not st.is_terminal():
            legal = st.legal_actions()
            assert space.indices_of(st.pending) == [space.index[a] for a in legal]
            st.apply_action(rng.choice(legal))


def test_iquazu_pays_in_a_second_decision_and_its_space_is_small():
    rb = Rulebook.load(RULES / "iquazu")
    for players in (2, 3, 4):
        space = rb.action_space(players)
        # place / place_any_color: 14 columns x 5 crevices; pay: white + blue + orange <= 10 (286)
        assert len(space) < 5000
        assert sum(1 for i in space.ids if i.startswith("place(")) == 14 * 5
        assert sum(1 for i in space.ids if i.startswith("pay(")) == 286


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_thousand_random_games_stay_in_the_space(game):
    from interpreter.tools.simulate import run_check
    counts = GAMES[game]
    per = -(-1000 // len(counts))
    # only RW906 is looked at (checked at every decision): no watch points, so no resample or leak
    # comparisons, which cost far more than the games (check's own tests run them)
    findings = run_check(RULES / game, per, counts, {}, [], check_every=10 ** 9, jobs=2)
    assert [f for f in findings if f.code == "RW906"] == []


@pytest.mark.parametrize("game", sorted(GAMES))
def test_reusing_bounded_results_changes_no_space(game, monkeypatch):
    # the bounder keeps results keyed by what they depend on (start-up speed); without that
    # memo every layout's ids, their order and what is unbounded must come out the same
    from interpreter.engine.run import spaces
    rb = Rulebook.load(RULES / game)
    fast = [spaces.action_space(rb.game, rb.layout(n)) for n in GAMES[game]]
    monkeypatch.setattr(spaces._Bounder, "MEMO", False)
    for n, got in zip(GAMES[game], fast):
        plain = spaces.action_space(rb.game, rb.layout(n))
        assert got.ids == plain.ids and got.unbounded == plain.unbounded


def test_memo_keys_tell_true_from_one():
    # 1 == True in Python: a memo keyed by plain values would mix them up
    from interpreter.engine.run.domains import AbsList, _tagged
    assert _tagged(frozenset((1,))) != _tagged(frozenset((True,)))
    assert _tagged((1, 2)) != _tagged((True, 2)) and _tagged(1.0) != _tagged(1)
    assert _tagged(AbsList(frozenset((0,)))) != _tagged(AbsList(frozenset((False,))))
    assert _tagged(frozenset(((1, "a"),))) == _tagged(frozenset(((1, "a"),)))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_validate_counts_the_ids_it_does_not_need_and_finds_the_same(game):
    from interpreter.engine.run import spaces
    rb = Rulebook.load(RULES / game)
    for n in GAMES[game]:
        assert spaces.unbounded_parameters(rb.game, rb.layout(n)) == spaces.action_space(rb.game, rb.layout(n)).unbounded


def test_counting_ids_reports_too_many_combinations_like_the_space(rulebook, monkeypatch):
    from interpreter.engine.run import spaces
    rb = Rulebook.load(rulebook(HEAD + """
actions:
  a:
    params: {x: "1..30", y: "1..30"}
    do: []
  b:
    params: {z: "1..5"}
    do: []
flow: [{decide: [a, b]}]
end: {score: "0"}
"""))
    for limit in (100, 900, 903, 910, 2000):  # a: 900 ids, b: 5 more
        monkeypatch.setattr(spaces, "MAX_IDS", limit)
        lay = rb.layout(2)
        want = spaces.action_space(rb.game, lay).unbounded
        assert spaces.unbounded_parameters(rb.game, lay) == want
        assert bool(want) == (limit < 905)


PAIR_DICE = RULES.parent / "tests" / "rulebooks" / "pair_dice"


def test_an_unbounded_parameter_is_a_warning_and_the_game_plays_and_tests():
    # params: {a: "distinct([o.a for o in options()])"} validated at 41d7473: it still does
    report, game = check_rulebook(PAIR_DICE)
    assert game is not None and not report.has_errors
    [w] = [d for d in report.items if d.code == "RW240"]
    assert w.severity == "warning" and (w.pos.line, w.pos.col) == (17, 17) and "'a'" in w.message
    from interpreter.tools.scenarios import run_scenarios
    results = run_scenarios([PAIR_DICE])
    assert results and all(r.ok for r in results)
    rb = Rulebook.load(PAIR_DICE)
    st = rb.new_game(3, seed=5)
    while not st.is_terminal():
        st.apply_action(st.legal_actions()[0])
    assert rb.info(2)["action_space_size"] is None          # no fixed action space, said so


def test_the_action_space_refuses_an_unbounded_parameter_with_the_located_rw240():
    from interpreter.game import RulebookError
    rb = Rulebook.load(PAIR_DICE)
    with pytest.raises(RulebookError) as err:
        rb.action_space(2)
    [d] = err.value.diagnostics
    assert d.code == "RW240" and (d.pos.line, d.pos.col) == (17, 17) and d.severity == "error"
    assert str(d.pos.file).endswith("pair_dice/game.yaml") and "lo..hi" in d.message


def test_a_list_valued_parameter_is_told_about_sets_not_ranges(rulebook):
    report, _ = check_rulebook(rulebook(HEAD + """
enums:
  color: [red, blue, green]
actions:
  take:
    params: {cs: "[[a, b] for a in color for b in color if a != b]"}
    do: []
flow:
  - decide: [take]
end: {score: "0"}
"""))
    [d] = [d for d in report.items if d.code == "RW240"]
    assert d.severity == "warning" and "lists" in d.message and "lo..hi" not in d.message


def test_a_sum_of_bounded_variables_is_bounded(rulebook):
    # held[p, c] is 0..2 for 3 colours: the sum over the colours is 0..6, over 1..2 at most 0..4
    rb = Rulebook.load(rulebook(HEAD + """
enums:
  color: [red, blue, green]
variables:
  held: {index: {p: players, c: color}, init: 0, min: 0, max: 2}
actions:
  pay:
    params: {n: "1..sum(color, c -> held[player, c])"}
    do: [{set: "held[player, red] = 0"}]
  pay_some:
    params: {n: "[n for n in 0..sum(1..2, k -> held[player, red] * k)]"}
    do: []
  get:
    params: {c: color}
    do: [{set: "held[player, c] += 1"}]
flow:
  - repeat: 6
    do: [{decide: [get, pay, pay_some], who: 0}]
end: {score: "0"}
"""))
    space = rb.action_space(2)
    assert [i for i in space.ids if i.startswith("pay(")] == [f"pay(n={n})" for n in range(1, 7)]
    assert [i for i in space.ids if i.startswith("pay_some(")] == [f"pay_some(n={n})" for n in range(0, 7)]
    report, _ = check_rulebook(rb.path)
    assert not [d for d in report.items if d.code == "RW240"]


def test_a_space_that_has_listed_indices_pickles_and_lists_them_again():
    """What ``indices_of`` keeps (keyed by the action objects of this process) is not pickled:
    the copy is the same space and finds the same indices afresh."""
    import pickle
    rb = Rulebook.load(RULES / "yak")
    space = rb.action_space(3)
    st = rb.new_game(3, 0, logging=False)
    first = space.indices_of(st.pending)
    assert first == [space.index[a] for a in st.legal_actions()] and space.by_values
    copy = pickle.loads(pickle.dumps(space))
    assert copy == space and copy.by_values == {} and copy.indices_of(st.pending) == first


@pytest.mark.parametrize("book", ["tests/rulebooks/sealed_bids", "tests/rulebooks/sealed_offers",
                                  "tests/rulebooks/written_orders", "rules/yak"])
def test_told_count_is_the_number_of_ids_told_so(book):
    """``ActionSpace.told_count``: how many ids of the space another seat is told as a given
    id (secret parameters as ``…``), as counting them one by one gives; not pickled."""
    import pickle
    from pathlib import Path
    from interpreter.engine.run.playerapi import public_action_id
    rb = Rulebook.load(Path(__file__).parents[1] / book)
    n = max(rb.game.min_players, 2)
    space = rb.action_space(n)
    told = [public_action_id(rb.game, i) for i in space.ids]
    assert any(t != i for t, i in zip(told, space.ids)), "the rulebook has a secret parameter"
    st = rb.new_game(n, 0, logging=False)
    for t in set(told):
        assert space.told_count(st.told_id, t) == sum(1 for i in space.ids if public_action_id(rb.game, i) == t)
    assert space.told_count(st.told_id, "no_such_action(…)") == 0
    assert pickle.loads(pickle.dumps(space)).told is None
