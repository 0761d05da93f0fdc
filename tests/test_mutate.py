"""regelwerk mutate: seeded one-point changes of a rulebook's text (interpreter/tools/mutate.py)."""
import json
import shutil
from pathlib import Path

import yaml

import argparse

from interpreter.cli import _Parser
from interpreter.tools.mutate import add_parser, enumerate_mutants, format_text, mutate, sample

from test_coverage import BOOK, MISSING

ROOT = Path(__file__).parent.parent


def _else_line(m):
    return m.file == "game.yaml" and m.line == 17 and m.kind == "int"


def test_a_mutation_of_the_untested_branch_survives_and_the_missing_scenario_kills_it(tmp_path):
    run = mutate(BOOK, only=_else_line)
    assert {(m.before, m.after) for m in run.survivors()} == {
        ("points[player] += n + 1", "points[player] += n + 0"),
        ("points[player] += n + 1", "points[player] += n + 2")}
    text = format_text(run)
    assert "game.yaml:17:41: survived: points[player] += n + 1 → points[player] += n + 2" in text
    assert "killed 0" in text and "kill rate 0.0% of 2 non-equivalent" in text

    book = tmp_path / "book"
    shutil.copytree(BOOK, book)
    (book / "scenarios" / "02_take_less.yaml").write_text(MISSING)
    run = mutate(book, only=_else_line)
    assert run.survivors() == []
    assert run.counts()["scenarios"] == 2 and run.kill_rate() == 100.0


def test_an_equivalent_mark_stops_the_report(tmp_path):
    book = tmp_path / "book"
    shutil.copytree(BOOK, book)
    game = book / "game.yaml"
    lines = game.read_text().split("\n")
    lines[16] += "  # mutate: equivalent only for this test"
    game.write_text("\n".join(lines))
    run = mutate(book, only=_else_line)
    assert run.counts()["equivalent"] == 2 and run.survivors() == []
    assert {r.detail for r in run.results.values()} == {"only for this test"}


def test_the_sample_is_reproducible_and_a_state_file_resumes(tmp_path):
    mutants, _ = enumerate_mutants(BOOK)
    assert [m.id for m in sample(mutants, 5, 3)] == [m.id for m in sample(mutants, 5, 3)]
    assert [m.id for m in sample(mutants, 5, 3)] != [m.id for m in sample(mutants, 5, 4)]
    state = tmp_path / "state.jsonl"
    first = mutate(BOOK, 6, seed=2, state=str(state))
    assert len(state.read_text().splitlines()) == 6
    calls = []
    again = mutate(BOOK, 6, seed=2, state=str(state), progress=lambda done, total: calls.append(done))
    assert calls == [] and again.counts() == first.counts()
    parallel = mutate(BOOK, 6, seed=2, jobs=2)
    assert {k: r.stage for k, r in parallel.results.items()} == {k: r.stage for k, r in first.results.items()}


def test_mutants_of_every_kind_are_written_where_the_loader_located_them():
    mutants, _ = enumerate_mutants(ROOT / "rules" / "moonlight_market")
    kinds = {m.kind for m in mutants}
    assert kinds >= {"int", "cmp", "logic", "not", "minmax", "bool", "zone", "delete", "swap"}
    texts = {}
    for m in mutants:
        path = ROOT / "rules" / "moonlight_market" / m.file
        text = texts.setdefault(m.file, path.read_text())
        if m.kind in ("int", "cmp", "logic", "minmax", "bool", "zone"):
            assert m.replacement in m.after
        mutated = text[:m.start] + m.replacement + text[m.end:]
        assert mutated != text
        if m.kind in ("delete", "swap"):
            yaml.safe_load(mutated)      # still YAML: whole lines moved or removed


def main(argv):
    parser = _Parser(prog="regelwerk")
    add_parser(parser.add_subparsers(dest="command", parser_class=_Parser))
    args = parser.parse_args(argv)
    return args.func(args)


def test_cli_lists_and_reports(capsys):
    assert main(["mutate", str(BOOK), "--only", "game.yaml:17", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    # 2 int, 2 arith, 2 index (points[player ± 1]) and the only step of `else:` deleted
    assert len(out) == 7 and sum(":17:41: int: " in line for line in out) == 2
    assert any(":17:13: delete: - set: \"points[player] += n + 1\" → (only step deleted: [])" in line for line in out)
    assert any(":17:32: index: points[player] += n + 1 → points[player + 1] += n + 1" in line for line in out)
    # arith: += ↔ -= and + ↔ - (written between blanks)
    assert any(":17:34: arith: points[player] += n + 1 → points[player] -= n + 1" in line for line in out)
    assert any(":17:39: arith: points[player] += n + 1 → points[player] += n - 1" in line for line in out)
    assert main(["mutate", str(BOOK), "--only", "game.yaml:17", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["counts"]["survived"] == 5 and data["sampled"] == 7
    assert data["counts"]["check"] == 2        # points[player ± 1]: seat 1 (or 0) has no points[2] (or [-1])


def test_an_equivalent_mark_can_name_kinds_or_columns(tmp_path):
    book = tmp_path / "book"
    shutil.copytree(BOOK, book)
    game = book / "game.yaml"
    lines = game.read_text().split("\n")
    lines[12] += "  # mutate: equivalent(cmp) only the comparison, for this test"     # line 13: if n == 3
    game.write_text("\n".join(lines))
    _, equivalent = enumerate_mutants(book)
    assert {m.split(":")[3] for m in equivalent} == {"cmp"}
    lines[12] = lines[12].split("  #")[0] + "  # mutate: equivalent(19) the 3 only"
    game.write_text("\n".join(lines))
    _, equivalent = enumerate_mutants(book)
    assert sorted(m.split(":", 4)[4] for m in equivalent) == ["n == 3→n == 2", "n == 3→n == 4"]


def test_an_equivalent_mark_can_name_one_replacement(tmp_path):
    book = tmp_path / "book"
    shutil.copytree(BOOK, book)
    game = book / "game.yaml"
    lines = game.read_text().split("\n")
    lines[12] += "  # mutate: equivalent(13:19=4) only n == 4, for this test"
    game.write_text("\n".join(lines))
    _, equivalent = enumerate_mutants(book)
    assert [m.split(":", 4)[4] for m in equivalent] == ["n == 3→n == 4"]


def test_a_state_file_counts_only_for_the_same_rulebook(tmp_path):
    book = tmp_path / "book"
    shutil.copytree(BOOK, book)
    state = tmp_path / "state.jsonl"
    mutate(book, only=_else_line, state=str(state))
    calls = []
    game = book / "game.yaml"
    game.write_text(game.read_text().replace("take(n=1) is always legal, so", "take(n=1) is legal, so"))
    mutate(book, only=_else_line, state=str(state), progress=lambda d, t: calls.append(d))
    assert calls == []                      # a mark's text changed: still the same rulebook
    (book / "scenarios" / "02_take_less.yaml").write_text(MISSING)
    run = mutate(book, only=_else_line, state=str(state), progress=lambda d, t: calls.append(d))
    assert calls == [1, 2] and run.counts()["scenarios"] == 2     # a new scenario: run again


def test_verify_marks_reports_a_wrong_mark(tmp_path, capsys):
    # line 17 (points += n + 1) marked equivalent: its mutants n + 0 and n + 2 change the scores,
    # which side-by-side play finds; each is a wrong mark, located, and counted as a survivor
    book = tmp_path / "book"
    shutil.copytree(BOOK, book)
    game = book / "game.yaml"
    lines = game.read_text().split("\n")
    lines[16] += "  # mutate: equivalent a deliberately wrong mark"
    game.write_text("\n".join(lines))
    trusted = mutate(book, only=_else_line)
    assert trusted.counts()["equivalent"] == 2 and trusted.wrong_marks() == []
    run = mutate(book, only=_else_line, verify_marks=2)
    assert len(run.wrong_marks()) == 2 and run.counts()["survived"] == 2 and run.kill_rate() == 0.0
    # the points are a visible variable: a seat is shown them differently before the scores differ
    assert all("is shown variables 'points'" in run.results[m.id].detail for m in run.wrong_marks())
    from interpreter.cli import main
    assert main(["mutate", str(book), "--only", "game.yaml:17"]) == 0     # verifying is the default
    out = capsys.readouterr().out
    assert f"{book}/game.yaml:17:41: wrong mark: points[player] += n + 1 → points[player] += n + 0: " in out
    assert "marks: 0 verified, 7 wrong" in out      # two int, two arith, two index, the only step deleted
    assert main(["mutate", str(book), "--only", "game.yaml:17", "--trust-marks"]) == 0
    assert "wrong mark" not in capsys.readouterr().out


def test_side_by_side_finds_no_difference_between_a_rulebook_and_itself():
    from interpreter.game import Rulebook
    from interpreter.tools.mutate import side_by_side
    rb = Rulebook.load(BOOK)
    assert side_by_side(rb, Rulebook.load(BOOK), 3) == ""


def test_a_rulebook_edited_after_listing_its_mutants_stops_the_run(tmp_path):
    # a mutant's place is an offset in the text listed: editing the file meanwhile (a mark
    # added during a long run) would write the change in the wrong place; it is refused instead
    import pytest
    from interpreter.tools.mutate import RulebookChanged, run_mutant
    book = tmp_path / "book"
    shutil.copytree(BOOK, book)
    mutants, _ = enumerate_mutants(book)
    m = next(m for m in mutants if m.file == "game.yaml" and m.line == 17 and m.kind == "int")
    assert run_mutant(str(book), m).stage == "survived"
    game = book / "game.yaml"
    game.write_text("# a new first line\n" + game.read_text())
    with pytest.raises(RulebookChanged, match="changed after its mutants were listed"):
        run_mutant(str(book), m)


def test_verify_marks_finds_a_hidden_zone_made_visible_and_a_changed_score_part(tmp_path):
    # visibility and score parts change no legal action and no score, but they are rules: what a
    # seat is shown (its observation) and the game-over breakdown are compared side by side too
    from interpreter.game import Rulebook
    from interpreter.tools.mutate import side_by_side
    book = tmp_path / "peek"
    shutil.copytree(ROOT / "tests" / "rulebooks" / "knowledge", book)
    game = book / "game.yaml"
    original = Rulebook.load(book)
    game.write_text(game.read_text().replace("deck: {type: deck, holds: [card], visible: false}",
                                             "deck: {type: deck, holds: [card], visible: true}"))
    diff = side_by_side(original, Rulebook.load(book), 2)
    assert "seat 0 sees the contents of deck in the mutant, not in the original" in diff
    parts = tmp_path / "parts"
    shutil.copytree(ROOT / "tests" / "rulebooks" / "score_parts", parts)
    original = Rulebook.load(parts)
    game = parts / "game.yaml"
    game.write_text(game.read_text().replace('bonus: "4 if taken[p] >= 5 else 0"', 'bonus: "4 if taken[p] > 5 else 0"'))
    diff = side_by_side(original, Rulebook.load(parts), 4)
    assert "score breakdown differs at the end: bonus" in diff
    # marked equivalent, the part's mutants are wrong marks now
    lines = game.read_text().replace('"4 if taken[p] > 5 else 0"', '"4 if taken[p] >= 5 else 0"').split("\n")
    at = next(i for i, ln in enumerate(lines) if "bonus:" in ln)
    lines[at] += "  # mutate: equivalent parts only name the score for reports"
    game.write_text("\n".join(lines))
    run = mutate(parts, only=lambda m: m.file == "game.yaml" and m.line == at + 1 and m.kind == "cmp", verify_marks=4)
    assert len(run.wrong_marks()) == 1 and "score breakdown differs" in run.results[run.mutants[0].id].detail
