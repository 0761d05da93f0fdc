"""Explicit chance (interpreter/chance.py) and the kinds of returns."""
import random

import pytest

from conftest import ROOT, RULES
from interpreter.engine.run.chance import ChanceState
from interpreter.game import Rulebook
from interpreter.engine.run.runtime import State

HEAD = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 3}}
"""

_SEEN = []


def _recording(st: State):
    """A ``State.chance`` that draws every number from the state's own generator (the
    default mode's numbers) and writes it down."""
    def below(n):
        st.chance = None
        try:
            v = st.below(n)
        finally:
            st.chance = below
        _SEEN.append((n, v))
        return v
    return below


@pytest.mark.parametrize("game,players", [("iquazu", 2), ("moonlight_market", 3), ("yak", 2),
                                          ("azul_summer_pavilion", 2)])
def test_chance_nodes_with_the_seeded_numbers_give_the_seeded_game(game, players):
    """The chance mode changes who picks the numbers, nothing else: fed the numbers the
    seeded generator drew, it plays the seeded game decision for decision."""
    rb = Rulebook.load(RULES / game)
    from interpreter.engine.run.runtime import run
    from interpreter.engine.run.start import fresh_state, with_frames
    _SEEN.clear()
    st = with_frames(fresh_state(rb.game, rb.layout(players), 11, False))
    st.chance = _recording(st)
    run(st)
    rng = random.Random(5)
    decisions = []
    while not st.is_terminal():
        a = rng.choice(st.legal_actions())
        decisions.append(a)
        st.apply_action(a)
    numbers = [v for n, v in _SEEN if n > 1]
    cs = rb.new_chance_game(players)
    it = iter(numbers)
    moves = iter(decisions)
    while not cs.is_terminal():
        if cs.is_chance_node():
            n = len(cs.chance_outcomes())
            k = next(it)
            assert k < n
            cs.apply_outcome(k)
        else:
            cs.apply_action(next(moves))
    assert next(it, None) is None and next(moves, None) is None
    assert cs.state.history == st.history and cs.state.scores() == st.scores()
    assert cs.state.z == st.z and cs.state.v == st.v


def test_chance_outcomes_are_uniform_and_states_clone_and_pickle():
    import pickle
    rb = Rulebook.load(RULES / "yak")
    cs = rb.new_chance_game(2)
    assert cs.is_chance_node() and cs.current_player() == ChanceState.CHANCE
    outs = cs.chance_outcomes()
    assert [k for k, _ in outs] == list(range(len(outs))) and all(abs(p - 1 / len(outs)) < 1e-12 for _, p in outs)
    with pytest.raises(ValueError):
        cs.apply_outcome(len(outs))
    rng = random.Random(2)
    for _ in range(150):
        if cs.is_chance_node():
            cs.apply_outcome(rng.randrange(len(cs.chance_outcomes())))
        else:
            cs.apply_action(rng.choice(cs.legal_actions()))
    copy = pickle.loads(pickle.dumps(cs))
    twin = cs.clone()
    for other in (copy, twin):
        assert other.history == cs.history and other.is_chance_node() == cs.is_chance_node()
        assert other.legal_actions() == cs.legal_actions() and other.chance_outcomes() == cs.chance_outcomes()


def test_returns_of_every_kind(rulebook):
    rb = Rulebook.load(rulebook(HEAD + """
variables:
  pts: {index: {p: players}, init: 0}
actions:
  finish: {do: [{set: "pts[1] = 5"}, {set: "pts[2] = 5"}, {set: "pts[0] = 3"}]}
flow: [{decide: [finish], who: 0}]
end: {score: "pts[p]"}
"""))
    st = rb.new_game(3, 1)
    assert st.returns("rank") == [0, 0, 0]              # before the end: nothing
    st.apply_action("finish")
    assert st.returns() == [0, 1, 1]                    # seats 1 and 2 share the win
    assert st.returns("score") == [3.0, 5.0, 5.0]
    assert st.returns("rank") == [0.0, 1.0, 1.0]        # places 3, 1, 1 of 3
    z = st.returns("zero_sum")                          # shares 0, 1/2, 1/2 minus 1/3 each
    assert [round(x, 6) for x in z] == [round(-1 / 3, 6), round(1 / 6, 6), round(1 / 6, 6)]
    with pytest.raises(ValueError):
        st.returns("elo")


def test_info_names_seats_automata_and_sizes():
    rb = Rulebook.load(RULES / "moonlight_market")
    info = rb.info(1)
    # one player against the automata Dirk and Beate (rulebook: solo game with two automata)
    assert info["seats"] == 3 and info["deciding_seats"] == [0] and info["automata"] == [1, 2]
    assert info["seat_names"][1:] == ["Dirk", "Beate"]
    assert info["action_space_size"] == len(rb.action_space(1).ids)
    assert info["score_direction"] == "higher" and "zero_sum" in info["returns"]
    assert Rulebook.load(RULES / "iquazu").info(4)["automata"] == []


def test_info_says_whether_chance_decides_and_whether_anything_is_hidden():
    tests = ROOT / "tests" / "rulebooks"
    facts = {name: (rb.info(2)["random"], rb.info(2)["perfect_information"])
             for name, rb in [("yak", Rulebook.load(RULES / "yak")),                   # a bag, secret choices
                              ("dice", Rulebook.load(tests / "dice")),                 # a die, nothing hidden
                              ("lowest_wins", Rulebook.load(tests / "lowest_wins")),   # neither
                              ("sealed_offers", Rulebook.load(tests / "sealed_offers"))]}   # hidden hands
    assert facts["yak"] == (True, False)
    assert facts["dice"] == (True, True)
    assert facts["lowest_wins"] == (False, True)
    assert facts["sealed_offers"] == (False, False)


@pytest.mark.parametrize("resume", [True, False])
def test_a_paused_segment_and_its_clones_go_on_alike(monkeypatch, resume):
    """With greenlet a paused segment resumes (O(1) per outcome); a clone made at a chance
    node, a pickled copy, and the replaying mode without greenlet all reach the same states."""
    import pickle

    from interpreter.engine.run import chance
    if resume and chance._greenlet is None:
        pytest.skip("greenlet is not installed (the rl extra)")
    if not resume:
        monkeypatch.setattr(chance, "_greenlet", None)
    rb = Rulebook.load(RULES / "moonlight_market")
    pick = random.Random(7)
    cs = rb.new_chance_game(2)
    assert cs._paused == resume and cs.is_chance_node()
    copies = []
    steps = 0
    while not cs.is_terminal() and steps < 400:
        if cs.is_chance_node():
            if steps % 9 == 0:
                copies.append((cs.clone(), pickle.loads(pickle.dumps(cs)), len(cs.history)))
            cs.apply_outcome(pick.randrange(cs.need))
        else:
            legal = cs.legal_actions()
            cs.apply_action(legal[pick.randrange(len(legal))])
        steps += 1
    assert len(copies) > 5
    for clone, unpickled, at in copies:
        for copy in (clone, unpickled):
            for kind, x in cs.history[at:]:
                if kind == "chance":
                    copy.apply_outcome(x)
                else:
                    copy.apply_action(x)
            assert copy.history == cs.history
            assert (copy.state is None) == (cs.state is None)
            if cs.state is not None:       # (an unpickled state logs again: the log may differ)
                a, b = copy.state.to_json(), cs.state.to_json()
                a.pop("log"), b.pop("log")
                assert a == b


def test_a_rule_error_after_a_chance_outcome_is_raised_and_play_goes_on_elsewhere(rulebook):
    """A segment that fails (here: a die of 3 breaks the rules) raises its located error to
    the caller; the game's worker lives on, and another copy of the game plays on."""
    from dsl.diagnostics import RuleRuntimeError
    rb = Rulebook.load(rulebook(HEAD + """
variables:
  d: 0
actions:
  roll:
    do:
      - random: "d in 1..3"
      - if: "d == 3"
        then: [{fail: "three is not allowed"}]
flow: [{repeat: 3, do: [{decide: [roll], who: 0}]}]
end: {score: "d"}
"""))
    cs = rb.new_chance_game(2)
    cs.apply_action("roll")
    assert cs.is_chance_node() and cs.need == 3
    twin = cs.clone()
    with pytest.raises(RuleRuntimeError, match="three is not allowed"):
        cs.apply_outcome(2)
    twin.apply_outcome(1)                             # a 2: fine
    assert twin.legal_actions() == ["roll"]
    twin.apply_action("roll")
    twin.apply_outcome(0)
    assert twin.legal_actions() == ["roll"] and len(twin.history) == 4


def test_a_decision_by_position_is_the_decision_by_id():
    """``ChanceState.apply_index(i)`` (no action ids written but the chosen one's) plays the
    game ``apply_action(legal_actions()[i])`` plays: the same history, the same states."""
    rb = Rulebook.load(RULES / "moonlight_market")
    by_id, by_pos = rb.new_chance_game(2), rb.new_chance_game(2)
    rng = random.Random(5)
    while not by_id.is_terminal():
        if by_id.is_chance_node():
            k = rng.randrange(len(by_id.chance_outcomes()))
            by_id.apply_outcome(k)
            by_pos.apply_outcome(k)
            continue
        legal = by_id.legal_actions()
        i = rng.randrange(len(legal))
        by_id.apply_action(legal[i])
        by_pos.apply_index(i)
        assert by_pos.history == by_id.history
        if not by_id.is_chance_node():
            assert by_pos.state.to_json() == by_id.state.to_json()
    assert by_pos.is_terminal() and by_pos.returns() == by_id.returns()
    with pytest.raises(Exception, match="not the index of a legal action"):
        by_pos.apply_index(0)               # the game is over: no decision
