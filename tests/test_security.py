"""Nothing in a rulebook can run code or read files outside its folder."""
import os

import pytest

from conftest import RULES
from dsl.diagnostics import Report
from dsl.yamlload import load_yaml_text
from interpreter.game import check_rulebook

BASE = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 2}}
flow: []
end: {score: "0"}
"""


def test_python_tags_are_rejected_and_never_constructed(tmp_path):
    marker = tmp_path / "pwned"
    text = f"a: !!python/object/apply:os.system ['touch {marker}']\n"
    report = Report()
    load_yaml_text(text, "f.yaml", report)
    assert report.has_errors and "not allowed" in report.errors[0].message
    assert not marker.exists()


def test_custom_tags_are_rejected():
    report = Report()
    load_yaml_text("a: !include secret.yaml\n", "f.yaml", report)
    assert report.has_errors and report.errors[0].pos.line == 1


def test_anchors_and_aliases_are_rejected():
    report = Report()
    load_yaml_text("a: &x [1, 2]\nb: *x\n", "f.yaml", report)
    assert report.has_errors and "alias" in report.errors[0].message


def test_billion_laughs_is_refused_quickly():
    lol = "a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nd: [*c, *c]\n"
    report = Report()
    load_yaml_text(lol, "f.yaml", report)
    assert report.has_errors


def test_include_outside_the_folder_is_refused(tmp_path):
    (tmp_path / "outside.yaml").write_text("constants: {x: 1}\n")
    book = tmp_path / "book"
    book.mkdir()
    (book / "game.yaml").write_text(BASE + "include: [../outside.yaml]\n")
    report, game = check_rulebook(book)
    assert game is None
    assert any("leaves the rulebook folder" in d.message or "not a rulebook file" in d.message
               for d in report.errors)


def test_absolute_include_is_refused(tmp_path):
    (tmp_path / "outside.yaml").write_text("constants: {x: 1}\n")
    book = tmp_path / "book"
    book.mkdir()
    (book / "game.yaml").write_text(BASE + f"include: ['{tmp_path / 'outside.yaml'}']\n")
    report, game = check_rulebook(book)
    assert game is None


def test_symlink_out_of_the_folder_is_refused(tmp_path):
    (tmp_path / "secret.yaml").write_text("constants: {x: 1}\n")
    book = tmp_path / "book"
    book.mkdir()
    os.symlink(tmp_path / "secret.yaml", book / "link.yaml")
    (book / "game.yaml").write_text(BASE + "include: [link.yaml]\n")
    report, game = check_rulebook(book)
    assert game is None
    assert any("leaves the rulebook folder" in d.message for d in report.errors)


def test_expressions_cannot_reach_python(tmp_path):
    book = tmp_path / "book"
    book.mkdir()
    (book / "game.yaml").write_text(BASE.replace('score: "0"', 'score: "__import__(1)"'))
    report, game = check_rulebook(book)
    assert game is None
    assert "unknown function '__import__'" in report.errors[0].message


@pytest.mark.parametrize("bad", [["take"], {"a": 1}, None, 5, 3.5, b"x", ("a",)])
def test_a_malformed_action_id_is_illegal_and_changes_nothing(bad):
    from interpreter.game import IllegalAction, Rulebook
    rb = Rulebook.load(RULES / "azul_summer_pavilion")
    st = rb.new_game(2, seed=3)
    before = st.to_json()
    with pytest.raises(IllegalAction):
        st.apply_action(bad)
    assert st.to_json() == before
    st.apply_action(st.legal_actions()[0])   # and the game goes on


def _copy_game(tmp_path, name="azul_summer_pavilion"):
    import shutil
    dst = tmp_path / name
    shutil.copytree(RULES / name, dst)
    return dst


def test_a_scenarios_folder_linking_outside_is_not_read(tmp_path, capsys):
    from interpreter.cli import main
    book = _copy_game(tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.yaml").write_text("TOP-SECRET-LINE: 1\n")
    import shutil
    shutil.rmtree(book / "scenarios")
    (book / "scenarios").symlink_to(outside, target_is_directory=True)
    code = main(["test", str(book)])
    out = capsys.readouterr()
    assert code == 1
    assert "TOP-SECRET" not in out.out + out.err
    assert "leads out of its rulebook folder" in out.out


def test_a_fifo_among_the_scenarios_does_not_block(tmp_path):
    import subprocess
    import sys
    book = _copy_game(tmp_path)
    os.mkfifo(book / "scenarios" / "zz_pipe.yaml")
    proc = subprocess.run([sys.executable, "-m", "interpreter.cli", "test", str(book)], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1
    assert "zz_pipe.yaml:1:1: error: not a regular file" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


def test_a_fifo_as_game_yaml_does_not_block(tmp_path):
    import subprocess
    import sys
    book = tmp_path / "g"
    book.mkdir()
    os.mkfifo(book / "game.yaml")
    proc = subprocess.run([sys.executable, "-m", "interpreter.cli", "validate", str(book)], capture_output=True,
                          text=True, timeout=20)
    assert proc.returncode == 1 and "not a regular file" in proc.stdout + proc.stderr
