"""The observation vectors an ObservationWriter writes over the last one (only what changed)
equal the ones written whole (``observation_vector``), entry by entry, at every state of
random games of every shipped game: for each seat, an onlooker, everyone, normalised too."""
import random
from pathlib import Path

import pytest

from conftest import RULES
from interpreter.engine.tensors import ObservationWriter
from interpreter.game import EVERYONE, Rulebook, observation_vector

np = pytest.importorskip("numpy", reason="observation tensors need numpy: install the rl extra (pip install -e '.[rl]')")

GAMES = {"azul_summer_pavilion": (2, 4), "iquazu": (2, 4), "moonlight_market": (2, 5), "yak": (2, 4)}


def _play_and_compare(rb, players, seed, viewers_per_step=1, writer=None, steps=None):
    """One random game (its first ``steps`` decisions); at each decision the writer's vector
    of some viewers (the one to move, and in turn every other, an onlooker, everyone) equals
    the vector written whole."""
    lay = rb.layout(players)
    writer = writer or ObservationWriter(rb.game, lay)
    st = rb.new_game(players, seed, logging=False)
    rng = random.Random(seed)
    viewers = list(range(lay.num_seats)) + [None, EVERYONE]
    checked = 0
    turn = 0
    while True:
        chosen = {st.current_player()} | {viewers[(turn + k) % len(viewers)] for k in range(viewers_per_step)}
        for viewer in chosen:
            for normalise in (False, True) if turn % 7 == 0 else (False,):
                got = writer.vector(st, viewer, normalise)
                want = observation_vector(st, viewer, normalise)
                assert got.dtype == want.dtype and got.shape == want.shape
                bad = np.flatnonzero(got != want)
                assert not bad.size, (f"{rb.game.name} {players}p seed {seed} step {turn} viewer {viewer}: "
                                      f"cells {bad[:10].tolist()} {got[bad[:10]].tolist()} != {want[bad[:10]].tolist()}")
                checked += 1
        if st.is_terminal() or turn == steps:
            return checked
        st.apply_action(rng.choice(st.legal_actions()))
        turn += 1


@pytest.mark.parametrize("game", sorted(GAMES))
def test_written_over_equals_written_whole(game):
    rb = Rulebook.load(RULES / game)
    assert _play_and_compare(rb, GAMES[game][0], 1, steps=90) > 50


#: test rulebooks with what no shipped game has: `reveal` of zones and values, hidden variables, chance values,
#: pieces covering the cells of a grid
REVEALING = ["knowledge", "sealed_offers", "cups", "hidden_die", "domino_kingdom", "hex_garden"]


@pytest.mark.parametrize("book", REVEALING)
def test_written_over_equals_written_whole_with_reveals_and_hidden_values(book):
    rb = Rulebook.load(Path(__file__).parent / "rulebooks" / book)
    for seed in range(3):
        _play_and_compare(rb, rb.game.min_players, seed, viewers_per_step=2)


def test_visibility_rules_kept_by_the_values_they_read_or_evaluated_every_time():
    """Iquazú's bonus field shows the columns up to ``frame + frame_width``: kept per viewer and
    those values; the same rules evaluated for every observation give the same vectors."""
    from interpreter.engine.tensors import _Encoder, observation_spec
    rb = Rulebook.load(RULES / "iquazu")
    lay = rb.layout(2)
    writer = ObservationWriter(rb.game, lay)
    assert writer.enc.kept_rules and writer.enc.kept_get is not None and not writer.enc.vis_fixed
    _play_and_compare(rb, 2, 2, writer=writer, steps=120)
    assert len(writer.enc.vis_cache) > 2
    enc = _Encoder(observation_spec(rb.game, lay), rb.game, lay)      # not the layout's own
    enc.every_time, enc.kept_rules, enc.kept_get, enc.vis_fixed = enc.kept_rules, [], None, False
    writer = ObservationWriter(rb.game, lay)
    writer.enc = enc
    _play_and_compare(rb, 2, 3, writer=writer, steps=60)


def test_a_new_game_or_a_copy_is_written_whole():
    rb = Rulebook.load(RULES / "moonlight_market")
    writer = ObservationWriter(rb.game, rb.layout(2))
    st = rb.new_game(2, 4, logging=False)
    writer.vector(st, 0)
    rng = random.Random(4)
    for _ in range(10):
        st.apply_action(rng.choice(st.legal_actions()))
    copy = st.clone()                       # not tracked: its moves are not seen by the writer's view of st
    assert copy.moved is None
    for _ in range(10):
        copy.apply_action(rng.choice(copy.legal_actions()))
    assert np.array_equal(writer.vector(copy, 0), observation_vector(copy, 0))
    assert np.array_equal(writer.vector(st, 0), observation_vector(st, 0))
    other = rb.new_game(2, 5, logging=False)
    assert np.array_equal(writer.vector(other, 0), observation_vector(other, 0))


def test_a_revealed_variable_makes_no_zone_visible():
    """``known`` keeps a revealed variable under -1 - its slot: not a zone id (it once showed
    the last zones of the layout to the seat it was revealed to)."""
    from interpreter.engine.observe import sees_zone
    rb = Rulebook.load(RULES / "iquazu")
    st = rb.new_game(2, 4, logging=False)
    nz = len(st.lay.zones)
    # variable slots whose -1 - slot, read as a zone id, is a zone hidden from seat 1 that holds something
    slots = [nz - 1 - z.id for z in st.lay.zones
             if not sees_zone(st, z, 1) and st.z[z.id] and nz - 1 - z.id < len(st.v)]
    assert slots
    before = observation_vector(st, 1)
    st.reveal_values(slots, [1])
    assert np.array_equal(observation_vector(st, 1), before)
    assert np.array_equal(ObservationWriter(rb.game, st.lay).vector(st, 1), before)


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_written_over_equals_written_whole_in_many_games(game):
    rb = Rulebook.load(RULES / game)
    for players in GAMES[game]:
        for seed in range(2, 8):
            _play_and_compare(rb, players, seed, viewers_per_step=3)
