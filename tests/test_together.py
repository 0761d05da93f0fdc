"""A decision taken together (`decide: … together:`): every named seat chooses without
learning anything of the others' choices; the choices take effect when all have chosen."""
import pytest

from interpreter.game import Rulebook

BOOK = """\
regelwerk: 1
game: {name: Bids, players: {min: 2, max: 4}}
variables:
  money: {index: {p: players}, init: 3, min: 0, max: 3, visible: "viewer == p"}
  bid: {index: {p: players}, init: -1, min: -1, max: 3, visible: "viewer == p"}
  seen: {index: {p: players}, init: -9, min: -9, max: 9}
actions:
  bid:
    params: {amount: "0..money[player]"}
    do:
      - set: "bid[player] = amount"
      # what the others had bid when this one took effect: -1 until all have chosen
      - set: "seen[player] = sum([bid[q] for q in players if q != player])"
  pass: {do: [{set: "bid[player] = 0"}]}
flow:
  - decide: [bid, pass]
    together: true
  - decide: [bid]
    together: "[p for p in players if p != 0 and bid[p] < 3]"
end: {score: "bid[p]"}
"""


def game(rulebook, players=3):
    rb = Rulebook.load(rulebook(BOOK))
    return rb, rb.new_game(players, 7)


def test_every_seat_is_pending_and_nothing_happens_until_all_have_chosen(rulebook):
    rb, st = game(rulebook)
    assert st.pending_seats() == [0, 1, 2] and st.current_player() == 0
    st.apply("bid(amount=2)")
    assert st.pending_seats() == [1, 2] and st.current_player() == 1
    assert rb.evaluate(st, "bid[0]") == -1          # held, not yet in effect
    st.apply("pass")
    st.apply("bid(amount=3)")
    # all in: the actions ran in seat order, none before the last choice
    assert [rb.evaluate(st, f"bid[{p}]") for p in range(3)] == [2, 0, 3]
    # seat 0 ran first: it saw the other bids still at -1 (-1 + -1); seat 1 passed (sets
    # nothing: -9); seat 2 ran last and saw 2 + 0
    assert [rb.evaluate(st, f"seen[{p}]") for p in range(3)] == [-2, -9, 2]
    # the second decision names seats 1 and 2 less those who bid 3: seat 1 only
    assert st.pending_seats() == [1]


def test_the_others_are_told_nothing_of_a_choice(rulebook):
    rb, st = game(rulebook)
    other = rb.new_game(3, 7)
    st.apply("bid(amount=2)")
    other.apply("pass")
    # not the action, not its parameters: seat 1 sees the same whatever seat 0 chose
    assert st.history_for(1) == other.history_for(1) == [(0, "…")]
    assert st.observation(1) == other.observation(1)
    assert st.observation(2) == other.observation(2)
    assert st.history_for(0) == [(0, "bid(amount=2)")]
    assert st.told_id("pass") == "…"


def test_a_state_saved_between_choices_goes_on_the_same(rulebook):
    rb, st = game(rulebook)
    st.apply("bid(amount=1)")
    again = rb.state_from_json(st.to_json())
    assert again.pending_seats() == [1, 2]
    for s in (st, again):
        s.apply("bid(amount=0)")
        s.apply("pass")
    assert [rb.evaluate(again, f"bid[{p}]") for p in range(3)] == [1, 0, 0]
    assert again.to_json() == st.to_json()
    clone = st.clone()
    assert clone.pending_seats() == st.pending_seats()


def test_a_seat_with_nothing_legal_takes_no_part(rulebook):
    book = BOOK.replace('params: {amount: "0..money[player]"}',
                        'params: {amount: "0..money[player]"}\n    where: "player != 1"')
    rb = Rulebook.load(rulebook(book.replace("decide: [bid, pass]", "decide: [bid]")))
    st = rb.new_game(3, 1)
    assert st.pending_seats() == [0, 1, 2]
    st.apply("bid(amount=1)")
    assert st.current_player() == 2                 # seat 1 could not bid: left out
    st.apply("bid(amount=2)")
    assert [rb.evaluate(st, f"bid[{p}]") for p in range(3)] == [1, -1, 2]


def test_every_seat_gets_a_state_where_it_decides_and_the_game_is_not_touched(rulebook):
    from interpreter.game import choosing_states, pending_decisions
    book = BOOK.replace('params: {amount: "0..money[player]"}',
                        'params: {amount: "0..money[player]"}\n    where: "player != 1"')
    rb = Rulebook.load(rulebook(book.replace("decide: [bid, pass]", "decide: [bid]")))
    st = rb.new_game(3, 1)
    before = st.to_json()
    states = choosing_states(st)
    assert list(states) == [0, 2] and states[0] is st          # seat 1 has nothing legal: no part
    assert states[2].current_player() == 2 and states[2] is not st
    assert states[2].legal_actions() == [f"bid(amount={k})" for k in range(4)]
    # seat 2 sees there what it sees in the game (the choice before it is told to nobody) but its decision
    # (its history there has seat 0's choice as "…", as when the seats choose in turn)
    for seat in (1, 2):
        mine, real = states[2].observation(seat, history=False), st.observation(seat, history=False)
        assert {**mine, "decision": None} == {**real, "decision": None}
    assert st.to_json() == before                               # the game itself did not move
    assert {seat: [o.id for o in d.options] for seat, d in pending_decisions(st).items()} == {
        seat: s.legal_actions() for seat, s in states.items()}


@pytest.mark.parametrize("extra, word", [("who: 0", "who"), ("otherwise: []", "otherwise")])
def test_a_decision_taken_together_has_no_single_seat_options(rulebook, extra, word):
    from interpreter.game import check_rulebook
    book = BOOK.replace("    together: true", f"    together: true\n    {extra}")
    diags = [d for d in check_rulebook(rulebook(book))[0].items if d.severity == "error"]
    assert any(f"'{word}:'" in d.message for d in diags), diags


def test_together_names_seats(rulebook):
    from interpreter.game import check_rulebook
    diags = [d for d in check_rulebook(rulebook(BOOK.replace('together: "[p for p in players if p != 0 and bid[p] < 3]"',
                                                             'together: "3"')))[0].items
             if d.severity == "error"]
    assert any("together: names seats" in d.message for d in diags), diags


SECOND = """  - decide: [bid]
    together: "[p for p in players if p != 0 and bid[p] < 3]"
"""


def test_as_names_each_seat_s_action_and_first_runs_them_from_a_seat(rulebook):
    book = BOOK.replace("    together: true\n", "    together: true\n    as: said\n    first: 1\n", 1)
    book = book.replace(SECOND, """  - set: "seen[0] = count(said, s -> s == 'pass')"\n""")
    rb = Rulebook.load(rulebook(book))
    st = rb.new_game(3, 7)
    st.apply("bid(amount=2)")
    st.apply("pass")
    st.apply("bid(amount=3)")
    # run from seat 1: pass (seat 1), then seat 2 (sees bid[0] = -1 and bid[1] = 0: -1),
    # then seat 0 (sees 0 + 3 = 3); after them the flow counts one pass in said
    assert rb.evaluate(st, "seen[2]") == -1
    assert rb.evaluate(st, "seen[0]") == 1
    assert st.is_terminal()


@pytest.mark.parametrize("book", ["sealed_bids", "hand_draft", "written_orders", "open_auction"])
def test_the_test_rulebooks_validate_and_pass_their_hand_calculated_scenarios(book):
    from conftest import ROOT
    from interpreter.game import check_rulebook
    from interpreter.tools.scenarios import run_scenarios
    folder = ROOT / "tests" / "rulebooks" / book
    report, _ = check_rulebook(folder)
    assert not report.items, [d.format() for d in report.items]          # no error, no warning
    results = run_scenarios([folder])
    assert results and all(r.ok for r in results), [(r.line(), [m.format() for m in r.messages]) for r in results]
