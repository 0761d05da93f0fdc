"""The observation vectors an ObservationWriter writes over the last one (only what changed)
equal the ones written whole (``observation_vector``), entry by entry, at every state of
random games of every shipped game: for each seat, an onlooker, everyone, normalised too."""
import random
from pathlib import Path

import pytest

from conftest import RULES
from interpreter.engine.knowledge.observation_writer import ObservationWriter
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
    from interpreter.engine.knowledge.tensors import _Encoder, observation_spec
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


def test_the_writer_written_for_a_layout_clips_numbers_to_their_bounds_as_observation_vector_does():
    """The writer's update is Python written for the layout (the variables' cells and bounds as
    constants): a number past its bound is written clipped to it, no value (None) as 0,
    a value of another type but equal (1 and True) kept, as ``observation_vector`` writes them."""
    rb = Rulebook.load(RULES / "moonlight_market")
    lay = rb.layout(2)
    writer = ObservationWriter(rb.game, lay)
    st = rb.new_game(2, 6, logging=False)
    rng = random.Random(6)
    for _ in range(8):
        st.apply_action(rng.choice(st.legal_actions()))
    writer.vector(st, 0)
    slot = rb.game.variables["seal_supply"].offset
    cell = [c for c in writer.enc.plain_cells if c[0] == slot][0]
    at, lo, hi = cell[3] + 1, cell[5], cell[6]
    for value, shown in ((hi + 5000, hi), (lo - 5000, lo), (2.5, 2.5), (None, 0.0), (1, 1.0), (True, 1.0),
                         (7, 7.0)):
        st.v[slot] = value
        got, want = writer.vector(st, 0), observation_vector(st, 0)
        assert got[at] == want[at] == shown, (value, got[at], want[at])
        assert np.array_equal(got, want)
        st.apply_action(rng.choice(st.legal_actions()))       # (moves too: the rest written over as well)
        assert np.array_equal(writer.vector(st, 0), observation_vector(st, 0))
    assert writer.enc.update is not None            # (the vectors above were written over, not whole)


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
    from interpreter.engine.knowledge.observe import sees_zone
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


CUPS = Path(__file__).parent / "rulebooks" / "cups"


def _cups_for_three_rounds(rulebook):
    """Cups (tests/rulebooks/cups) played for three challenges: at each, every die is shown to
    every seat (`reveal`), then, but for the last, the challenger rolls its first die again (a
    value no longer known to the others) and bidding starts over."""
    text = (CUPS / "game.yaml").read_text()
    text = text.replace("  over: {init: false}", "  over: {init: false}\n  rounds: {init: 0}")
    text = text.replace('      - set: "over = true"', '''      - set: "rounds += 1"
      - set: "bid_n = 0"
      - set: "bid_f = 0"
      - if: "rounds >= 3"
        then: [{set: "over = true"}]
        else: [{random: "die[player, 1] in 1..6"}]''')
    return Rulebook.load(rulebook(text))


def _shown_variables(spec, vec):
    """{(variable, key)} of the rows whose ``visible`` is 1 in an observation vector, keys written
    as observe.observation writes them."""
    from interpreter.engine.run.values import format_value
    out = set()
    for name, array in spec.unflatten(vec).items():
        if name.startswith("var:"):
            for key, row in zip(spec.rows(name), array):
                if row[0] == 1:
                    out.add((name[4:], None if key is None else format_value(key)))
    return out


def _observed_variables(st, viewer):
    out = set()
    for name, value in st.observation(viewer)["variables"].items():
        if isinstance(value, dict):
            out |= {(name, key) for key in value}
        else:
            out.add((name, None))
    return out


def test_a_value_revealed_to_a_seat_is_in_its_tensors_until_it_changes(rulebook):
    """A value a `reveal` step showed a seat is in its observation (observe.observation) and so in
    its observation and information-state tensors, with ``visible`` 1, until it changes; the
    writer that writes over the last vector follows (it was 0 for a value only revealed)."""
    rb = _cups_for_three_rounds(rulebook)
    st = rb.new_game(2, 3, logging=False)
    spec = rb.observation_spec(2)
    rows = spec.rows("var:die")
    writer = ObservationWriter(rb.game, st.lay)
    st.apply_action("bid(n=1,f=2)")
    assert not spec.unflatten(writer.vector(st, 0))["var:die"][[rows.index((1, i)) for i in (1, 2, 3)]].any()
    st.apply_action("challenge")                # seat 1 challenges: every die shown, then it rolls die[1, 1]
    dice = {key: st.v[at] for key, at in st.lay.vkeys[rb.game.variables["die"].family_id].items()}
    shown = st.observation(0)["variables"]["die"]
    assert "(1,1)" not in shown and shown["(1,2)"] == dice[(1, 2)] and shown["(1,3)"] == dice[(1, 3)]
    for vec in (observation_vector(st, 0), writer.vector(st, 0),
                spec.flatten({k: v for k, v in st.information_state_tensor(0).items() if k in spec.shapes})):
        die = spec.unflatten(vec)["var:die"]
        assert die[rows.index((1, 1))].tolist() == [0.0, 0.0]
        assert die[rows.index((1, 2))].tolist() == [1.0, dice[(1, 2)]]
        assert die[rows.index((1, 3))].tolist() == [1.0, dice[(1, 3)]]
    assert _shown_variables(spec, observation_vector(st, 0)) == _observed_variables(st, 0)
    assert not spec.unflatten(observation_vector(st, None))["var:die"].any()      # an onlooker was shown nothing


def test_tensors_show_the_variables_the_observation_shows_and_the_writer_follows(rulebook):
    """At every decision of random games of cups over three rounds (values revealed, then changed),
    the rows a seat's tensor shows are the variables its observation shows, and the writer's
    vectors equal the ones written whole."""
    rb = _cups_for_three_rounds(rulebook)
    spec = rb.observation_spec(2)
    revealed = 0
    for seed in range(4):
        _play_and_compare(rb, 2, seed, viewers_per_step=2)
        st = rb.new_game(2, seed, logging=False)
        rng = random.Random(seed)
        while True:
            for seat in (0, 1):
                assert _shown_variables(spec, observation_vector(st, seat)) == _observed_variables(st, seat)
            revealed += bool(st.known)
            if st.is_terminal():
                break
            st.apply_action(rng.choice(st.legal_actions()))
    assert revealed >= 4


def test_the_moves_journal_stays_bounded_and_the_writer_exact_across_trims(monkeypatch):
    """A tracked state's journal of moves (``State.moved``) is trimmed by the decisions once it
    holds more than ``2 * KEEP`` ids: over a whole game it never holds more than that plus what
    one decision moved.  The writer stays exact across the trims: a view that read every
    decision goes on from its place; one that fell behind the ids dropped is written whole."""
    from interpreter.engine.run.runtime import MoveJournal
    monkeypatch.setattr(MoveJournal, "KEEP", 6)
    rb = Rulebook.load(RULES / "moonlight_market")
    lay = rb.layout(2)
    for every in (1, 9):                    # the writer reads at every decision, or at every 9th
        writer = ObservationWriter(rb.game, lay)
        st = rb.new_game(2, 5, logging=False)
        rng = random.Random(5)
        writer.vector(st, 0)
        longest = most = turn = 0
        while not st.is_terminal():
            if turn % every == 0:
                assert np.array_equal(writer.vector(st, 0), observation_vector(st, 0)), (every, turn)
            end = st.moved.end()
            st.apply_action(rng.choice(st.legal_actions()))
            most = max(most, st.moved.end() - end)
            longest = max(longest, len(st.moved))
            turn += 1
        assert np.array_equal(writer.vector(st, 0), observation_vector(st, 0))
        assert st.moved.base > 20 * MoveJournal.KEEP and turn > 40
        assert longest <= 2 * MoveJournal.KEEP + most


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_written_over_equals_written_whole_in_many_games(game):
    rb = Rulebook.load(RULES / game)
    for players in GAMES[game]:
        for seed in range(2, 8):
            _play_and_compare(rb, players, seed, viewers_per_step=3)


def test_written_over_in_a_caller_s_row_equals_written_whole():
    """write_over keeps the writer's vector in the caller's row (a batch row): written over in place,
    it stays equal to the vector written whole; a row of another shape is refused."""
    rb = Rulebook.load(RULES / "moonlight_market")
    lay = rb.layout(3)
    writer = ObservationWriter(rb.game, lay)
    size = rb.observation_spec(3).size()
    batch = np.full((2, size + 1), 7.0, np.float32)
    rows = list(batch)
    st = rb.new_game(3, 4, logging=False)
    rng = random.Random(4)
    for turn in range(60):
        seat = st.current_player()
        writer.write_over(rows[turn % 2], st, seat)       # (a row it did not keep: written whole)
        writer.write_over(rows[turn % 2], st, seat)       # (the same row again: only what changed)
        assert (batch[turn % 2, :size] == observation_vector(st, seat)).all()
        st.apply_action(rng.choice(st.legal_actions()))
        writer.write_over(rows[turn % 2], st, seat)
        assert (batch[turn % 2, :size] == observation_vector(st, seat)).all(), turn
    with pytest.raises(ValueError, match="float32 of"):
        writer.write_over(np.zeros(size, np.float32), st, 0)
