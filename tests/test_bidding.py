"""Open bidding (`bidding:`): any seat may raise, in any order, until all pass — who may
speak first by priority from the auctioneer, or every call for raises taken together."""
from conftest import ROOT
from interpreter.game import Rulebook, check_rulebook

AUCTION = (ROOT / "tests" / "rulebooks" / "open_auction" / "game.yaml").read_text()


def play(rb, st, moves):
    for who, action in moves:
        assert st.current_player() == who, (st.history, who)
        st.apply(action)


def test_restart_after_goes_on_from_the_seat_after_the_raiser(rulebook):
    rb = Rulebook.load(rulebook(AUCTION.replace("    first: 0\n", "    first: 0\n    restart: after\n")))
    st = rb.new_game(3, 1)
    # P1 passes, P2 bids 1; the call goes on at P3 (not back to the auctioneer): P3 bids 2;
    # then P1 passes, P2 passes, P3 leads and passes: all passed
    play(rb, st, [(0, "pass"), (1, "raise(to=1)"), (2, "raise(to=2)"), (0, "pass"), (1, "pass"), (2, "pass")])
    assert st.is_terminal() and st.scores() == [4, 4, 2 + 5]


def test_first_names_who_may_speak_first(rulebook):
    rb = Rulebook.load(rulebook(AUCTION.replace("    first: 0\n", "    first: 2\n")))
    st = rb.new_game(3, 1)
    assert st.current_player() == 2
    play(rb, st, [(2, "raise(to=4)"), (2, "pass"), (0, "pass"), (1, "pass")])
    assert st.is_terminal() and st.scores() == [4, 4, 0 + 5]


def test_all_at_once_each_call_is_a_decision_taken_together_and_ties_go_by_priority(rulebook):
    book = AUCTION.replace("    first: 0\n", "    first: 1\n    together: true\n")
    # a raise must beat the bid when it runs: of equal raises, the one with priority wins
    book = book.replace('do: [{set: "high = to"}, {set: "leader = player"}, {log: "{seat_name(player)} bids {to}"}]',
                        'do: [{if: "to > high", then: [{set: "high = to"}, {set: "leader = player"}]}]')
    rb = Rulebook.load(rulebook(book))
    st = rb.new_game(3, 1)
    assert st.pending_seats() == [0, 1, 2]
    # call 1: P1 and P3 both raise to 2, P2 passes; run from P2 (first: 1): P3's 2, then P1's 2
    # (not higher): P3 leads at 2
    play(rb, st, [(0, "raise(to=2)"), (1, "pass"), (2, "raise(to=2)")])
    assert rb.evaluate(st, "leader") == 2 and rb.evaluate(st, "high") == 2
    # call 2: P1 raises to 3, the others pass; call 3: all pass (P1 leads: only pass)
    play(rb, st, [(0, "raise(to=3)"), (1, "pass"), (2, "pass"), (0, "pass"), (1, "pass"), (2, "pass")])
    assert st.is_terminal() and st.scores() == [1 + 5, 4, 4]
    assert [h for h in st.history_for(1) if h[0] != 1][0] == (0, "…")       # nothing told of a raise


def test_a_bidding_step_is_checked_where_it_is_written(rulebook):
    report, _ = check_rulebook(rulebook(AUCTION.replace("[raise, pass]", "[raise, pas]")))
    errors = [d for d in report.items if d.severity == "error"]
    assert errors and "unknown action 'pas'" in errors[0].message
    assert errors[0].pos.line == AUCTION.splitlines().index("  - bidding: [raise, pass]") + 1
