"""The corpus of broken rulebooks: each case is a real rulebook from rules/
with exactly one defect planted, and the diagnostic it must produce.

A case file in tests/broken/ names the rulebook, the file, the text to
replace and its replacement, and the expected code; the expected line is
the first line of the patched file (or of `expect_file`, when the finding is
in another file) containing `line_of` (after the first line containing
`after`, if given) — found here, not by the validator. Cases with `simulate: N` are found by `regelwerk check`
(N games per player count) instead of `validate`.
"""
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import RULES, SHIPPED
from interpreter.game import check_rulebook

CASES = sorted((Path(__file__).parent / "broken").glob("*.yaml"))
#: cases whose check plays many games (8 a seat count, up to 5 seats: ~8-14 s here), run with the slow
#: suite so that the default run keeps its margin under 5 minutes
SLOW_CASES = frozenset({"mm_place_five"})


def load_case(path):
    case = yaml.safe_load(path.read_text())
    for key in ("rulebook", "file", "replace", "with", "code", "line_of", "why"):
        assert key in case, f"{path.name}: missing '{key}'"
    return case


def plant(case, tmp_path):
    book = tmp_path / case["rulebook"]
    shutil.copytree(RULES / case["rulebook"], book, ignore=shutil.ignore_patterns("scenarios"))
    target = book / case["file"]
    text = target.read_text()
    assert text.count(case["replace"]) == 1, f"the text to replace must occur exactly once in {case['file']}"
    target.write_text(text.replace(case["replace"], case["with"]))
    if case.get("expect_file"):
        target = book / case["expect_file"]
    lines = target.read_text().splitlines()
    start = 0
    if case.get("after"):  # the line_of text may occur earlier too: search after this text
        start = next(i for i, line in enumerate(lines) if case["after"] in line)
    expected = next((i for i, line in enumerate(lines, 1) if i > start and case["line_of"] in line), None)
    assert expected is not None, f"'{case['line_of']}' is not in the patched file"
    return book, target, expected


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.stem in SLOW_CASES else p
                                  for p in CASES], ids=[p.stem for p in CASES])
def test_broken_rulebook(path, tmp_path):
    case = load_case(path)
    book, target, line = plant(case, tmp_path)
    if case.get("simulate"):
        from interpreter.tools.simulate import run_check
        from interpreter.game import Rulebook
        game = Rulebook.load(book).game
        counts = range(game.min_players, game.max_players + 1)
        found = run_check(str(book), case["simulate"], counts, {}, case.get("variants", []), jobs=1)
        diags = [(f.code, f.file, f.line) for f in found]
    else:
        report, _ = check_rulebook(book)
        diags = [(d.code, d.pos.file, d.pos.line) for d in report.items]
    hits = [d for d in diags if d[0] == case["code"] and Path(d[1]).resolve() == target.resolve()]
    assert hits, f"expected {case['code']} in {case['file']}; got {sorted(set(diags))}"
    assert any(h[2] == line for h in hits), f"{case['code']} at lines {[h[2] for h in hits]}, expected {line}"
def test_the_corpus_covers_every_check_for_every_game():
    cases = [load_case(p) for p in CASES]
    assert len(cases) >= 40
    codes = {c["code"] for c in cases}
    static = {"RW201", "RW202", "RW203", "RW204", "RW205", "RW206", "RW207", "RW208", "RW209"}
    assert static <= codes, f"uncovered checks: {sorted(static - codes)}"
    assert {"RW101", "RW102"} <= codes
    for game in SHIPPED:
        assert any(c["rulebook"] == game for c in cases), f"no broken case for {game}"
