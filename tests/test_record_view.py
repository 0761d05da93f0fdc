"""A seat's view at a stop, written from what changed (knowledge/record.py): the Recorder notes
the zones every move, shuffle and reordering touched, and its Viewer reads again only those
zones' labels.  The oracle is the view read whole (``record.view``) at every stop of random
games of every shipped game and every test rulebook, for every seat, and its zones are those
of the definition (labels where ``sees_zone``, else a count); zone_order moves
components under the others and to places within their own zone (no component comes or goes)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from interpreter.engine.knowledge.observe import sees_zone
from interpreter.engine.knowledge.record import Recorder, Viewer, view
from interpreter.game import Rulebook

from conftest import SHIPPED

ROOT = Path(__file__).resolve().parents[1]
BOOKS = sorted(p for p in (ROOT / "tests" / "rulebooks").iterdir() if (p / "game.yaml").exists()) + \
    [ROOT / "rules" / name for name in SHIPPED]


def _zones_by_definition(st, seat) -> tuple:
    """The zones part of a seat's view from the definition: every zone, those every seat always
    sees first, each as its labels where the seat sees it (``sees_zone``: its rule, or a reveal),
    else as how many it holds."""
    fams = st.game.zones
    always = [z for z in st.lay.zones if z.family == "box" or fams[z.family].visible_const is True]
    others = [z for z in st.lay.zones if not (z.family == "box" or fams[z.family].visible_const is True)]
    return tuple(tuple(c.label for c in st.z[z.id]) if z in always or sees_zone(st, z, seat) else len(st.z[z.id])
                 for z in always + others)


def _play_recorded(rb, players, seed, seat, decisions=250):
    """A random game with seat ``seat``'s Recorder attached from its first stop on: at every stop,
    (the view the recorder wrote, the view read whole)."""
    st = rb.new_game(players, seed, logging=True)
    rec = Recorder(seat)
    st.rec = rec
    rec.stop(st)
    assert rec.events[-1][1][1] == _zones_by_definition(st, seat)
    pairs = [(rec.events[-1], ("o", view(st, seat)))]
    pick = random.Random(seed)
    while st.status != "over" and len(pairs) <= decisions:
        opts = st.pending.options
        opt = opts[pick.randrange(len(opts))]
        rec.decided(st, st.pending.who, opt.id)
        st.apply(opt.id)
        rec.stop(st)
        assert rec.events[-1][1][1] == _zones_by_definition(st, seat)
        pairs.append((rec.events[-1], ("o", view(st, seat))))
    return pairs


def _seeded(books):
    """Each book with its first seeds (seat k plays seed k) and its second (100 + k); the shipped
    games run in the slow suite (their whole reading at every stop is the slow part: Yak's took
    4 s of the default run), the test rulebooks in the default one."""
    for b in books:
        shipped = [pytest.mark.slow] if b.parent.name == "rules" else []
        yield pytest.param(b, 0, id=f"{b.name}-0", marks=shipped)
        yield pytest.param(b, 100, id=f"{b.name}-100", marks=shipped)


@pytest.mark.parametrize("book,base", list(_seeded(BOOKS)))
def test_the_view_written_from_the_changes_is_the_view_read_whole(book, base):
    rb = Rulebook.load(book)
    players = rb.game.min_players if book.parent.name == "rulebooks" else max(rb.game.min_players, 3)
    seats = rb.layout(players).num_seats
    for seat in range(seats):
        for seed in (base + seat,):
            for k, (written, whole) in enumerate(_play_recorded(rb, players, seed, seat)):
                assert written == whole, f"{book.name}, seat {seat}, seed {seed}: stop {k}"


def test_zone_order_reorders_are_seen():
    """Every action of zone_order changes only the deck's order (or moves through aside): the
    written view follows each one — without the Recorder's reordering hook the deck's labels
    would stay those of the last view."""
    rb = Rulebook.load(ROOT / "tests" / "rulebooks" / "zone_order")
    st = rb.new_game(1, 0, logging=True)
    rec = Recorder(0)
    st.rec = rec
    rec.stop(st)
    deck = next(z.id for z in st.lay.zones if z.name == "deck")
    place = Viewer(st, 0).open.index(deck)
    seen = []
    for action in ("roll_top", "top_under_one", "roll_top_via_aside", "aside_at(k=2)", "roll_top"):
        st.apply(action)
        rec.stop(st)
        written = rec.events[-1][1]
        assert written == Viewer(st, 0)(st), action
        seen.append(written[1][place])
    assert len(set(seen)) > 1, seen         # the deck's order did change along the way


@pytest.mark.parametrize("book", BOOKS, ids=[b.name for b in BOOKS])
def test_pins_noted_from_the_changes_are_those_of_every_seen_zone(book, monkeypatch):
    """What the seat came to see of chance (the pins a world keeps), noted at each stop from the
    zones that changed since the last one, equals what reading every zone it sees gives."""
    from interpreter.engine.knowledge.worlds import trajectory
    rb = Rulebook.load(book)
    players = rb.game.min_players if book.parent.name == "rulebooks" else max(rb.game.min_players, 3)
    seats = rb.layout(players).num_seats
    for seed in (0, 1):
        st = rb.new_game(players, seed, logging=False)
        pick = random.Random(seed)
        while st.status != "over" and len(st._history) < 60:
            st.apply_index(pick.randrange(len(st.pending.raw)))
        for seat in range(seats):
            noted = trajectory(st, seat).pins
            with monkeypatch.context() as m:
                whole = Recorder._saw_at_stop

                def every_zone(rec, s, changed, whole=whole):
                    rec.seen_zones = set()          # nothing counts as noted before: every seen zone read
                    whole(rec, s, set())
                m.setattr(Recorder, "_saw_at_stop", every_zone)
                assert trajectory(st, seat).pins == noted, (book.name, seed, seat)


OPEN_SHUFFLE = """\
regelwerk: 1
game: {name: Open shuffle, players: {min: 1, max: 1}}
components:
  card:
    attributes: {n: int}
    items: [{for_each: {n: "1..4"}, count: 1}]
    label: "c{n}"
    home: row
zones:
  row: {holds: [card]}
variables:
  done: false
actions:
  mix:
    do: [{shuffle: row}]
  stop:
    do: [{set: "done = true"}]
flow:
  - while: "not done"
    do:
      - decide: [mix, stop]
        who: 0
end: {score: "0"}
"""


def test_a_seen_zone_shuffled_in_place_has_its_components_seen_again(tmp_path):
    """A zone every seat sees, shuffled while nothing comes or goes: after each shuffle the seat
    sees where each component went, so every one of them is pinned to the last shuffle (the
    zone changed; it is read again although the seat saw it at the last stop too)."""
    from interpreter.engine.knowledge.worlds import trajectory
    (tmp_path / "game.yaml").write_text(OPEN_SHUFFLE)
    rb = Rulebook.load(tmp_path)
    st = rb.new_game(1, 3, logging=False)
    st.apply("mix")
    st.apply("mix")
    real = trajectory(st, 0)
    shuffles = [k for k, e in enumerate(real.events) if e[0] == "s"]
    assert len(shuffles) == 2
    last = shuffles[-1]
    cards = {c.id for c in st.lay.components if c.kind == "card"}
    assert real.pins.get(last) == cards


def test_one_viewer_for_two_states_reads_the_second_whole():
    """A Viewer asked about another state object than its last one reads it whole (nothing of
    the first state's view is kept): two new games of Iquazú, their visibility the same (the water
    frame where it starts), the seat's hand not."""
    rb = Rulebook.load(ROOT / "rules" / "iquazu")
    a, b = rb.new_game(3, 1, logging=True), rb.new_game(3, 2, logging=True)
    viewer = Viewer(a, 1)
    assert viewer(a, set()) == view(a, 1)
    assert viewer(a, set()) == view(a, 1)
    assert viewer(b, set()) == view(b, 1) != view(a, 1)
    assert viewer(a, set()) == view(a, 1)


def test_the_values_part_is_each_seen_variable_as_it_is_now():
    """The view's variables: every slot a seat always sees, in the layout's order, as it is —
    read in one call (``_ViewPlan.shown_get``) — and a value that cannot be kept as it is (a
    list: a later change in place would change the record) as the text it has now.  tiny_duel's
    variables (the die, both scores) are seen by every seat."""
    from interpreter.engine.run.values import format_value, plain
    rb = Rulebook.load(ROOT / "tests" / "rulebooks" / "tiny_duel")
    st = rb.new_game(2, 4, logging=True)
    st.apply_index(0)
    slots = [var.offset for var in st.game.scalar_vars] + \
        [at for var in st.game.family_vars for at in st.lay.vkeys[var.family_id].values()]
    assert len(slots) == 3
    for seat in (0, 1):
        assert view(st, seat)[2] == tuple(st.v[at] for at in slots)
    held = [1, [2, 3]]
    st.v[slots[0]] = held
    before = view(st, 0)
    assert before[2] == (format_value(plain(held, format_value)),) + tuple(st.v[at] for at in slots[1:])
    held[1].append(4)                       # changed in place: the view written before stays as it was
    assert view(st, 0) != before and before[2][0] == format_value(plain([1, [2, 3]], format_value))


def test_a_decision_taken_as_recorded_is_the_records_next_event_or_a_mismatch():
    """``Recorder.decided_as_recorded`` (a world's replay taking the real game's option): the
    record's next event must be a decision, which it passes without writing the id again; any
    other event there, or the record's end, is a mismatch."""
    from interpreter.engine.knowledge.record import Mismatch
    record = (("o", 1), ("d", 0, "play(card=1)"), ("o", 2))
    rec = Recorder(0, expect=record)
    with pytest.raises(Mismatch):
        rec.decided_as_recorded()           # the record's next event is a view, not a decision
    rec.at = 1
    rec.decided_as_recorded()
    assert rec.at == 2
    rec.at = 3
    with pytest.raises(Mismatch):
        rec.decided_as_recorded()           # past the record's end
