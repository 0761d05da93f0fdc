"""A view made with a ViewCache (a table's: families reused where their zones show what they
showed before; every other step from the seats' observations made together, as a table makes them)
equals the view made from scratch (``build_view`` without one), for every seat and
an onlooker, at every state of whole random games of every shipped game, and after going back
(an undo, a past state drawn with the same cache)."""
import json
import random
from pathlib import Path

import pytest

from conftest import RULES
from interpreter.game import Rulebook
from interpreter.game import types as T
from interpreter.play.view import build_view
from interpreter.play.view.model import ViewCache, maker_for

try:
    import orjson
except ImportError:                      # the web extra's encoder: the packed views are checked with it
    orjson = None


def _fragment(data):
    return orjson.Fragment(orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS))

GAMES = {"azul_summer_pavilion": (2, 4), "iquazu": (2, 4), "moonlight_market": (2, 5), "yak": (2, 4)}
#: test rulebooks with what no shipped game has: reveals, hidden values, covered grid cells, `display:` hints
OTHERS = ["knowledge", "sealed_offers", "cups", "hidden_die", "domino_kingdom", "hex_garden", "patch_quilt", "hints"]


def _same(got, want, where):
    if got != want:
        a, b = json.dumps(got, sort_keys=True, default=str), json.dumps(want, sort_keys=True, default=str)
        i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
        raise AssertionError(f"{where}: the cached view differs at …{a[max(0, i - 80):i + 80]}… "
                             f"(from scratch: …{b[max(0, i - 80):i + 80]}…)")


def _play(rb, players, seed, back=True) -> int:
    """One whole random game; at every state every seat's and an onlooker's view made with the
    table's cache equals the one made from scratch.  Now and then a past state is drawn with the
    same cache (a page asking ``?at=N``), and once the game goes back some decisions (an undo)."""
    st = rb.new_game(players, seed, logging=False)
    rng = random.Random(seed)
    cache = ViewCache()
    viewers = list(range(players)) + [None]
    past = [st.clone()]
    checked = 0
    went_back = not back
    step = 0
    while True:
        together = st.observations(viewers, history=False) if step % 2 else {}   # as a table makes them (Table.observed)
        for viewer in viewers:
            got, want = build_view(st, viewer, cache, together.get(viewer)), build_view(st, viewer)
            where = f"{rb.game.name} {players}p seed {seed} step {step} viewer {viewer}"
            _same(got, want, where)
            if orjson is not None:       # as the server sends it: unchanged families encoded once (packed)
                sent = orjson.loads(orjson.dumps(cache.packed(got, _fragment), option=orjson.OPT_NON_STR_KEYS))
                _same(sent, orjson.loads(orjson.dumps(want, option=orjson.OPT_NON_STR_KEYS)), where + " (packed)")
            checked += 1
        if step % 11 == 5 and len(past) > 3:
            old = past[rng.randrange(len(past))]
            viewer = rng.choice(viewers)
            _same(build_view(old, viewer, cache), build_view(old, viewer), f"{rb.game.name} past state, viewer {viewer}")
        if st.is_terminal():
            return checked
        if not went_back and step > 20 and rng.random() < 0.1:
            st = past[-4].clone()               # an undo: three decisions taken back
            past = past[:-3]
            went_back = True
        else:
            st.apply_action(rng.choice(st.legal_actions()))
            past.append(st.clone())
        step += 1


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_cached_views_equal_views_from_scratch_over_whole_games(game):
    rb = Rulebook.load(RULES / game)
    assert _play(rb, GAMES[game][0], 1) > 100


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_cached_views_equal_views_from_scratch_with_the_most_players(game):
    rb = Rulebook.load(RULES / game)
    assert sum(_play(rb, GAMES[game][1], seed) for seed in (2, 3)) > 200


@pytest.mark.parametrize("book", OTHERS)
def test_cached_views_equal_views_from_scratch_with_reveals_grids_and_hints(book):
    folder = Path(__file__).parent / "rulebooks" / book
    rb = Rulebook.load(folder)
    assert _play(rb, 2, 3) > 0


def test_a_family_whose_zones_did_not_change_is_not_made_again():
    """What makes the cache worth having: after a decision, most families are the same dicts."""
    rb = Rulebook.load(RULES / "yak")
    st = rb.new_game(4, 5, logging=False)
    cache = ViewCache()
    before = build_view(st, 1, cache)
    st.apply_action(random.Random(5).choice(st.legal_actions()))
    after = build_view(st, 1, cache)
    fams = lambda v: [f for f in v["shared"]] + [f for p in v["players"] for f in p["families"]]  # noqa: E731
    kept = sum(a is b for a, b in zip(fams(before), fams(after)))
    assert kept >= len(fams(after)) - 6
    # and a public family is made once for every seat that sees it alike
    other = build_view(st, 2, cache)
    tower = [f for f in other["players"][3]["families"] if f["name"] == "tower"]
    assert tower and tower[0] is [f for f in after["players"][3]["families"] if f["name"] == "tower"][0]


def test_a_cache_shown_a_game_of_another_layout_starts_again():
    """The hot-seat page's cache outlives its game: a new game of other players has other zones."""
    rb = Rulebook.load(RULES / "yak")
    cache = ViewCache()
    for players in (4, 2, 3, 4):
        st = rb.new_game(players, players, logging=False)
        for viewer in list(range(players)) + [None]:
            _same(build_view(st, viewer, cache), build_view(st, viewer), f"yak {players}p viewer {viewer}")


def test_variables_are_read_again_when_a_value_reads_differently():
    """The variables' lines are kept while the values shown are the same; ``1``, ``1.0`` and
    ``True`` are equal in Python but read "1", "1.0", "yes": a change between them is drawn anew."""
    rb = Rulebook.load(RULES / "moonlight_market")
    st = rb.new_game(2, 5, logging=False)
    cache = ViewCache()
    first = build_view(st, 0, cache)
    again = build_view(st, 1, cache)
    assert again["variables"] is first["variables"]          # the same values: the same lines
    hints = maker_for(st).hints
    var = next(v for v in st.game.scalar_vars if v.visible_const is True and v.type == T.INT
               and v.name != hints.round and v.name not in hints.hide and v.name not in hints.values)
    for value in (1, 1.0, True, 1):
        st.v[var.offset] = value
        got, want = build_view(st, 0, cache), build_view(st, 0)
        _same(got, want, f"{var.name} = {value!r}")
        line = next(x for x in got["variables"] if x["name"] == var.name)
        assert line["value"] == {int: "1", float: "1.0", bool: "yes"}[type(value)]
