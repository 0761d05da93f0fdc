"""Nothing in a rulebook can run code or read files outside its folder."""
import os

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
