"""Parse expression strings from a rulebook into :mod:`dsl.ast` nodes.

The grammar is ``dsl/grammar.lark`` (LALR).  Positions inside the string are
mapped back to the YAML file through :class:`dsl.yamlload.LStr`.  A syntax
error becomes one :class:`ParseError` that says what was found and what was
expected, located at the offending character.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from importlib import resources

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from . import ast
from .diagnostics import Pos
from .yamlload import LStr, located_str

GRAMMAR_FILE = resources.files("dsl") / "grammar.lark"

_TERMINAL_TEXT = {
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": "a string",
    "COMP_OP": "a comparison",
    "ASSIGN_OP": "'=', '+=' or '-='",
    "ADD_OP": "'+' or '-'",
    "MUL_OP": "'*', '//' or '%'",
    "$END": "the end of the expression",
}


class ParseError(Exception):
    def __init__(self, pos: Pos, message: str):
        super().__init__(message)
        self.pos = pos
        self.message = message


@lru_cache(maxsize=None)
def _parser(start: str) -> Lark:
    return Lark(
        GRAMMAR_FILE.read_text(encoding="utf-8"),
        parser="lalr",
        start=start,
        propagate_positions=True,
        maybe_placeholders=True,
    )


def _describe(parser: Lark, names) -> str:
    out = set()
    for name in names:
        if name in _TERMINAL_TEXT:
            out.add(_TERMINAL_TEXT[name])
            continue
        try:
            pattern = parser.get_terminal(name).pattern
        except KeyError:
            out.add(name)
            continue
        out.add(f"'{pattern.value}'" if pattern.type == "str" else name.lower())
    return ", ".join(sorted(out))


class _ToAst(Transformer):
    """Tree → AST.  ``self.src`` is the located source string."""

    def __init__(self, src: LStr):
        super().__init__()
        self.src = src

    def _pos(self, thing) -> Pos:
        if isinstance(thing, Token):
            return self.src.pos_at(thing.start_pos or 0)
        meta = getattr(thing, "meta", None)
        if meta is not None and not meta.empty:
            return self.src.pos_at(meta.start_pos)
        if isinstance(thing, ast.Node):
            return thing.pos
        return self.src.pos_at(0)

    # --- atoms ---------------------------------------------------------
    @v_args(meta=True)
    def number(self, meta, children):
        digits = str(children[0])
        if len(digits) > MAX_NUMBER_DIGITS:
            raise ParseError(self.src.pos_at(meta.start_pos),
                             f"a number of {len(digits)} digits; at most {MAX_NUMBER_DIGITS} are allowed")
        return ast.Number(int(digits), pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def string(self, meta, children):
        return ast.String(str(children[0])[1:-1], pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def true(self, meta, children):
        return ast.Const(True, pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def false(self, meta, children):
        return ast.Const(False, pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def none(self, meta, children):
        return ast.Const(None, pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def name(self, meta, children):
        return ast.Name(str(children[0]), pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def tuple_(self, meta, children):
        return ast.TupleExpr([c for c in children if c is not None], pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def list_(self, meta, children):
        return ast.ListExpr([c for c in children if c is not None], pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def listcomp(self, meta, children):
        elt, *rest = children
        cond = rest[-1] if rest and not isinstance(rest[-1], ast.CompFor) else None
        fors = [c for c in rest if isinstance(c, ast.CompFor)]
        return ast.ListComp(elt, fors, cond, pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def comp_for(self, meta, children):
        *names, it = children
        return ast.CompFor([str(n) for n in names], it, pos=self.src.pos_at(meta.start_pos))

    def comp_if(self, children):
        return children[0]

    @v_args(meta=True)
    def record(self, meta, children):
        return ast.RecordExpr([c for c in children if c is not None], pos=self.src.pos_at(meta.start_pos))

    def field(self, children):
        return (str(children[0]), children[1])

    def args(self, children):
        return list(children)

    # --- operators -----------------------------------------------------
    @v_args(meta=True)
    def lambda_(self, meta, children):
        return ast.Lambda(str(children[0]), children[1], pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def ifexp(self, meta, children):
        body, test, orelse = children
        return ast.IfExp(test, body, orelse, pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def or_op(self, meta, children):
        return ast.BoolOp("or", children, pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def and_op(self, meta, children):
        return ast.BoolOp("and", children, pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def not_op(self, meta, children):
        return ast.Not(children[0], pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def compare(self, meta, children):
        left, op, right = children
        return ast.Compare(str(op), left, right, pos=self._pos(op))

    @v_args(meta=True)
    def in_op(self, meta, children):
        return ast.Compare("in", children[0], children[1], pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def not_in_op(self, meta, children):
        return ast.Compare("notin", children[0], children[1], pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def range_op(self, meta, children):
        return ast.Range(children[0], children[1], pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def binop(self, meta, children):
        left, op, right = children
        return ast.BinOp(str(op), left, right, pos=self._pos(op))

    @v_args(meta=True)
    def neg(self, meta, children):
        return ast.Neg(children[0], pos=self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def attr(self, meta, children):
        obj, name = children
        return ast.Attr(obj, str(name), pos=self._pos(name))

    @v_args(meta=True)
    def index(self, meta, children):
        obj, args = children
        return ast.Index(obj, args, pos=obj.pos)

    @v_args(meta=True)
    def call(self, meta, children):
        func, args = children
        return ast.Call(func, args or [], pos=func.pos)

    # --- assignment ----------------------------------------------------
    @v_args(meta=True)
    def target_name(self, meta, children):
        return (str(children[0]), None, self.src.pos_at(meta.start_pos))

    @v_args(meta=True)
    def target_index(self, meta, children):
        return (str(children[0]), children[1], self.src.pos_at(meta.start_pos))

    def for_head(self, children):
        *names, it = children
        return ast.CompFor([str(n) for n in names], it, pos=it.pos)

    def assignment(self, children):
        (name, index, pos), op, value = children
        return ast.Assignment(name, index, str(op), value, pos=pos)


def _as_located(text, pos: Pos | None) -> LStr:
    if isinstance(text, LStr):
        return text
    return located_str(str(text), pos or Pos("<expression>"))


_TREES: dict = {}


def _parse(text, start: str, pos: Pos | None):
    src = _as_located(text, pos)
    parser = _parser(start)
    # Parse trees hold offsets within the text, not file positions, so one
    # tree serves every place the same text appears (and every reload).
    key = (start, str(src))
    tree = _TREES.get(key)
    if tree is None:
        try:
            tree = parser.parse(str(src))
        except UnexpectedInput as exc:
            raise _syntax_error(parser, src, exc) from None
        if _depth(tree) > MAX_EXPRESSION_DEPTH:
            raise ParseError(src.pos_at(0), f"the expression is nested more than {MAX_EXPRESSION_DEPTH} levels deep "
                                            f"(split it into functions)")
        if len(_TREES) < 50_000:
            _TREES[key] = tree
    try:
        return _ToAst(src).transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, ParseError):
            raise exc.orig_exc from None
        raise


#: the deepest an expression's syntax tree may be (``1+1+…`` counts one level per operator)
MAX_EXPRESSION_DEPTH = 100
#: the most digits a number literal may have
MAX_NUMBER_DIGITS = 30


def _depth(tree) -> int:
    """The depth of a parse tree, measured without recursion (a deep tree would overflow the stack)."""
    deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, d = stack.pop()
        if d > deepest:
            deepest = d
            if d > MAX_EXPRESSION_DEPTH:
                break
        stack.extend((c, d + 1) for c in getattr(node, "children", ()) if hasattr(c, "children"))
    return deepest


def _syntax_error(parser: Lark, src: LStr, exc: UnexpectedInput) -> ParseError:
    offset = getattr(exc, "pos_in_stream", None)
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        offset = len(src.rstrip()) if tok.type == "$END" or tok.start_pos is None else tok.start_pos
        found = "end of the expression" if tok.type == "$END" else f"'{tok}'"
        if "NAME" in exc.expected and "NUMBER" in exc.expected:
            expected = "a value (a name, a number, a string, '(' or '[')"
        elif len(exc.expected) > 8:
            expected = ("an operator or the end of the expression" if "$END" in exc.expected
                        else "an operator, ',' or a closing bracket")
        else:
            expected = _describe(parser, exc.expected)
        return ParseError(src.pos_at(offset), f"syntax error: unexpected {found}; expected {expected}")
    if isinstance(exc, UnexpectedCharacters):
        char = str(src)[exc.pos_in_stream] if exc.pos_in_stream < len(src) else "?"
        return ParseError(src.pos_at(exc.pos_in_stream), f"syntax error: unexpected character '{char}'")
    if isinstance(exc, UnexpectedEOF):
        return ParseError(src.pos_at(len(src)), "syntax error: the expression ends too early")
    return ParseError(src.pos_at(offset or 0), f"syntax error: {exc}")


def parse_expression(text, pos: Pos | None = None) -> ast.Node:
    """Parse an expression; raise :class:`ParseError` on a syntax error."""
    if isinstance(text, bool) or text is None:
        return ast.Const(text, pos=pos or Pos("<expression>"))
    if isinstance(text, int):
        return ast.Number(text, pos=pos or Pos("<expression>"))
    if not str(text).strip():
        raise ParseError(getattr(text, "pos", None) or pos or Pos("<expression>"), "empty expression")
    return _parse(text, "start", pos)


def parse_assignment(text, pos: Pos | None = None) -> ast.Assignment:
    """Parse ``target = value`` (also ``+=``, ``-=``, ``*=``)."""
    return _parse(text, "assignment", pos)


def parse_for_head(text, pos: Pos | None = None) -> ast.CompFor:
    """Parse the ``x in xs`` (or ``a, b in pairs``) of a ``for:`` step."""
    return _parse(text, "for_head", pos)
