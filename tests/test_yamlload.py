"""Safe YAML loading with positions on every value."""
from dsl.diagnostics import Pos, Report
from dsl.yamlload import load_yaml_text


def load(text):
    report = Report()
    return load_yaml_text(text, "f.yaml", report), report


def test_positions_of_keys_values_and_items():
    data, report = load("a:\n  b: 'x + y'\n  c: [1, two]\n")
    assert not report.items
    inner = data["a"]
    assert inner.key_pos["b"] == Pos("f.yaml", 2, 3)
    assert data["a"]["b"].pos == Pos("f.yaml", 2, 6)
    # a quoted scalar's characters start one column after the quote
    assert data["a"]["b"].pos_at(4) == Pos("f.yaml", 2, 11)
    assert inner["c"].pos_of(1) == Pos("f.yaml", 3, 10)


def test_block_scalars_map_every_line():
    data, _ = load("expr: |\n  first line\n    second + x\n")
    s = data["expr"]
    offset = s.index("second")
    assert s.pos_at(offset) == Pos("f.yaml", 3, 5)


def test_folded_plain_scalars_map_their_lines():
    data, _ = load("expr: >\n  a and\n  b_thing\n")
    s = data["expr"]
    assert s.pos_at(s.index("b_thing")) == Pos("f.yaml", 3, 3)


def test_duplicate_keys_are_reported():
    _, report = load("a: 1\nb: 2\na: 3\n")
    assert [d.pos.line for d in report.errors] == [3]
    assert "duplicate key 'a'" in report.errors[0].message


def test_syntax_errors_are_located():
    _, report = load("a: [1, 2\nb: 3\n")
    assert report.has_errors
    assert report.errors[0].pos.file == "f.yaml"
    assert "YAML syntax" in report.errors[0].message


def test_dates_stay_text():
    data, report = load("when: 2024-01-01\n")
    assert data["when"] == "2024-01-01" and not report.items
