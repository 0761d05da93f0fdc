"""Finding one option instead of listing them all (codegen.option_finder): what a world's
replay asks a decide step for when it knows the option the decision takes and the seat is not
shown that decision's options (knowledge/worlds.replay_world, Recorder.want).

The oracle is the listing itself: wherever a game stops, every option the listing gives is the
one the finder gives for its id parts, and a combination of id parts the listing does not give
is found nowhere; and a world's replay draws the same worlds whether it finds or lists."""
import itertools

import pytest

from interpreter.engine.compile.codegen import finder
from interpreter.engine.knowledge import worlds
from interpreter.game import Rulebook

from conftest import ROOT, game_folders, hidden_book_folders, seeded_random_games, shipped_in_slow

#: those whose seats see each other's choices (not a secret bid or pass): a replay finds them
OPEN_CHOICES = ("azul_summer_pavilion", "iquazu", "moonlight_market", "yak", "tricks52")
BOOKS = [*game_folders(), *hidden_book_folders()]


def _books():
    return pytest.mark.parametrize("folder", BOOKS, ids=lambda p: p.name)


def _walk(rb, seeds, most):
    return (st for _k, st in seeded_random_games(rb, seeds, most))


@_books()
def test_the_finder_gives_the_option_the_listing_gives_for_its_id_parts_and_no_other(folder):
    rb = Rulebook.load(folder)
    asked = missing = 0
    for st in _walk(rb, range(4), 80):
        dec = st.pending
        L = st.frames[-1].L                 # the locals of the frame that decides
        listed = {}                         # id(action) -> (action, {id parts: values})
        for action, values in dec.raw:
            listed.setdefault(id(action), (action, {}))[1][finder(action).key(values)] = values
        for action, by_key in listed.values():
            find = finder(action)
            for key, values in by_key.items():
                got = find(st, dec.who, L, key)
                assert got is not None and got[0] is action and got[1] == values, (action.name, key, got)
                assert all(a is b for a, b in zip(got[1], values))      # the same components, not only alike
                asked += 1
            # id parts the listing does not give together: each parameter's parts recombined
            columns = [sorted({key[i] for key in by_key}, key=repr) for i in range(len(action.params))]
            for key in itertools.islice(itertools.product(*columns), 60):
                if key not in by_key:
                    assert find(st, dec.who, L, key) is None, (action.name, key)
                    missing += 1
    assert asked > 10
    if folder.name in ("azul_summer_pavilion", "iquazu", "yak"):
        assert missing > 0              # (their actions have parameters whose parts recombine)


def _counting(rb):
    """Every action's finder wrapped to count its calls (the decide steps call ``action.find``)."""
    calls = [0]
    for action in list(rb.game.actions.values()) + list(rb.game.inline_actions.values()):
        find = finder(action)

        def counted(*args, _find=find):
            calls[0] += 1
            return _find(*args)
        counted.key = find.key
        action.find = counted
    return calls


def _seen(st):
    return (tuple(opt.id for _who, opt in st._history), tuple(tuple(c.id for c in z) for z in st.z),
            tuple(map(repr, st.v)), st.pending.who if st.pending is not None else None,
            tuple(st.legal_actions()))


@pytest.mark.parametrize("folder", shipped_in_slow(BOOKS), ids=lambda p: p.name)
def test_a_world_replay_draws_the_same_worlds_whether_it_finds_or_lists(folder, monkeypatch):
    """The same resamples, seed for seed, with every decision of the replay listed (the
    trajectory asking for nothing) — and the finder did the work in the first (every replay
    from the start: none goes on from a stop of the real game's, worlds.skip)."""
    monkeypatch.setattr(worlds, "skip", lambda real, fresh: None)
    rb = Rulebook.load(folder)
    calls = _counting(rb)
    asks = worlds.Trajectory.wants
    compared = 0
    for st in _walk(rb, range(3), 45):
        if len(st._history) not in (1, 3, 8, 17, 26, 35, 44):
            continue
        seat = st.pending.who
        for s in range(3):
            monkeypatch.setattr(worlds.Trajectory, "wants", asks)
            worlds._PAUSED.clear()
            found = st.resample(seat, s)
            monkeypatch.setattr(worlds.Trajectory, "wants", lambda self, seat: (None,) * len(self.decisions))
            worlds._PAUSED.clear()
            listed = st.resample(seat, s)
            assert _seen(found) == _seen(listed)
            compared += 1
    monkeypatch.setattr(worlds.Trajectory, "wants", asks)
    assert compared > 0
    if folder.name in OPEN_CHOICES:
        assert calls[0] > 0


def test_a_found_decision_is_taken_as_recorded_and_its_state_lists_every_option_at_the_end(monkeypatch):
    """The world a resample returns stops at a decision whose options are all there: the last
    decision of the replay asks for nothing (there is none after it)."""
    monkeypatch.setattr(worlds, "skip", lambda real, fresh: None)       # replayed from the start
    rb = Rulebook.load(ROOT / "rules" / "azul_summer_pavilion")
    calls = _counting(rb)
    st = next(st for st in _walk(rb, [0], 40) if len(st._history) == 30)
    seat = st.pending.who
    w = st.resample(seat, 1)
    assert calls[0] > 0
    assert w.pending.who == seat and w.legal_actions() == st.legal_actions()    # the seat's own: what it sees
    assert len(w.pending.raw) == len(st.pending.raw) > 1
