"""regelwerk coverage: what the scenarios of a rulebook exercise (interpreter/tools/coverage.py)."""
import json
import shutil
from pathlib import Path

import argparse

from interpreter.tools.coverage import Recorder, format_text, measure
from interpreter.tools.coverage_command import cmd_coverage
from interpreter.game import Rulebook

BOOK = Path(__file__).parent / "rulebooks" / "untested_branch"

MISSING = """scenario: "Taking less than 3 scores what was taken plus 1"
source: >
  By hand, from game.yaml: seat 0 takes 1 (not 3: 1 + 1 = 2 points), seat 1 takes 2 (2 + 1 = 3).
players: 2
seed: 1
steps:
  - play: "take(n=1)"
  - play: "take(n=2)"
  - expect:
      scores: [2, 3]
"""


def _uncovered(report):
    return {(Path(p.file).name, p.line, p.kind, p.what) for p in report.uncovered()}


def test_the_untested_else_branch_is_reported_at_its_line():
    report = measure(BOOK)
    assert all(r.ok for r in report.scenarios)
    assert _uncovered(report) == {("game.yaml", 13, "branch", "if n == 3: else"),
                                  ("game.yaml", 17, "step", "set")}
    text = format_text(report)
    assert "game.yaml:17:13: not covered: set step" in text
    assert 'points[player] += n + 1' in text          # the rule's text is shown
    # the annotated decide and its otherwise are exceptions with a reason, not uncovered
    assert "game.yaml:22:9: excepted: decide: otherwise (nothing legal): take(n=1) is always legal" in text
    summary = report.summary()
    assert summary["step"] == {"total": 6, "covered": 4, "excepted": 1}
    assert summary["action"] == {"total": 1, "covered": 1, "excepted": 0}


def test_the_missing_scenario_covers_it(tmp_path):
    book = tmp_path / "book"
    shutil.copytree(BOOK, book)
    (book / "scenarios" / "02_take_less.yaml").write_text(MISSING)
    report = measure(book)
    assert all(r.ok for r in report.scenarios)
    assert _uncovered(report) == set()
    take = next(p for p in report.points if p.kind == "action")
    assert take.hits == 4 and take.values == {"n": {"1", "2", "3"}}


def test_json_output_per_file_and_line(capsys):
    assert cmd_coverage(argparse.Namespace(rulebook=str(BOOK), format="json")) == 0
    data = json.loads(capsys.readouterr().out)
    items = data["files"][next(iter(data["files"]))]
    else_step = [i for i in items if i["line"] == 17 and i["kind"] == "step"]
    assert else_step == [{"line": 17, "col": 13, "kind": "step", "what": "set", "hits": 0}]
    assert data["summary"]["branch"]["covered"] == 2


def test_plain_loading_is_not_instrumented():
    plain = Rulebook.load(BOOK)
    assert plain.game.coverage is None
    measured = Rulebook.load(BOOK, coverage=Recorder())
    names = {ins.__name__ for proc in measured.game.all_procs.values() for ins in proc.code}
    assert "counted" in names
    plain_names = {ins.__name__ for proc in plain.game.all_procs.values() for ins in proc.code}
    assert not plain_names & {"counted", "branch_if", "branch_decide", "taken"}


def test_registered_as_regelwerk_commands(capsys):
    from interpreter.cli import main
    assert main(["coverage", str(BOOK)]) == 0
    assert "not covered: set step" in capsys.readouterr().out
    assert main(["mutate", str(BOOK), "--only", "game.yaml:17", "--list"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 7   # 2 int, 2 arith, 2 index, the only step deleted


def test_coverage_html_shows_each_line_and_the_survivors_at_it(tmp_path, capsys):
    import json as _json
    from interpreter.cli import main
    from interpreter.tools.mutate import mutate
    from dataclasses import asdict
    state = tmp_path / "state.jsonl"
    run = mutate(BOOK, only=lambda m: m.file == "game.yaml" and m.line == 17)
    state.write_text("".join(_json.dumps(asdict(r)) + "\n" for r in run.results.values()))
    page = tmp_path / "coverage.html"
    assert main(["coverage", str(BOOK), "--html", str(page), "--mutants", str(state)]) == 0
    assert f"wrote {page}" in capsys.readouterr().out
    text = page.read_text()
    rows = {int(r.split("<td class='n'>")[1].split("<")[0]): r for r in text.split("<tr ")[1:]}
    # line 17, the else branch no scenario takes: not covered, and its 5 surviving mutants (of 7:
    # the two index mutants are killed by check)
    assert rows[17].startswith("class='uncovered'") and "✗ not covered: set step" in rows[17]
    assert rows[17].count("● survived") == 5 and "points[player] += n + 0" in rows[17]
    # line 15 (points += 5) runs in the scenario; line 22 is an excepted guard
    assert rows[15].startswith("class='covered'")
    assert "excepted" in rows[22] or "excepted" in rows[23]
