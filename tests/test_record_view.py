"""A seat's view at a stop, written from what changed (knowledge/record.py): the Recorder notes
the zones every move, shuffle and reordering touched, and its Viewer reads again only those
zones' labels.  The oracle is the view read whole (``record.view``) at every stop of random
games of every shipped game and every test rulebook, for every seat; zone_order moves
components under the others and to places within their own zone (no component comes or goes)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from interpreter.engine.knowledge.record import Recorder, Viewer, view
from interpreter.game import Rulebook

from conftest import SHIPPED

ROOT = Path(__file__).resolve().parents[1]
BOOKS = sorted(p for p in (ROOT / "tests" / "rulebooks").iterdir() if (p / "game.yaml").exists()) + \
    [ROOT / "rules" / name for name in SHIPPED]


def _play_recorded(rb, players, seed, seat, decisions=250):
    """A random game with seat ``seat``'s Recorder attached from its first stop on: at every stop,
    (the view the recorder wrote, the view read whole)."""
    st = rb.new_game(players, seed, logging=True)
    rec = Recorder(seat)
    st.rec = rec
    rec.stop(st)
    pairs = [(rec.events[-1], ("o", view(st, seat)))]
    pick = random.Random(seed)
    while st.status != "over" and len(pairs) <= decisions:
        opts = st.pending.options
        opt = opts[pick.randrange(len(opts))]
        rec.decided(st, st.pending.who, opt.id)
        st.apply(opt.id)
        rec.stop(st)
        pairs.append((rec.events[-1], ("o", view(st, seat))))
    return pairs


@pytest.mark.parametrize("book", BOOKS, ids=[b.name for b in BOOKS])
def test_the_view_written_from_the_changes_is_the_view_read_whole(book):
    rb = Rulebook.load(book)
    players = rb.game.min_players if book.parent.name == "rulebooks" else max(rb.game.min_players, 3)
    seats = rb.layout(players).num_seats
    for seat in range(seats):
        for seed in (seat, 100 + seat):
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
