"""Hidden dice and a showdown (issue 26): `random` draws dice under cups, `reveal:` of a
variable shows its values into every seat's observation until they change, and resample
redraws only what a seat has not seen.  Rulebook: tests/rulebooks/cups (a bluffing dice game)."""
from pathlib import Path

from interpreter.game import Rulebook

CUPS = Path(__file__).parent / "rulebooks" / "cups"


def dice(st, p):
    return [st.v[st.lay.vkeys[st.game.variables["die"].family_id][(p, i)]] for i in (1, 2, 3)]


def test_each_seat_sees_its_own_dice_until_the_showdown_shows_all():
    st = Rulebook.load(CUPS).new_game(2, 3)
    assert sorted(st.observation(0)["variables"]["die"]) == ["(0,1)", "(0,2)", "(0,3)"]
    assert sorted(st.observation(1)["variables"]["die"]) == ["(1,1)", "(1,2)", "(1,3)"]
    st.apply_action("bid(n=1,f=2)")
    st.apply_action("challenge")
    for seat in (0, 1):
        shown = st.observation(seat)["variables"]["die"]
        assert len(shown) == 6 and [shown[f"(1,{i})"] for i in (1, 2, 3)] == dice(st, 1)
    # an onlooker sees what every seat sees (issue 36): before the showdown nothing of the dice, now all of them
    assert st.observation(None)["variables"]["die"] == st.observation(0)["variables"]["die"]
    assert "die" not in Rulebook.load(CUPS).new_game(2, 3).observation(None)["variables"]
    again = type(st).from_json(st.game, st.to_json(), st.lay)
    assert again.observation(0) == st.observation(0)


def test_a_revealed_value_is_known_until_it_changes(rulebook):
    text = (CUPS / "game.yaml").read_text().replace(
        '      - set: "over = true"', '      - set: "die[player, 1] = 0"\n      - set: "over = true"')
    st = Rulebook.load(rulebook(text)).new_game(2, 3)
    st.apply_action("bid(n=1,f=2)")
    st.apply_action("challenge")                   # seat 1 challenges, then its first die is set to 0
    assert "(1,1)" not in st.observation(0)["variables"]["die"]      # changed since: no longer known
    assert "(1,2)" in st.observation(0)["variables"]["die"]


def test_resample_before_the_showdown_redraws_the_other_cups_only():
    st = Rulebook.load(CUPS).new_game(3, 4)
    st.apply_action("bid(n=2,f=3)")
    seat = st.current_player()
    samples = [st.resample(seat, k) for k in range(40)]
    for s in samples:
        assert dice(s, seat) == dice(st, seat)
        assert s.observation(seat) == st.observation(seat)
    for other in {0, 1, 2} - {seat}:
        assert len({tuple(dice(s, other)) for s in samples}) >= 20
    faces = [x for s in samples for other in {0, 1, 2} - {seat} for x in dice(s, other)]
    assert set(faces) == set(range(1, 7))


def test_resample_after_the_showdown_keeps_every_die():
    st = Rulebook.load(CUPS).new_game(2, 4)
    st.apply_action("bid(n=2,f=3)")
    st.apply_action("challenge")
    for k in range(10):
        r = st.resample(0, k)
        assert dice(r, 1) == dice(st, 1) and r.observation(0) == st.observation(0)


def test_known_tells_whether_a_seat_knows_a_value(rulebook):
    # a one-die-each version: the challenge reveals every die; known(p, die[q, i]) reads it
    text = (CUPS / "game.yaml").read_text().replace(
        '      - set: "over = true"',
        '      - set: "points[player] += 10 if known(player, die[next(player), 1]) else 0"\n'
        '      - set: "over = true"')
    rb = Rulebook.load(rulebook(text))
    st = rb.new_game(2, 3)
    from interpreter.game import check_rulebook
    assert check_rulebook(rulebook(text))[0].items == []
    st.apply_action("bid(n=1,f=2)")
    st.apply_action("challenge")                   # seat 1 challenges: every die is revealed, then read
    assert st.scores()[1] >= 10
    early = text.replace('      - set: "bidder = player"',
                         '      - set: "bidder = player"\n'
                         '      - set: "points[player] += 100 if known(player, die[next(player), 1]) else 0"\n'
                         '      - set: "points[player] += 1000 if known(player, die[player, 1]) else 0"')
    st = Rulebook.load(rulebook(early)).new_game(2, 3)
    st.apply_action("bid(n=1,f=2)")                # before the showdown: its own die only
    assert st.scores()[0] == 1000
    report, _ = check_rulebook(rulebook(text.replace("die[next(player), 1]", "die[next(player)]")))
    assert any("index" in d.message for d in report.items)
