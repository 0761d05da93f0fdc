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


# --- the generated parser tables (dsl/_parser_tables.py) -------------------------------------------

def test_the_generated_parser_tables_are_made_from_the_current_grammar():
    from dsl import _parser_tables, parser
    grammar = parser.GRAMMAR_FILE.read_text(encoding="utf-8")
    assert _parser_tables.GRAMMAR_SHA256 == parser.grammar_sha256(grammar), \
        "dsl/grammar.lark changed: regenerate the tables with `python -m dsl.parser`"
    assert set(_parser_tables.TABLES) == set(parser.STARTS)
    if _parser_tables.LARK_VERSION == parser.lark_version:  # start-up speed: the tables are what runs
        parser._parser.cache_clear()
        assert all(parser._parser(start).source_path == "<deserialized>" for start in parser.STARTS)


def test_a_parser_from_the_tables_parses_like_a_freshly_built_one():
    from lark.exceptions import UnexpectedInput
    from dsl import parser
    parser._parser.cache_clear()
    texts = {"start": ["1 + 2 * 3", "[(s, k) for s in 0..6 for k in 1..6 if s != k]", "f(x, t -> t.c)[1].a",
                       "a not in b or c", "1 +", "(a, b", "x ! y"],
             "assignment": ["score[p] += 3", "x = y", "x ="], "for_head": ["s, k in pairs", "s in"]}
    for start, items in texts.items():
        loaded, built = parser._parser(start), parser._build(start)
        for text in items:
            try:
                want = built.parse(text)
            except UnexpectedInput as exc:
                with pytest.raises(type(exc)) as got:
                    loaded.parse(text)
                assert getattr(got.value, "expected", None) == getattr(exc, "expected", None)
                continue
            assert loaded.parse(text) == want


@pytest.mark.parametrize("damage", ["stale", "garbage", "missing"])
def test_stale_or_damaged_parser_tables_fall_back_to_building_the_parser(monkeypatch, damage):
    import sys
    from dsl import _parser_tables, parser
    if damage == "stale":
        monkeypatch.setattr(_parser_tables, "GRAMMAR_SHA256", "0" * 64)
    elif damage == "garbage":
        monkeypatch.setattr(_parser_tables, "TABLES", {s: ({"parser": 1}, {}) for s in parser.STARTS})
    else:
        import dsl
        monkeypatch.setitem(sys.modules, "dsl._parser_tables", None)  # an import of it fails
        monkeypatch.delattr(dsl, "_parser_tables")
    parser._parser.cache_clear()
    parser._TREES.clear()
    try:
        assert parser._parser("start").source_path != "<deserialized>"
        assert p("1 + 2 * 3").op == "+"
        with pytest.raises(ParseError):
            p("1 +")
    finally:
        parser._parser.cache_clear()
        parser._TREES.clear()


def _same_ast(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_ast(x, y) for x, y in zip(a, b))
    if isinstance(a, ast.Node):
        return vars(a).keys() == vars(b).keys() and all(_same_ast(vars(a)[k], vars(b)[k]) for k in vars(a))
    return a == b


def test_the_quick_transform_makes_what_lark_s_transformer_makes(monkeypatch):
    # every expression of the four games, with its positions
    from lark import Transformer
    from conftest import RULES
    from dsl import parser
    from interpreter.game import check_rulebook
    seen = []
    real = parser._parse
    monkeypatch.setattr(parser, "_parse", lambda text, start, pos: seen.append((text, start, pos)) or real(text, start, pos))
    for game in ("azul_summer_pavilion", "iquazu", "moonlight_market", "yak"):
        check_rulebook(RULES / game)
    assert len(seen) > 500
    for text, start, pos in seen:
        src = parser._as_located(text, pos)
        tree = parser._parser(start).parse(str(src))
        quick = parser._ToAst(src).transform(tree)
        lark_way = Transformer.transform(parser._ToAst(src), tree)
        assert _same_ast(quick, lark_way), text


def test_an_error_inside_the_transform_is_still_located():
    with pytest.raises(ParseError) as exc:
        p("1" * 40)
    assert "digits" in exc.value.message and exc.value.pos.col == 1


def test_names_in_lists_every_name_an_expression_mentions():
    """dsl.ast.names_in: the names read anywhere below a node (lambda bodies, comprehensions,
    record fields), its own loop variables and parameters among them; a list or tuple of
    nodes (None skipped) gives their union."""
    from dsl import ast
    e = parse_expression("count(hand[p], t -> t.color == c) + sum([x * k for x in xs if x > lo]) + {a: b}.a")
    assert ast.names_in(e) == {"count", "hand", "p", "t", "c", "sum", "x", "k", "xs", "lo", "b"}
    assert ast.names_in((parse_expression("a + 1"), None, parse_expression("f(b)"))) == {"a", "f", "b"}
    assert ast.names_in(parse_expression("3 + 4")) == set()
