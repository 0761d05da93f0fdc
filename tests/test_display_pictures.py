"""Pictures, boards and score tracks of `display:` (issue 30): a picture is read only from inside its
rulebook folder and every bad one is a located error (RW257); boards place zones at points of a
picture (RW258); a score track shows each seat's number as a marker (RW259).  The server's side is
in tests/test_serve.py (test_only_declared_pictures_are_served).  Cheap: one small rulebook."""
import os
import re
import shutil
from pathlib import Path

import pytest

from interpreter.cli import main
from interpreter.game import Rulebook, RulebookError, check_rulebook
from interpreter.play.view import build_view
from interpreter.play.view.compact import compact_screen

GARDEN = Path(__file__).parent / "rulebooks" / "garden_path"


@pytest.fixture
def book(tmp_path):
    """A copy of the garden path in tmp_path/book, with a file outside it (tmp_path/secret.svg)."""
    dest = tmp_path / "book"
    shutil.copytree(GARDEN, dest)
    (tmp_path / "secret.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    return dest


def _display(book, old, new):
    d = book / "display.yaml"
    text = d.read_text()
    assert old in text, old
    d.write_text(text.replace(old, new))


def _line_col(book, needle):
    """line and column (1-based) of ``needle`` in display.yaml: where the error must point."""
    for i, line in enumerate((book / "display.yaml").read_text().splitlines(), 1):
        if needle in line:
            return i, line.index(needle) + 1
    raise AssertionError(needle)


def test_bad_picture_paths_are_located_errors_every_one_reported(book, tmp_path, capsys):
    os.symlink(tmp_path / "secret.svg", book / "images" / "link.svg")          # a link out of the folder
    os.mkfifo(book / "images" / "pipe.svg")                                    # would block a reader
    os.symlink(book / "images" / "loop.svg", book / "images" / "loop.svg")    # a link loop
    _display(book, "red: images/seed-red.svg", "red: ../secret.svg")
    _display(book, "blue: images/seed-blue.svg", "blue: images/link.svg")
    _display(book, "image: images/pawn.svg", "image: images/missing.svg")
    _display(book, "image: images/garden.svg", "image: images/pipe.svg")
    (book / "display.yaml").write_text((book / "display.yaml").read_text().replace(
        "      seat: true\n", "      seat: true\n      image: /etc/hosts.svg\n"))
    code = main(["validate", str(book)])
    out = capsys.readouterr().out
    assert code == 1
    assert out.count("[RW257]") == 5, out
    shown = os.path.relpath(book / "display.yaml")
    for needle, why in [("../secret.svg", "picture '../secret.svg' leaves the rulebook folder"),
                        ("images/link.svg", "picture 'images/link.svg' leaves the rulebook folder (a link out"),
                        ("images/missing.svg", "picture 'images/missing.svg' does not exist"),
                        ("images/pipe.svg", "picture 'images/pipe.svg' is not a regular file"),
                        ("/etc/hosts.svg", "picture '/etc/hosts.svg' leaves the rulebook folder")]:
        line, col = _line_col(book, needle)
        assert f"{shown}:{line}:{col}: error: display: {why}" in out, (why, out)
    assert "secret" not in out.replace("../secret.svg", "")     # the file outside is never read or quoted
    # playing loads it too: the same errors stop it (the pictures are checked on every load, not cached)
    with pytest.raises(RulebookError):
        Rulebook.load(book)
    _display(book, "image: images/pipe.svg", "image: images/loop.svg")
    report, _ = check_rulebook(book, semantic=False)
    assert any("picture 'images/loop.svg' leaves the rulebook folder" in d.message for d in report.items)


def test_a_picture_must_be_a_small_picture_file(book, capsys):
    (book / "images" / "notes.txt").write_text("not a picture")
    (book / "images" / "huge.png").write_bytes(b"\0" * 2_000_001)
    _display(book, "image: images/pawn.svg", "image: images/notes.txt")
    _display(book, "image: images/garden.svg", "image: images/huge.png")
    assert main(["validate", str(book)]) == 1
    out = capsys.readouterr().out
    assert "'images/notes.txt' is no picture: its name must end in .svg, .png" in out
    assert "picture 'images/huge.png' has 2,000,001 bytes; at most 2,000,000 are allowed" in out


def test_names_in_pictures_and_boards_are_checked(book, capsys):
    _display(book, "image: {color: {red:", "image: {colour: {red:")
    _display(book, "pawn: {color: owner, image: images/pawn.svg}",
             "pawn: {color: owner, image: images/pawn.svg}\n    seed2: {image: images/pawn.svg}")
    _display(book, '"1": [150, 100]', '"1": [150, 100], "2,1": [1, 1], "7": [800, 10]')
    _display(book, "        basket: [100, 50]", "        basket: [100, 50]\n        bed: [1, 1]\n"
                                                "        supply: [1, 1]\n        baskets: [1, 1]")
    code = main(["validate", str(book)])
    out = capsys.readouterr().out
    assert code == 1
    assert out.count("[RW257]") == 1 and out.count("[RW256]") == 1 and out.count("[RW258]") == 5, out
    for words in ("image of seed: 'colour' is no attribute of seed",
                  "'seed2', which is no component kind",
                  "a space of bed is named by 1 index value (k), not 2: '2,1'",
                  "(800, 10) lies off board garden (its size: 700 × 200)",
                  "bed lies on board garden already",
                  "board basket_board is a player board (seat: true), and supply has no player index",
                  "board basket_board names 'baskets', which is no zone family"):
        assert words in out, (words, out)
    line, col = _line_col(book, "'2,1'".strip("'"))
    assert f"display.yaml:{line}:{col - 1}: error: display: a space of bed" in out


@pytest.mark.parametrize("of, why", [
    ("bed_color", "bed_color must take one parameter, a player"),
    ("beds", "'beds' is no variable or function"),
    # a function of a player is shown only when it reads what every seat sees: no zone
    ("at", "at reads bed"),
])
def test_a_score_track_shows_a_number_per_seat(book, capsys, of, why):
    _display(book, "score_track: {of: score,", f"score_track: {{of: {of},")
    assert main(["validate", str(book)]) == 1
    out = capsys.readouterr().out
    line, col = _line_col(book, f"{{of: {of}") 
    assert f"display.yaml:{line}:{col + 5}: error: display: score_track: {why}" in out, out


def test_the_schema_checks_the_new_fields(book, capsys):
    _display(book, "size: [700, 200]", "size: [700]")
    _display(book, "length: 20", "length: 1, colour: red")
    assert main(["validate", str(book)]) == 1
    out = capsys.readouterr().out
    assert "[700] is too short [RW010]" in out and "1 is less than the minimum of 2 [RW010]" in out
    assert "'colour' was unexpected" in out or "colour" in out.split("less than the minimum")[1], out
    errors = [line for line in out.splitlines() if ": error: " in line]
    assert len(errors) == 3 and all(re.match(r"\S+:\d+:\d+: error: ", line) for line in errors), out


def test_the_view_lays_zones_on_boards_and_marks_scores_on_the_track():
    rb = Rulebook.load(GARDEN)
    st = rb.new_game(2, 1)
    for a in ["step(k=2)", "step(k=1)", "step(k=4)"]:
        st.apply_action(a)
    view = build_view(st, 1)
    # score: seat 0 on beds 2 and 4 (2 + 4), seat 1 on bed 1
    (track,) = view["score_tracks"]
    assert track["title"] == "Score track" and track["length"] == 20 and track["start"] == 0
    assert [(m["seat"], m["value"], m["space"], m["laps"]) for m in track["markers"]] == [(0, 6, 6, 0), (1, 1, 1, 0)]
    assert [m["color"] for m in track["markers"]] == view["seat_colors"][:2]
    boards = {b["name"]: b for b in view["boards"]}
    folder = boards["garden"]["image"].split("/")[2]
    assert boards["garden"] == {"name": "garden", "title": "The garden path", "size": [700, 200], "seat": False,
                                "image": f"/images/{folder}/images/garden.svg"}
    assert boards["basket_board"]["image"] is None and boards["basket_board"]["seat"] is True
    bed = next(f for f in view["shared"] if f["name"] == "bed")
    assert bed["board"] == "garden"
    # bed k at (50 + 100 k, 100) on a 700 × 200 picture: per cent of its width and height
    assert [(z["name"], z["pos"]) for z in bed["zones"][:3]] == [("bed[0]", [7.14, 50.0]), ("bed[1]", [21.43, 50.0]),
                                                                 ("bed[2]", [35.71, 50.0])]
    pawns = [c for z in bed["zones"] for c in z["components"]]
    assert {c["image"] for c in pawns} == {f"/images/{folder}/images/pawn.svg"}
    for p in view["players"]:
        basket = next(f for f in p["families"] if f["name"] == "basket")
        assert basket["board"] == "basket_board" and basket["pos"] == [50.0, 50.0]
    # a picture per value: seat 0 took blue seeds (beds 2, 4), seat 1 a red one (bed 1)
    seeds = {c["label"]: c["image"] for p in view["players"] for f in p["families"] for c in f["zone"]["components"]}
    assert seeds == {"blue": f"/images/{folder}/images/seed-blue.svg", "red": f"/images/{folder}/images/seed-red.svg"}
    # the terminal keeps glyphs and says the track in a line
    lines = [x.plain for x in compact_screen(view, 80, 24)]
    assert "Score track (0–19): Player 1 6 · Player 2 1" in lines
    assert "/images/" not in "\n".join(lines)


def test_a_score_past_the_last_space_goes_round_again(book):
    _display(book, "length: 20", "length: 5, start: 1")
    st = Rulebook.load(book).new_game(2, 1)
    for a in ["step(k=2)", "step(k=1)", "step(k=4)"]:
        st.apply_action(a)
    (track,) = build_view(st, 0)["score_tracks"]
    # spaces 1..5: 6 is space 1 of the second round, 1 is space 1 of the first
    assert [(m["value"], m["space"], m["laps"]) for m in track["markers"]] == [(6, 1, 1), (1, 1, 0)]
    lines = [x.plain for x in compact_screen(build_view(st, 0), 80, 24)]
    assert "Score track (1–5): Player 1 6 (space 1, round 2) · Player 2 1" in lines


def test_a_track_of_a_hidden_variable_shows_only_what_the_seat_sees(book):
    game = book / "game.yaml"
    game.write_text(game.read_text().replace("score: {index: {p: players}, init: 0}",
                                             'score: {index: {p: players}, init: 0, visible: "viewer == p"}'))
    st = Rulebook.load(book).new_game(2, 1)
    st.apply_action("step(k=2)")
    (track,) = build_view(st, 1)["score_tracks"]
    assert [(m["seat"], m["value"]) for m in track["markers"]] == [(1, 0)]
    assert [(m["seat"], m["value"]) for m in build_view(st, 0)["score_tracks"][0]["markers"]] == [(0, 2)]


def test_a_picture_removed_after_a_clean_validate_is_still_found(book, tmp_path, monkeypatch, capsys):
    # the semantic checks' findings are remembered per rulebook text; the pictures are checked on every
    # load, so a file that went away (the text unchanged) is reported the next time
    monkeypatch.setenv("REGELWERK_CACHE", "1")
    monkeypatch.setenv("REGELWERK_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["validate", str(book)]) == 0
    (book / "images" / "pawn.svg").unlink()
    assert main(["validate", str(book)]) == 1
    assert "picture 'images/pawn.svg' does not exist [RW257]" in capsys.readouterr().out
