"""A function that counts or selects the items of a list by one value of theirs answers for
every value at once.

``count(z, t -> t.f == c)``, ``c`` the function's last parameter, a symbol of an enum, and
``z`` not reading ``c``: asked for one symbol, the function reads ``z`` once, counts every
symbol's components and remembers all of them (a dictionary per value of the first
argument keeps a whole row: ``codegen.memo_path``), so that asking for the other symbols
finds their results instead of reading ``z`` again — until something the function reads
changes, as for every remembered result.  The counts are the same (``==`` of two symbols
is the equality of their texts, a dictionary's keys compare alike); a value of ``c`` that is
no symbol of the enum is counted as before, by the function's own text.

The same for a selection by the last parameter from a product of lists: ``[e for x in xs
for y in ys … if … and k == c and …]``, ``c`` a number, a seat, a text or a symbol, and
``k``, the lists and the other conditions not reading ``c`` (:func:`bucket_lines`): the
items are sorted into one list per value of ``k`` in one pass (each list in the order the
selection keeps) and all of them remembered, with a mark (``FILLED``) that a value no item
has selects nothing.  Only for a product, whose items are many and whose values are
mostly all asked (a grid's rows); a selection from one list (``filter``, one ``for``) is
cheap enough that one pass for all values did not pay in the shipped games (a zone's tiles
of a colour, asked for one or two colours between moves: 0.91–0.96×; docs/performance.md).  The
pass tests the conditions after ``k == c`` of items whose ``k`` is another value too —
where one of them fails (an error the asked-for selection would not have met), the mark
says so, nothing else is remembered, and the function selects each value as written.
"""
from __future__ import annotations

from dsl import ast

from . import types as T
from .codegen import MISSING, Gen
from .comprehensions import _Lambda, gen_lambda
from .context import gen_as_list, gen_expr, in_block

#: the key under which a dictionary of results says whether it holds every value's
#: selection (True: a value not in it selects nothing) or the pass failed (False: select
#: each value as written until something the function reads changes)
FILLED = object()

#: the types of a last parameter whose values a dictionary tells apart as ``==`` does
_KEYED = (T.INT, T.PLAYER, T.BOOL, T.STR)


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


def _conjuncts(node) -> list:
    if isinstance(node, ast.BoolOp) and node.op == "and":
        return [c for v in node.values for c in _conjuncts(v)]
    return [node]


def _bucket_shape(node, params: list, cx):
    """``(comprehension of pairs, whether the pairs' elements are kept in one-item lists)``
    when ``node`` selects by ``k == c`` (``c`` the last of ``params``: see the module's
    text); None otherwise.  Per item the pairs' comprehension tests the conditions before
    ``k == c``, then makes ``(k, element)`` — with conditions after it ``(k, [element] if
    rest else [])`` —: ``k`` is asked of the same items, in the same order, as the selection
    asks it, so an item whose ``k`` fails makes both fail."""
    if not params or len(params) > 2:
        return None
    last, typ = params[-1]
    if not (typ in _KEYED or isinstance(typ, T.Sym)):
        return None
    if not isinstance(node, ast.ListComp) or node.cond is None or len(node.fors) < 2:
        return None
    if any(last in f.names for f in node.fors):
        return None
    parts = _conjuncts(node.cond)
    for i, part in enumerate(parts):
        if not (isinstance(part, ast.Compare) and part.op == "=="):
            continue
        sides = (part.left, part.right)
        for key, other in (sides, sides[::-1]):
            if isinstance(other, ast.Name) and other.id == last and last not in ast.names_in(key):
                before, after = parts[:i], parts[i + 1:]
                if last in ast.names_in([node.elt, *before, *after, *(f.iter for f in node.fors)]):
                    return None
                elt = node.elt
                if after:
                    pos = elt.pos
                    elt = ast.IfExp(_all(after, pos), ast.ListExpr([elt], pos=pos), ast.ListExpr([], pos=pos), pos=pos)
                pairs = ast.ListComp(ast.TupleExpr([key, elt], pos=node.elt.pos), node.fors,
                                     _all(before, node.cond.pos) if before else None, pos=node.pos)
                return pairs, bool(after)
    return None


def _all(parts: list, pos):
    return parts[0] if len(parts) == 1 else ast.BoolOp("and", parts, pos=pos)


def bucket_lines(node, params: list, cx) -> list:
    """The statements (for the top of the function's body) that select the items of every
    value of the key at once (unless the mark says that this failed), remember them all and
    return those asked for (``_key``), or [] when ``node`` is not of the shape
    (:func:`_bucket_shape`).  The pairs are made by a function of their own (no
    remembered-result lookup of it shares the function's text); what compiling it reports
    is not the rulebook's business (its parts were compiled already) and is dropped."""
    shape = _bucket_shape(node, params, cx)
    if shape is None:
        return []
    pairs, wrapped = shape
    names = [f"_p{i}" for i in range(len(params))]
    found = len(cx.report.items)
    saved = cx.gen, cx.stmts, cx.depth
    cx.gen, cx.stmts, cx.depth = Gen(), [], 0
    try:
        src, _typ = gen_expr(pairs, cx)
        failed = any(d.is_error for d in cx.report.items[found:])
        fill = None if failed else cx.gen.params_function(src, node.pos, names, pre=cx.stmts)
    finally:
        cx.gen, cx.stmts, cx.depth = saved
        del cx.report.items[found:]
    if fill is None:
        return []
    gen = cx.gen
    fill = gen.bind(fill, "u")
    filled = gen.bind(FILLED, "filled")
    # an element kept in a one-item list (conditions after k == c) is kept only when there is one
    elem, ws = ("_e[0]", "    ") if wrapped else ("_e", "")
    keep = ["            if _e:"] if wrapped else []
    keep += [f"            {ws}_b = _rows.get(_k)",
             f"            {ws}if _b is None:",
             f"            {ws}    _rows[_k] = [{elem}]",
             f"            {ws}else:",
             f"            {ws}    _b.append({elem})"]
    return [f"_f = _memo.get({filled})",
            "if _f is None:",
            "    try:",
            "        _rows = {}",
            f"        for _k, _e in {fill}(st, {', '.join(names)}):",
            *keep,
            "    except Exception:",
            "        _rows = None",
            "    if _rows is None:",
            f"        _memo[{filled}] = False",
            "    else:",
            "        for _k, _b in _rows.items():",
            "            _memo[_k] = tuple(_b)",
            f"        _memo[{filled}] = True",
            "        return _memo.setdefault(_key, ())",
            "elif _f:",
            "    _v = _memo[_key] = ()",
            "    return _v"]
