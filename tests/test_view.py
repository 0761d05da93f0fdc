"""The view of a state for one seat, the `display:` hints, and the narration."""
import shutil
from collections import Counter

import pytest
from rich.console import Console

from conftest import RULES, game_folders
from interpreter.ai.bots import make_bots
from interpreter.cli import main
from interpreter.game import Rulebook
from interpreter.play.view import build_view
from interpreter.play.view.terminal import view_renderable

GAMES = [p.name for p in game_folders()]


def all_cells(view):
    fams = list(view["shared"]) + [f for p in view["players"] for f in p["families"]]
    for fam in fams:
        if fam["shape"] == "single":
            yield fam["zone"]
        elif fam["shape"] == "grid":
            yield from (c for row in fam["cells"] for c in row if c is not None)
        else:
            yield from fam["zones"]


def states(game, players=2, seed=4, every=9):
    rb = Rulebook.load(RULES / game)
    st = rb.new_game(players, seed)
    bots = make_bots("random", st.lay.num_seats, seed)
    n = 0
    while not st.is_terminal():
        if n % every == 0:
            yield st
        st.apply_action(bots[st.current_player()].choose(st))
        n += 1
    yield st


@pytest.mark.parametrize("game", GAMES)
def test_the_view_shows_exactly_what_the_observation_shows(game):
    for st in states(game):
        for seat in list(st.lay.seats) + [None]:
            obs = st.observation(seat)
            view = build_view(st, seat)
            seen = {}
            for cell in all_cells(view):
                seen[cell["name"]] = cell
            for name, content in obs["zones"].items():
                if name == "box" or name not in seen:
                    continue
                cell = seen[name]
                if isinstance(content, dict):
                    assert cell["hidden"] and cell["components"] == [] and cell["count"] == content["count"]
                else:
                    assert not cell["hidden"]
                    assert Counter(c["label"] for c in cell["components"]) == Counter(content)
            if seat is not None and seat == st.current_player():
                ids = [o["id"] for g in view["actions"] for o in g["options"]]
                assert sorted(ids) == sorted(st.legal_actions())
            else:
                assert view["actions"] == []


def test_azul_board_is_a_grid_under_each_player():
    st = Rulebook.load(RULES / "azul_summer_pavilion").new_game(3, 1)
    view = build_view(st, 0)
    assert [p["name"] for p in view["players"]] == ["Player 1", "Player 2", "Player 3"]
    board = next(f for f in view["players"][1]["families"] if f["name"] == "board")
    # the display hint: a row per star 0-6, a column per space 1-6 (components.yaml: s: 0..6, k: 1..6)
    assert board["shape"] == "grid" and board["rows"] == [str(s) for s in range(7)]
    assert board["columns"] == [str(k) for k in range(1, 7)]
    assert board["cells"][0][0]["name"] == "board[1, 0, 1]"
    factory = next(f for f in view["shared"] if f["name"] == "factory")
    assert factory["shape"] == "row" and len(factory["zones"]) == 7      # 7 factories for 3 players
    assert view["shared"][0]["name"] == "factory"                       # display: first
    assert view["round"] == 1 and view["phase"] == "take"


def test_a_click_hint_makes_zones_choose_actions():
    st = Rulebook.load(RULES / "azul_summer_pavilion").new_game(2, 1)
    view = build_view(st, st.current_player())
    for group in view["actions"]:
        for o in group["options"]:
            if group["action"] == "take_factory":
                assert o["zones"] == [f"factory[{o['params']['factory_no']}]"]
            else:
                assert o["zones"] == []


def test_enum_symbols_colour_components():
    st = Rulebook.load(RULES / "azul_summer_pavilion").new_game(2, 1)
    view = build_view(st, 0)
    comps = [c for cell in all_cells(view) for c in cell["components"]]
    reds = [c for c in comps if c["label"] == "red"]
    assert reds and all(c["color"] == "#d03c3c" and c["glyph"] == "R" for c in reds)   # display.yaml


def test_a_rulebook_without_hints_is_still_drawn(tmp_path):
    book = tmp_path / "yak"
    shutil.copytree(RULES / "yak", book)
    (book / "display.yaml").unlink()
    text = (book / "game.yaml").read_text().replace("  - display.yaml\n", "")
    (book / "game.yaml").write_text(text)
    st = Rulebook.load(book).new_game(2, 3)
    view = build_view(st, 0)
    tower = next(f for f in view["players"][0]["families"] if f["name"] == "tower")
    assert tower["shape"] == "grid" and tower["row_index"] == "r" and tower["column_index"] == "c"
    console = Console(width=100, record=True, color_system=None)
    console.print(view_renderable(view))
    text = console.export_text()
    for word in ("Yak", "Player 1", "Player 2", "tower", "cart stones", "hidden"):   # names as words
        assert word in text


def test_validate_reports_every_bad_display_name(tmp_path, capsys):
    book = tmp_path / "yak"
    shutil.copytree(RULES / "yak", book)
    d = book / "display.yaml"
    text = d.read_text()
    text = text.replace("first: [cart_stones", "first: [nope, cart_stones")
    text = text.replace("tower: {rows: r,", "tower: {rows: rr,")
    text = text.replace("    crystal: {", "    crystall: {")
    text = text.replace("index: [player, r, c]", "index: [player, r, x]")
    text = text.replace("round: day", "round: night")
    d.write_text(text)
    code = main(["validate", str(book)])
    out = capsys.readouterr().out
    assert code == 1
    assert out.count("[RW250]") == 5
    for word in ("'nope'", "'rr' is no index of tower", "'crystall' is no enum symbol",
                 "'x' is no parameter of place", "'night'"):
        assert word in out
    assert "display.yaml:4:" in out                           # located at the bad name


def test_play_narrates_every_decision_with_headers(capsys):
    code = main(["play", str(RULES / "azul_summer_pavilion"), "--players", "2", "--seed", "7"])
    out = capsys.readouterr().out
    assert code == 0
    ending = out.split("── final scoring ──")
    assert len(ending) == 2                             # then a line per seat with the score's parts
    told = [x for x in ending[0].splitlines() if x.startswith(("Player 1: ", "Player 2: "))]
    rb = Rulebook.load(RULES / "azul_summer_pavilion")
    st = rb.new_game(2, 7)
    bots = make_bots("random", 2, 7)
    n = 0
    while not st.is_terminal():
        st.apply_action(bots[st.current_player()].choose(st))
        n += 1
    assert len(told) == n
    # Azul has 6 rounds of a take and a place phase (flow.yaml)
    headers = [x for x in out.splitlines() if x.startswith("── ")]
    assert "── round 1 · phase take ──" in headers and "── round 6 · phase place ──" in headers
