"""The real game's replay for a seat (knowledge/worlds.py, ``trajectory``), which resample
starts from, goes on from where the last replay of the same game and seat paused (``_Replay``,
``_PAUSED``): a search bot replays its game at each of its decisions.  The oracle: the replay
gone on from a paused one is the replay from the start — its record, chance events, pins, kept
numbers, decisions, answers, secret choices and state — at stops of random games of every
shipped game and test rulebook, for every seat.

Another seat's secret choice and the options the seat's record rules out (``secret_choices.Window``) are
worked out from the LOOKAHEAD decisions after the choice, the record and the numbers drawn up to
the window's end.  So once the window is complete the result stays the same however far the game
goes — which is what lets the paused replay keep it (``_Replay.done``).  The oracle: the result
in the long game, worked out afresh, equals the one worked out in the game as it stood when the
window was complete."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from conftest import RULES, SHIPPED
from interpreter.game import Rulebook
from interpreter.engine.knowledge import secret_choices, worlds
from interpreter.engine.knowledge.secret_choices import LOOKAHEAD
from interpreter.engine.knowledge.worlds import trajectory

ROOT = Path(__file__).resolve().parents[1]
BOOKS = sorted(p for p in (ROOT / "tests" / "rulebooks").iterdir() if (p / "game.yaml").exists()) + \
    [ROOT / "rules" / name for name in SHIPPED]


def _game(rb, players, seed, length, pick_seed=None):
    """A random game of ``length`` decisions (or to its end) and its decisions' ids (the picks
    from ``pick_seed``, else from the game's seed)."""
    return _branch(rb, players, seed, [], length, seed if pick_seed is None else pick_seed)


def _branch(rb, players, seed, prefix, length, pick_seed):
    """``prefix``, then random decisions of another generator up to ``length``."""
    st = _at(rb, players, seed, prefix)
    pick = random.Random(pick_seed)
    ids = list(prefix)
    while st.status != "over" and len(ids) < length:
        opt = st.pending.options[pick.randrange(len(st.pending.options))]
        ids.append(opt.id)
        st.apply(opt.id)
    return ids


def _at(rb, players, seed, ids):
    st = rb.new_game(players, seed, logging=False)
    for a in ids:
        st.apply(a)
    return st


@pytest.fixture
def no_kept(monkeypatch):
    monkeypatch.setattr(worlds, "_PAUSED", {})


def _fields(t):
    st = t.state
    stops = [(s.answers, s.events, s.recorded, s.logged) + (
        () if s.state is None else (s.state.v, [[c.id for c in z] for z in s.state.z], s.state.log, s.state.rng,
                                    s.state.pending.who if s.state.pending else None)) for s in t.stops]
    return (t.record, t.events, t.pins, t.kept, t.decisions, t.answers, t.choices, list(t.choices),
            st.v, st.status, st.facts, [[c.id for c in z] for z in st.z], st.log, st.rng, stops)


def _books():
    """Every book; the shipped games in the slow suite (the test rulebooks and the dice rulebooks
    below are the default run's)."""
    for b in BOOKS:
        slow = b.parent.name == "rules"
        yield pytest.param(b, id=b.name, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("book", list(_books()))
def test_a_replay_gone_on_from_a_paused_one_is_the_replay_from_the_start(book, no_kept):
    rb = Rulebook.load(book)
    players = rb.game.min_players if book.parent.name == "rulebooks" else max(rb.game.min_players, 3)
    for seat in range(rb.layout(players).num_seats):
        ids = _game(rb, players, seat, 120)
        worlds._PAUSED.clear()
        for k in sorted({0, 1, len(ids) // 3, len(ids) // 3 + 1, len(ids) // 2, len(ids)}):
            st = _at(rb, players, seat, ids[:k])
            gone_on = trajectory(st, seat)          # from the last paused replay (none the first time)
            saved, worlds._PAUSED = worlds._PAUSED, {}
            fresh = trajectory(st, seat)
            worlds._PAUSED = saved
            assert _fields(gone_on) == _fields(fresh), f"{book.name}, seat {seat}, {k} decisions"


@pytest.mark.parametrize("book", [p for p in _books() if p.values[0].name in ("yak", "sealed_bids", "moonlight_market",
                                                                              "hand_draft", "iquazu")])
def test_a_paused_replay_gone_on_from_twice_is_not_changed_by_the_first(book, no_kept):
    """A branch (or a replay that failed on the way) leaves the paused replay as it was."""
    rb = Rulebook.load(book)
    players = max(rb.game.min_players, 2 if book.parent.name == "rulebooks" else 3)
    players = min(players, rb.game.max_players)
    ids = _game(rb, players, 3, 90)
    k = len(ids) // 3
    seat = 1
    trajectory(_at(rb, players, 3, ids[:k]), seat)
    paused = dict(worlds._PAUSED)
    other = _branch(rb, players, 3, ids[:k], 2 * k, 77)
    assert other[:k] == ids[:k] and other[k:] != ids[k:2 * k]
    trajectory(_at(rb, players, 3, other), seat)                # goes on from it, another way
    worlds._PAUSED = paused                                      # and again, from the same one
    far = _at(rb, players, 3, ids)
    gone_on = trajectory(far, seat)
    worlds._PAUSED = {}
    assert _fields(gone_on) == _fields(trajectory(far, seat))


@pytest.mark.slow
@pytest.mark.parametrize("game,players,seed", [("yak", 3, 5), ("yak", 2, 11)])
def test_a_complete_window_gives_the_same_result_however_far_the_game_goes(game, players, seed, no_kept):
    rb = Rulebook.load(RULES / game)
    ids = _game(rb, players, seed, 2 * LOOKAHEAD + 30)
    seat = 0
    worlds._PAUSED.clear()
    far = trajectory(_at(rb, players, seed, ids), seat)
    complete = [p for p in far.choices if p + 1 + LOOKAHEAD <= len(ids)]
    assert len(complete) >= 3, "the game should have secret choices with complete windows"
    for place in complete[:6]:
        worlds._PAUSED.clear()
        then = trajectory(_at(rb, players, seed, ids[:place + 1 + LOOKAHEAD]), seat)
        assert then.choices[place] == far.choices[place], f"place {place}"


@pytest.mark.slow
@pytest.mark.parametrize("game,players,seed", [("yak", 3, 5)])
def test_results_kept_along_the_way_give_the_same_trajectory(game, players, seed, no_kept, monkeypatch):
    rb = Rulebook.load(RULES / game)
    ids = _game(rb, players, seed, 2 * LOOKAHEAD + 30)
    seat = 1
    fresh = trajectory(_at(rb, players, seed, ids), seat)
    worlds._PAUSED.clear()
    for k in range(LOOKAHEAD, len(ids), 7):          # a bot's decisions along the way
        trajectory(_at(rb, players, seed, ids[:k]), seat)
    worked = []
    real = secret_choices.Window.go_on
    monkeypatch.setattr(secret_choices.Window, "go_on", lambda w, *a: worked.append(w.place) or real(w, *a))
    kept = trajectory(_at(rb, players, seed, ids), seat)
    assert kept.choices == fresh.choices
    assert list(kept.choices) == list(fresh.choices)
    assert kept.record == fresh.record and kept.decisions == fresh.decisions
    # only the windows not yet complete when the last of those replays was made are worked out again
    last = max(range(LOOKAHEAD, len(ids), 7))
    assert worked and all(p + 1 + LOOKAHEAD > last for p in worked)
    assert len(worked) < len(fresh.choices)


def _dice(name, choose_do, hidden, dice_after):
    """A rulebook: seat 0 chooses 0 or 1 face down (``choose_do``), then seat 1 waits 50 times
    (saying 0 or 1: two lines of play); a die is thrown in the open after the waits ``dice_after``."""
    return f"""\
regelwerk: 1
game: {{name: {name}, players: {{min: 2, max: 2}}}}
variables:
  pick: {{index: {{p: players}}, init: 0, min: 0, max: 1, visible: "viewer == p"}}
{hidden}  shown: {{init: 0, min: 0, max: 6}}
  n: {{init: 0, min: 0, max: 60}}
actions:
  choose:
    secret: [v]
    params: {{v: "0..1"}}
    do: {choose_do}
  wait:
    params: {{x: "0..1"}}
    do: [{{set: "n += 1"}}]
flow:
  - decide: [choose]
    who: 0
  - while: "n < 50"
    do:
      - decide: [wait]
        who: 1
      - if: "{' or '.join(f'n == {k}' for k in dice_after)}"
        then: [{{random: "r in 1..6"}}, {{set: "shown = r"}}]
end: {{score: "0"}}
"""


# Seat 0 chooses 0 or 1 face down; 1 draws a number into a variable seat 1 cannot see.  Seat 1
# then waits 50 times; after its 40th wait a die is thrown in the open, after its 41st another.
# An alternative (1 instead of the real 0) draws one number more, so its open die is the real
# game's next number — which exists once the game has thrown the second die, after the window
# of 40 decisions.  Followed with the numbers drawn up to the window's end only, the result
# cannot depend on that: without the bound, 10 of these 30 seeds gave another result at 51
# decisions than at 41 (the bound removed, this test fails).
LATE_DIE = _dice("Late die", '[{set: "pick[player] = v"}, {if: "v == 1", then: [{random: "r in 1..6"}, '
                 '{set: "extra = r"}]}]', '  extra: {init: 0, min: 0, max: 6, visible: "viewer == 0"}\n', (40, 41))


@pytest.mark.slow
def test_a_game_with_other_decisions_from_the_same_start_keeps_its_own_results(no_kept):
    rb = Rulebook.load(RULES / "yak")
    a = _game(rb, 3, 5, 2 * LOOKAHEAD + 30)
    b = _game(rb, 3, 5, 2 * LOOKAHEAD + 30, pick_seed=99)
    assert a[:3] != b[:3]
    fresh = trajectory(_at(rb, 3, 5, b), 0).choices
    worlds._PAUSED.clear()
    trajectory(_at(rb, 3, 5, a), 0)
    assert worlds._PAUSED
    assert trajectory(_at(rb, 3, 5, b), 0).choices == fresh


def test_numbers_drawn_after_the_window_do_not_change_its_result(tmp_path, no_kept):
    (tmp_path / "game.yaml").write_text(LATE_DIE)
    rb = Rulebook.load(tmp_path)
    ruled = 0
    for seed in range(30):
        got = []
        for length in (1 + LOOKAHEAD, 11 + LOOKAHEAD):
            st = rb.new_game(2, seed, logging=False)
            st.apply("choose(v=0)")
            while len(st._history) < length:
                st.apply("wait(x=0)")
            worlds._PAUSED.clear()
            got.append(trajectory(st, 1).choices[0])
        assert got[0] == got[1], f"seed {seed}"
        ruled += "choose(v=1)" in got[0][0]
    assert 0 < ruled < 30           # the open die rules the alternative out in some seeds, not all


def test_a_window_whose_alternative_took_a_number_of_its_own_is_followed_again(tmp_path, no_kept, monkeypatch):
    """LATE_DIE's alternative draws a number the real game has not drawn yet: the window cannot
    go on from where it stood (a later replay gives that number from the real game)."""
    (tmp_path / "game.yaml").write_text(LATE_DIE)
    rb = Rulebook.load(tmp_path)
    started = []
    real = secret_choices.Window.go_on
    monkeypatch.setattr(secret_choices.Window, "go_on", lambda w, *a: started.append(not w.whole) or real(w, *a))
    for seed in range(30):
        st = rb.new_game(2, seed, logging=False)
        st.apply("choose(v=0)")
        worlds._PAUSED.clear()
        for length in (5, 20, 1 + LOOKAHEAD, 11 + LOOKAHEAD):
            while len(st._history) < length:
                st.apply("wait(x=0)")
            gone_on = trajectory(st, 1)
            saved, worlds._PAUSED = worlds._PAUSED, {}
            assert _fields(gone_on) == _fields(trajectory(st, 1)), f"seed {seed}, {length} decisions"
            worlds._PAUSED = saved
    assert all(started)            # every time from the choice


# Seat 0 chooses 0 or 1 face down (nothing drawn); seat 1 waits, and dice are thrown in the open
# after its 5th and 30th waits: both options stay possible, and a window that goes on from its
# 10th decision gives its alternative the second die from where it stood in the real numbers.
QUIET_DICE = _dice("Quiet dice", '[{set: "pick[player] = v"}]', "", (5, 30))


def test_a_window_goes_on_with_the_real_numbers_from_where_it_stood(tmp_path, no_kept, monkeypatch):
    (tmp_path / "game.yaml").write_text(QUIET_DICE)
    rb = Rulebook.load(tmp_path)
    went_on = []
    real = secret_choices.Window.go_on
    monkeypatch.setattr(secret_choices.Window, "go_on", lambda w, *a: went_on.append(w.whole) or real(w, *a))
    for seed in range(12):
        st = rb.new_game(2, seed, logging=False)
        st.apply("choose(v=0)")
        worlds._PAUSED.clear()
        for length in (10, 35, 45):
            while len(st._history) < length:
                st.apply("wait(x=0)")
            gone_on = trajectory(st, 1)
            saved, worlds._PAUSED = worlds._PAUSED, {}
            fresh = trajectory(st, 1)
            assert _fields(gone_on) == _fields(fresh), f"seed {seed}, {length} decisions"
            # the die tells nothing of the choice: none ruled out of the two told the same (0 or 1)
            assert fresh.choices[0] == (frozenset(), 1.0, 2)
            worlds._PAUSED = saved
    assert any(went_on)


def test_a_paused_window_gone_on_from_twice_is_not_changed_by_the_first(tmp_path, no_kept):
    """QUIET_DICE's alternative stays possible: the window goes on from where it stood, once on a
    line of waits saying 1, then from the same paused replay on the line saying 0."""
    (tmp_path / "game.yaml").write_text(QUIET_DICE)
    rb = Rulebook.load(tmp_path)
    for seed in range(6):
        first = ["choose(v=0)"] + ["wait(x=0)"] * 9
        trajectory(_at(rb, 2, seed, first), 1)
        paused = dict(worlds._PAUSED)
        trajectory(_at(rb, 2, seed, first + ["wait(x=1)"] * 25), 1)
        worlds._PAUSED = paused
        far = _at(rb, 2, seed, first + ["wait(x=0)"] * 25)
        gone_on = trajectory(far, 1)
        worlds._PAUSED = {}
        assert _fields(gone_on) == _fields(trajectory(far, 1)), f"seed {seed}"
        worlds._PAUSED = {}


@pytest.mark.slow
def test_an_edited_start_keeps_nothing(no_kept):
    rb = Rulebook.load(RULES / "yak")
    st = _at(rb, 3, 5, _game(rb, 3, 5, LOOKAHEAD + 20))
    assert worlds._start_key(st, 0, None) is not None
    st.origin = st.clone()
    assert worlds._start_key(st, 0, None) is None


def test_a_fingerprint_tells_states_apart_but_not_the_order_of_the_zone_about_to_be_shuffled():
    """``worlds.fingerprint`` (a world's replay is the real game again at a shuffle): the same
    for a state and its clone and whatever the order of the zone to be shuffled, another when a
    component lies elsewhere or a variable differs — also when a variable holds a list."""
    rb = Rulebook.load(RULES / "moonlight_market")
    st = rb.new_game(3, 5, logging=False)
    zone = next(z for z in st.lay.zones if st.z[z.id] and len(st.z[z.id]) > 2)
    other = next(z for z in st.lay.zones if z.id != zone.id and len(st.z[z.id]) > 1)
    mark = worlds.fingerprint(st, zone)
    twin = st.clone()
    assert worlds.fingerprint(twin, zone) == mark
    twin.z[zone.id].reverse()               # the order of the zone about to be shuffled does not count
    assert worlds.fingerprint(twin, zone) == mark
    twin.z[other.id].reverse()              # another zone's does
    assert worlds.fingerprint(twin, zone) != mark
    twin = st.clone()
    twin.v[0] = [twin.v[0]]                 # a list in a variable: told apart, and no error
    assert worlds.fingerprint(twin, zone) != mark
    assert worlds.fingerprint(twin, zone) == worlds.fingerprint(twin.clone(), zone)
