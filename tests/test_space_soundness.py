"""The fixed action space is sound: every id that is ever legal lies in it.

Generated rulebooks (hypothesis) declare variables of the kinds a filter reads —
seats that may be nobody (`none`), booleans, numbers with a range, indexed or not —
and actions whose parameter domains (plain or sets) filter over them (`claim[k] == none`,
`not (x != none)`, `x == none or ...`, ...).  Random play changes the variables
through other actions; at every decision each legal id must be in the space.
The shipped games are played the same way in tests/test_spaces.py; here the
test rulebooks of tests/rulebooks are too."""
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from interpreter.game import Rulebook

RULEBOOKS = Path(__file__).parent / "rulebooks"
#: filtered actions per generated rulebook (each one domain under test)
PER_BOOK = 10

# --- conditions over the state and a loop variable (k: 1..3, or p: a seat) -------------
K_ATOMS = ["claim[k] == none", "claim[k] != none", "claim[k] == player", "claim[k] != player",
           "claim[k] == 0", "claim[k] == 1", "holder == none", "holder != none", "holder == player",
           "flag", "flag == none", "flag != true", "n > 1", "n == k", "n + k <= 3", "cnt[k] >= 1",
           "cnt[k] == n", "mark[k]", "mark[k] == none", "owner == none", "owner == k"]
P_ATOMS = ["claim[1] == p", "claim[2] == none", "holder == p", "holder == none", "holder != p",
           "p == player", "flag", "n == p", "claim[k0] == p", "claim[max(n, 1)] == none"]


def conditions(atoms):
    leaf = st.sampled_from(atoms)
    return st.recursive(leaf, lambda inner: st.one_of(
        inner.map(lambda a: f"not ({a})"),
        st.tuples(inner, inner).map(lambda ab: f"({ab[0]}) and ({ab[1]})"),
        st.tuples(inner, inner).map(lambda ab: f"({ab[0]}) or ({ab[1]})"),
        st.tuples(inner, inner, inner).map(lambda t: f"(({t[0]}) if ({t[1]}) else ({t[2]}))")), max_leaves=4)


def domains():
    """A parameter domain (possibly two parameters, the second depending on the first)."""
    k_comp = conditions(K_ATOMS).map(lambda c: {"k": f"[k for k in 1..3 if {c}]"})
    p_comp = conditions(P_ATOMS).map(lambda c: {"p": f"[p for p in players if {c.replace('k0', '1')}]"})
    plain = st.sampled_from([{"v": "1..n"}, {"v": "0..cnt[2]"}, {"v": "[holder]"}, {"v": "[n, owner]"},
                             {"v": "[claim[k] for k in 1..3]"}, {"v": "[k for k in 1..3 if claim[k] == none]"},
                             {"v": "0..sum(1..3, k -> cnt[k])"}, {"v": "1..sum(players, p -> cnt[2] - 1)"},
                             {"v": "[sum(1..n, k -> cnt[k])]"}])
    two = st.tuples(conditions(K_ATOMS), conditions(P_ATOMS)).map(
        lambda cc: {"k": f"[k for k in 1..3 if {cc[0]}]",
                    "p": f"[p for p in players if {cc[1].replace('k0', 'k')}]"})
    sets = st.tuples(conditions(K_ATOMS), st.sampled_from(["2", '"1..2"', '"0..3"'])).map(
        lambda cs: {"s": ("set", f"[k for k in 1..3 if {cs[0]}]", cs[1])})
    return st.one_of(k_comp, p_comp, plain, two, sets)


HEAD = """\
regelwerk: 1
game: {name: Bounds, players: {min: 2, max: 3}}
variables:
  claim: {index: {k: "1..3"}, type: player, init: %(claim)s}
  mark: {index: {k: "1..3"}, type: bool, init: %(mark)s}
  cnt: {index: {k: "1..3"}, init: 0, min: 0, max: 3}
  holder: {type: player, init: %(holder)s}
  owner: {type: int, init: none, min: 1, max: 3}
  flag: {type: bool, init: %(flag)s}
  n: {init: 1, min: 0, max: 3}
actions:
  claim_it: {params: {k: "1..3", q: players}, do: [{set: "claim[k] = q"}]}
  free_it: {params: {k: "1..3"}, do: [{set: "claim[k] = none"}]}
  hold: {params: {q: players}, do: [{set: "holder = q"}]}
  drop: {do: [{set: "holder = none"}]}
  flag_on: {do: [{set: "flag = true"}]}
  flag_off: {do: [{set: "flag = none if n == 2 else false"}]}
  mark_it: {params: {k: "1..3"}, do: [{set: "mark[k] = none if mark[k] == true else true"}]}
  count_up: {params: {k: "1..3", d: "[-1, 1]"}, do: [{set: "cnt[k] += d"}]}
  set_n: {params: {v: "0..3"}, do: [{set: "n = v"}]}
  own: {params: {v: "1..3"}, do: [{set: "owner = v"}]}
"""


def rulebook_text(doms, inits) -> str:
    lines = [HEAD % inits]
    for i, dom in enumerate(doms):
        params = ", ".join(f'{name}: {{set: "{text[1]}", size: {text[2]}}}' if isinstance(text, tuple)
                           else f'{name}: "{text}"' for name, text in dom.items())
        lines.append(f"  f{i}: {{params: {{{params}}}, do: []}}\n")
    offered = ", ".join(["claim_it", "free_it", "hold", "drop", "flag_on", "flag_off", "mark_it", "count_up",
                         "set_n", "own"] + [f"f{i}" for i in range(len(doms))])
    lines.append(f"""flow:
  - repeat: 12
    do:
      - turns: 0
        once: true
        do: [{{decide: [{offered}]}}]
end: {{score: "n"}}
""")
    return "".join(lines)


INITS = st.fixed_dictionaries({"claim": st.sampled_from(["none", "0", "1"]),
                               "mark": st.sampled_from(["none", "true", "false"]),
                               "holder": st.sampled_from(["none", "0", "1"]),
                               "flag": st.sampled_from(["none", "true", "false"])})


def legal_within_space(folder: Path, seed: int, games: int = 2) -> None:
    rb = Rulebook.load(folder)
    for players in range(rb.game.min_players, rb.game.max_players + 1):
        from interpreter.game import space_of
        space = space_of(rb.game, rb.layout(players))
        unbounded = {id(u[0]) for u in space.unbounded}
        rng = random.Random(seed)
        for g in range(games):
            state = rb.new_game(players, seed + g, logging=False)
            n = 0
            while not state.is_terminal() and n < 2000:
                legal = state.legal_actions()
                outside = [a for a in legal if a not in space.index
                           and id(state.pending.by_id[a].action) not in unbounded]
                assert not outside, f"{folder}: {players} players: legal {outside} not in the space"
                # prefer the filtered actions now and then, so that their ids are reached
                state.apply_action(rng.choice(legal))
                n += 1


def check_generated(tmp_path_factory, doms, inits, seed):
    folder = tmp_path_factory.mktemp("bounds")
    (folder / "game.yaml").write_text(rulebook_text(doms, inits), encoding="utf-8")
    legal_within_space(folder, seed)


GENERATED = given(doms=st.lists(domains(), min_size=PER_BOOK, max_size=PER_BOOK), inits=INITS,
                  seed=st.integers(0, 10_000))


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@GENERATED
def test_generated_filters_stay_in_the_space(tmp_path_factory, doms, inits, seed):
    check_generated(tmp_path_factory, doms, inits, seed)


@pytest.mark.slow            # at least 2,000 generated domains (10 per rulebook): ~1 min
def test_two_thousand_generated_filters_stay_in_the_space(tmp_path_factory):
    checked = []

    @settings(max_examples=240, deadline=None, suppress_health_check=list(HealthCheck))
    @GENERATED
    def run(doms, inits, seed):
        check_generated(tmp_path_factory, doms, inits, seed)
        checked.append(len(doms))

    run()
    assert sum(checked) >= 2000, sum(checked)


@pytest.mark.parametrize("folder", sorted(p.parent for p in RULEBOOKS.glob("*/game.yaml")), ids=lambda p: p.name)
def test_random_games_of_the_test_rulebooks_stay_in_the_space(folder):
    legal_within_space(folder, 7, games=3)


BOUND_FILTER = """\
regelwerk: 1
game: {name: "Bound filter", players: {min: 2, max: 2}}
variables:
  claim: {index: {k: "1..3"}, type: player, init: none}
actions:
  take:
    params: {k: "[k for k in 1..3 if %s]"}
    do: [{set: "claim[k] = player"}]
flow:
  - turns: 0
    while: "any(1..3, k -> claim[k] == none)"
    do: [{decide: [take], otherwise: [{fail: "a free k exists while the loop runs"}]}]
end:
  score: "count(1..3, k -> claim[k] == p)"
"""


@pytest.mark.parametrize("cond", ["claim[k] == none", "not (claim[k] != none)", "claim[k] == none or k > 5",
                                  "none == claim[k]"])
def test_a_filter_on_none_keeps_every_id(rulebook, cond):
    # issue 27's "Bound filter": every k is free at the start, so take(k=1..3) are all legal then
    from interpreter.game import check_rulebook
    folder = rulebook(BOUND_FILTER % cond)
    report, _ = check_rulebook(folder)
    assert not report.has_errors and report.items == []
    rb = Rulebook.load(folder)
    assert rb.action_space(2).ids == ("take(k=1)", "take(k=2)", "take(k=3)")
    st_ = rb.new_game(2, 1)
    assert sorted(st_.legal_actions()) == ["take(k=1)", "take(k=2)", "take(k=3)"]
    assert st_.legal_mask() == [1, 1, 1]
