"""A world's first try going on from a stop of the real game's replay (worlds.skip): up to the
last stop where every chance outcome and every other seat's secret choice is the real one
whatever the world's fresh numbers, the replay from the start would be the real game's replay,
so it is not made again.

The oracle is the replay from the start: a resample draws the same world, seed for seed — the
same state, chance answers, log and random generator — with and without skipping, at points of
seeded games of the shipped games and of the test books with hidden information; and it does
skip where the seat has seen every outcome (Azul: Summer Pavilion, Yak)."""
import pytest

from dsl.diagnostics import RuleRuntimeError
from interpreter.engine.knowledge import worlds
from interpreter.engine.run.limits import LIMITS
from interpreter.game import Rulebook

from conftest import ROOT, game_folders, hidden_book_folders, seeded_random_games, shipped_in_slow

BOOKS = [*game_folders(), *hidden_book_folders()]


def _state(s):
    """Everything of a state a game goes on from."""
    return (tuple(opt.id for _who, opt in s._history), tuple(tuple(c.id for c in z) for z in s.z),
            tuple(map(repr, s.v)), s.status, repr(s.facts), repr(sorted(s.known.items(), key=repr)),
            tuple(s.log), s.script, s.rng, tuple(s.forced), tuple(s.where), s.logging,
            tuple((f.proc.name, f.pc, repr(f.L)) for f in s.frames), repr([(c.kind, c.name) for c in s.scopes]),
            (s.pending.who, tuple(o.id for o in s.pending.options)) if s.pending else None)


def _points(rb, seeds, every):
    """States after every ``every``-th decision (the 1st, the ``every+1``-th…) of seeded random
    games of up to 90 decisions, half of them logged."""
    return (st for k, st in seeded_random_games(rb, seeds, 91, logging=lambda seed: seed % 2 == 0)
            if k % every == 1)


def _both(st, seat, seed, monkeypatch):
    """The resample with skipping and the one replayed from the start, and the skip taken."""
    taken = []
    real_skip = worlds.skip

    def noted(real, fresh):
        got = real_skip(real, fresh)
        taken.append((got.at if got is not None else 0, len(real.stops) - 1))
        return got
    monkeypatch.setattr(worlds, "skip", noted)
    worlds._PAUSED.clear()
    skipped = st.resample(seat, seed)
    monkeypatch.setattr(worlds, "skip", lambda real, fresh: None)
    worlds._PAUSED.clear()
    replayed = st.resample(seat, seed)
    monkeypatch.setattr(worlds, "skip", real_skip)
    return skipped, replayed, taken[0] if taken else None


@pytest.mark.parametrize("folder", shipped_in_slow(BOOKS), ids=lambda p: p.name)
def test_a_resample_draws_the_same_world_whether_it_skips_or_replays_from_the_start(folder, monkeypatch):
    rb = Rulebook.load(folder)
    compared, skipped_all, skipped_some = 0, 0, 0
    for st in _points(rb, range(4), 11):
        seat = st.pending.who
        for seed in range(3):
            skipped, replayed, taken = _both(st, seat, seed, monkeypatch)
            assert _state(skipped) == _state(replayed), (folder.name, len(st._history), seed, taken)
            compared += 1
            if taken is not None and taken[0] > 0:
                skipped_some += 1
                skipped_all += taken[0] == taken[1]
    assert compared > 0
    if folder.name == "azul_summer_pavilion":       # the seat sees every tile drawn: nothing to replay
        assert skipped_all == compared
    if folder.name == "yak":                        # all but the secret choices not yet told
        assert skipped_some > compared // 2


def test_azul_every_world_goes_on_from_the_end_of_the_real_replay(monkeypatch):
    """(In the default run: the slow one above covers every shipped game.)"""
    rb = Rulebook.load(ROOT / "rules" / "azul_summer_pavilion")
    st = next(st for st in _points(rb, [2], 25) if len(st._history) == 51)
    seat = st.pending.who
    for seed in range(3):
        skipped, replayed, taken = _both(st, seat, seed, monkeypatch)
        assert taken == (51, 51)
        assert _state(skipped) == _state(replayed)


def test_a_budget_smaller_than_the_skip_replays_from_the_start_as_before(monkeypatch):
    """The decisions skipped count against ``resample_work`` as if replayed: with less work
    allowed than the game has decisions, both ways give up alike (RW921)."""
    rb = Rulebook.load(ROOT / "rules" / "azul_summer_pavilion")
    st = next(st for st in _points(rb, [2], 25) if len(st._history) == 26)
    monkeypatch.setattr(LIMITS, "resample_work", 20)
    worlds._PAUSED.clear()
    with pytest.raises(RuleRuntimeError, match="RW921|no game in"):
        st.resample(st.pending.who, 1)
    monkeypatch.setattr(LIMITS, "resample_work", 26)        # exactly the decisions to replay: found
    skipped, replayed, taken = _both(st, st.pending.who, 1, monkeypatch)
    assert taken == (26, 26) and _state(skipped) == _state(replayed)


@pytest.mark.parametrize("folder", shipped_in_slow([*BOOKS, ROOT / "tests" / "rulebooks" / "leaky_param"]),
                         ids=lambda p: p.name)
def test_the_leak_check_finds_the_same_texts_whether_its_worlds_skip_or_replay_from_the_start(folder, monkeypatch):
    """knowledge.shown_leaks samples worlds with one text left out of the record; a world that goes
    on from a stop past that text shows the real one there, as every world replayed from the start
    does when everything before that stop is forced — so the same leaks are found."""
    from interpreter.engine.knowledge import leaks as leaks_module
    rb = Rulebook.load(folder)
    real_skip = worlds.skip
    compared = found = 0
    for st in _points(rb, range(3), 13):
        seat = st.pending.who
        worlds._PAUSED.clear()
        real = worlds.trajectory(st, seat)
        monkeypatch.setattr(leaks_module, "skip", real_skip)
        skipped = leaks_module.leaks(st, seat, real)
        monkeypatch.setattr(leaks_module, "skip", lambda real, fresh: None)
        replayed = leaks_module.leaks(st, seat, real)
        assert skipped == replayed, (folder.name, len(st._history))
        compared += 1
        found += bool(skipped)
    assert compared > 0
    if folder.name == "leaky_param":                # its card ids leak: found both ways
        assert found > 0
