"""The expression grammar: precedence, every construct, located syntax errors."""
import pytest

from dsl import ast
from dsl.diagnostics import Pos
from dsl.parser import ParseError, parse_assignment, parse_expression, parse_for_head
from dsl.yamlload import located_str


def p(text):
    return parse_expression(text)


def test_precedence_of_arithmetic_and_logic():
    e = p("1 + 2 * 3")
    assert isinstance(e, ast.BinOp) and e.op == "+"
    assert isinstance(e.right, ast.BinOp) and e.right.op == "*"
    e = p("a or b and not c")
    assert e.op == "or" and e.values[1].op == "and"
    assert isinstance(e.values[1].values[1], ast.Not)


def test_comparison_binds_looser_than_arithmetic_and_ranges():
    e = p("x + 1 < 2 * y")
    assert isinstance(e, ast.Compare) and e.op == "<"
    e = p("k in 1..6")
    assert e.op == "in" and isinstance(e.right, ast.Range)
    assert p("a not in b").op == "notin"


def test_conditional_lambda_and_comprehension():
    e = p("count(xs, t -> t.color == c if flag else false)")
    lam = e.args[1]
    assert isinstance(lam, ast.Lambda) and lam.param == "t"
    assert isinstance(lam.body, ast.IfExp)
    comp = p("[(s, k) for s in 0..6 for k in 1..6 if s != k]")
    assert isinstance(comp, ast.ListComp) and len(comp.fors) == 2 and comp.cond is not None
    assert isinstance(comp.elt, ast.TupleExpr)


def test_literals_records_tuples_and_postfix():
    assert p("none").value is None and p("true").value is True
    assert p("'text'").value == "text" and p('"x y"').value == "x y"
    r = p("{star: s, space: 3}")
    assert [n for n, _ in r.fields] == ["star", "space"]
    assert p("()").items == [] and len(p("(a, b)").items) == 2
    e = p("board[p, s, k].color")
    assert isinstance(e, ast.Attr) and isinstance(e.obj, ast.Index) and len(e.obj.args) == 3
    assert isinstance(p("f()"), ast.Call) and p("f()").args == []


def test_assignment_and_for_head():
    a = parse_assignment("score[p] += 3")
    assert a.name == "score" and a.op == "+=" and len(a.index) == 1
    assert parse_assignment("x = y").index is None
    h = parse_for_head("s, k in pairs")
    assert h.names == ["s", "k"]


def test_positions_map_back_to_the_yaml_file():
    src = located_str("count(hnad[p])", Pos("game.yaml", 12, 20))
    e = parse_expression(src)
    assert e.pos == Pos("game.yaml", 12, 20)
    assert e.args[0].obj.pos == Pos("game.yaml", 12, 26)


@pytest.mark.parametrize("text, col, words", [
    ("1 +", 4, "expected a value"),
    ("a b", 3, "unexpected 'b'"),
    ("f(,)", 3, "unexpected ','"),
    ("a $ b", 3, "unexpected character '$'"),
    ("x = 3", 3, "unexpected character '='"),
])
def test_syntax_errors_say_what_was_found_and_where(text, col, words):
    with pytest.raises(ParseError) as info:
        parse_expression(located_str(text, Pos("f.yaml", 5, 1)))
    assert info.value.pos == Pos("f.yaml", 5, col)
    assert words in info.value.message


def test_empty_expression_is_an_error():
    with pytest.raises(ParseError):
        parse_expression(located_str("  ", Pos("f.yaml", 1, 1)))


def test_yaml_scalars_that_are_not_strings_are_constants():
    assert parse_expression(3).value == 3
    assert parse_expression(True).value is True
