"""docs/tutorial.md runs: every file it shows is written, every command it
shows is run in an empty folder and must print what the page shows, and its
Python example runs — so the tutorial cannot rot (see tests/docrun.py)."""
import pytest
from conftest import ROOT
from docrun import blocks, commands, matches, run_page

PAGE = ROOT / "docs" / "tutorial.md"


@pytest.mark.slow     # 34 s of the default run on a loaded machine: every command of the tutorial, each a new process
def test_the_tutorial_runs_as_written(tmp_path):
    ran = run_page(PAGE, tmp_path)
    # the walk-through: files, then validate, test, play, check, and Python
    assert ran["files"] >= 5 and ran["python"] >= 1, ran
    cmds = [c for b in blocks(PAGE) if b.kind == "console" for c, *_ in commands(b)]
    for needed in ("regelwerk validate", "regelwerk test", "regelwerk play", "regelwerk check"):
        assert any(c.startswith(needed) or f"| {needed}" in c for c in cmds), needed
    assert (tmp_path / "dice_duel" / "game.yaml").is_file()


def test_the_tutorial_is_linked_from_the_readme():
    assert "docs/tutorial.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_output_matching_has_wildcards_but_is_otherwise_exact():
    assert matches(["a", "…", "d"], ["a", "b", "c", "d"])
    assert matches(["x …s"], ["x 0.3s"])
    assert not matches(["a", "b"], ["a", "b", "c"])
    assert not matches(["a"], ["b"])
    assert matches(["a  "], ["a", ""])


def test_a_number_expected_where_a_label_is_text_says_so(tmp_path):
    """A newcomer's slip found writing the tutorial: `labels(...)` are texts; the
    failure must not read 'expected [1, 2], got [1, 2]'."""
    from interpreter.game import Rulebook
    from interpreter.tools.scenarios import ScenarioRunner
    run_page(PAGE, tmp_path, files_only=True)
    scen = tmp_path / "dice_duel" / "scenarios" / "01_low_cards_score.yaml"
    scen.write_text(scen.read_text().replace('["1", "2", "4", "5"]', "[1, 2, 4, 5]"))
    result = ScenarioRunner(Rulebook.load(tmp_path / "dice_duel"), scen).run()
    assert not result.ok
    text = "\n".join(d.format() for d in result.messages)
    assert "expected [1, 2, 4, 5], got ['1', '2', '4', '5']" in text, text
