"""Compile expression ASTs into generated Python code, checking names and types.

``compile_expr(node, cx)`` returns ``(fn, type)`` where ``fn(state, L)``
evaluates the expression; ``L`` is the list of local slots of the running
frame.  Each writer checks one kind of node and writes it as the text of a
Python expression — literals and names in names.py, operators in operators.py,
comprehensions and lambdas in comprehensions.py, calls in calls.py, what they
share in context.py; the table at the end says which writes which node.
``compile_expr`` compiles the whole text once (``codegen.py``, which also maps
a run-time failure back to the rulebook's position).  Every name is resolved here, once: a local becomes
``L[slot]`` (a comprehension's or lambda's variable a Python local), a
variable ``st.v[offset]``, a zone family a dictionary lookup in the game's
layout.  Nothing is looked up by name while a game runs.

Problems are reported to ``cx.report`` and compilation goes on with the
type ``ANY``, so that one run of the validator reports every problem.
"""
from __future__ import annotations

from dsl import ast

from .codegen import Gen
from .probes import hoist_probes, share_probes
from .context import HANDLERS, Cx, gen_cond, gen_expr
from .names import _attr, _const, _index, _name, _number, _string
from .operators import _binop, _boolop, _compare, _ifexp, _list, _neg, _not, _range, _record, _tuple
from .comprehensions import _lambda, _listcomp
from .calls import _call


# ---------------------------------------------------------------------------

def compile_expr(node: ast.Node, cx: Cx):
    """``(fn, type)``: ``fn(state, L)`` is the expression compiled to Python code."""
    src, typ = _compiled(node, cx, gen_expr)
    return src, typ


def compile_cond(node: ast.Node, cx: Cx, what: str = "a condition"):
    return _compiled(node, cx, lambda n, c: gen_cond(n, c, what))


def _compiled(node, cx: Cx, how):
    saved = cx.gen, cx.stmts, cx.depth
    cx.gen, cx.stmts, cx.depth = Gen(), [], 0
    try:
        src, typ = how(node, cx)
        return cx.gen.function(src, node.pos, pre=cx.stmts), typ
    finally:
        cx.gen, cx.stmts, cx.depth = saved


def gen_text(node: ast.Node, cx: Cx, what: str, how=None):
    """``node`` written for a larger generated function (a step, an option enumerator):
    ``(text, type, pre)`` — ``pre`` the statements that compute parts of it first (each
    marked so that a failure on its line is "``what``: …" at the node, unless a part inside
    claims it), ``text`` the expression, a failure in it likewise.  ``how(node, cx)`` writes
    it (default ``gen_expr``)."""
    saved = cx.stmts, cx.depth
    cx.stmts, cx.depth = [], 0
    try:
        src, typ = (how or gen_expr)(node, cx)
        pre = cx.stmts
    finally:
        cx.stmts, cx.depth = saved
    gen = cx.gen
    if pre:
        pre = hoist_probes(share_probes(pre))
        mark = gen.line_guard(node.pos, what)
        pre = [_marked(line, mark) for line in pre]
    return gen.guard(src, node.pos, what), typ, pre


def _marked(line: str, mark: str) -> str:
    body = line.lstrip(" ")
    return line[:len(line) - len(body)] + mark + body


#: which writer writes each kind of node (the table is context.HANDLERS, where gen_expr reads it)
HANDLERS.update({
    ast.Number: _number,
    ast.String: _string,
    ast.Const: _const,
    ast.Name: _name,
    ast.Index: _index,
    ast.Attr: _attr,
    ast.Call: _call,
    ast.Lambda: _lambda,
    ast.BinOp: _binop,
    ast.Neg: _neg,
    ast.Compare: _compare,
    ast.BoolOp: _boolop,
    ast.Not: _not,
    ast.IfExp: _ifexp,
    ast.Range: _range,
    ast.ListExpr: _list,
    ast.TupleExpr: _tuple,
    ast.RecordExpr: _record,
    ast.ListComp: _listcomp,
})
