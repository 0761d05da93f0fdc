"""A function that counts the components of a zone by one of their fields answers for every
value of the field at once.

``count(z, t -> t.f == c)``, ``c`` the function's last parameter, a symbol of an enum, and
``z`` not reading ``c``: asked for one symbol, the function reads ``z`` once, counts every
symbol's components and remembers all of them (a dictionary per value of the first
argument keeps a whole row: ``codegen.memo_path``), so that asking for the other symbols
finds their results instead of reading ``z`` again — until something the function reads
changes, as for every remembered result.  The counts are the same (``==`` of two symbols
is the equality of their texts, a dictionary's keys compare alike); a value of ``c`` that is
no symbol of the enum is counted as before, by the function's own text.
"""
from __future__ import annotations

from dsl import ast

from . import types as T
from .codegen import MISSING
from .comprehensions import _Lambda, gen_lambda
from .context import gen_as_list, in_block


def _shape(node, params: list, cx):
    """``(zone node, field's Attr node, enum)`` when ``node`` is ``count(z, t -> t.f == c)``
    (either side of ``==``) with ``c`` the last of ``params`` (``(name, type)``), a symbol
    of an enum, and ``z`` not reading ``c``; None otherwise."""
    if not params or len(params) > 2:
        return None
    last, typ = params[-1]
    if not isinstance(typ, T.Sym) or typ.enum not in cx.game.enums:
        return None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "count"
            and len(node.args) == 2 and isinstance(node.args[1], ast.Lambda)):
        return None
    if "count" in cx.game.functions:
        return None
    zone, lam = node.args
    t = lam.param
    body = lam.body
    if t == last or not (isinstance(body, ast.Compare) and body.op == "=="):
        return None
    for field, other in ((body.left, body.right), (body.right, body.left)):
        if (isinstance(field, ast.Attr) and isinstance(field.obj, ast.Name) and field.obj.id == t
                and isinstance(other, ast.Name) and other.id == last):
            break
    else:
        return None
    if last in ast.names_in(zone):
        return None
    return zone, field, typ.enum, t


def row_lines(node, params: list, cx) -> list:
    """The statements (for the top of the function's body) that count every symbol's
    components, remember them all and return the one asked for (``_key``), or [] when
    ``node`` is not of the shape (``_shape``) or its fields are not the enum's symbols."""
    shape = _shape(node, params, cx)
    if shape is None:
        return []
    zone, field, enum, t = shape
    errors = len(cx.report.errors)
    pre: list = []
    items, typ = in_block(cx, pre, gen_as_list, zone)
    body: list = []
    lam, ftype = gen_lambda(ast.Lambda(t, field, pos=field.pos), T.elem_of(typ), cx, None, "a count", block=body)
    if len(cx.report.errors) != errors or ftype != T.Sym(enum) or not isinstance(lam, _Lambda):
        return []
    gen = cx.gen
    zeros = gen.bind(dict.fromkeys(cx.game.enums[enum].symbols, 0), "dom")     # every symbol, none counted
    missing = gen.bind(MISSING, "miss")
    return [*pre,
            f"_row = {zeros}.copy()",
            f"for {lam.param} in {items}:",
            *("    " + line for line in body),
            f"    _f = {lam.body}",
            "    if _f in _row:",
            "        _row[_f] += 1",
            "_memo.update(_row)",
            f"_v = _row.get(_key, {missing})",
            f"if _v is not {missing}:",
            "    return _v"]
