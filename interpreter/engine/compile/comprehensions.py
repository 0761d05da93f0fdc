"""Comprehensions and lambdas in an expression: one Python comprehension, nested loops in
statement context (up to a depth Python allows), the loop variables declared in a new
scope (``_declare_targets``, ``note_range``), a lambda's body for the functions that take one.
"""
from __future__ import annotations

from dsl import ast

from . import types as T
from ..run.limits import LIMITS, check_size
from .context import (Cx, E_LAMBDA, MAX_DEPTH, Scope, gen_as_list, gen_cond, gen_expr, in_block,
    indented, nested)
from .names import static_int


def _listcomp(node: ast.ListComp, cx: Cx):
    if cx.scope is None:
        cx.scope = Scope()
    if len(node.fors) > 1:
        return _listcomp_nested(node, cx)
    cx.scope.push()
    cblock, eblock = nested(cx), nested(cx)     # per element: the condition, then the element
    try:
        clause, = node.fors
        its, itype = gen_as_list(clause.iter, cx, "what a 'for' runs over")
        slots = _declare_targets(clause, T.elem_of(itype), cx)
        note_range(clause, slots, cx)
        names = [_pyname(cx, s) for s in slots]
        cond_node, elt = node.cond, node.elt
        if cblock is not None and _keeps_tested(node):
            cond_node, elt = _kept(node, cx, cblock)
        cond = in_block(cx, cblock, gen_cond, cond_node)[0] if cond_node is not None else None
        es, et = in_block(cx, eblock, gen_expr, elt)
    finally:
        cx.scope.pop()
    target = names[0] if len(names) == 1 else "(" + ", ".join(names) + ",)"
    if cblock is not None:
        # in statement context written as a loop: the condition's and the element's own
        # statements run per element, and no Python comprehension (a function made and called
        # in Python 3.11, which costs more than appending to a list) runs
        q = cx.gen.temp()
        body = [*eblock, f"{q}.append({es})"]
        if cond is not None:
            body = [*cblock, f"if {cond}:", *indented(body)]
        cx.stmts.extend([f"{q} = []", f"for {target} in {its}:", *indented(body), f"{q} = tuple({q})"])
        return q, T.ListT(et)
    tail = f" if {cond}" if cond is not None else ""
    return f"tuple([{es} for {target} in {its}{tail}])", T.ListT(et)


#: the name under which a comprehension keeps the value its condition compares: no
#: rulebook can write it (it is not a name of the grammar)
_KEPT = "<kept>"


def _keeps_tested(node: ast.ListComp) -> bool:
    """``[e for x in xs if e < y]``: is the element the left side of the condition's comparison?"""
    cond = node.cond
    return (isinstance(cond, ast.Compare) and cond.op not in ("in", "notin")
            and ast.same_tree(cond.left, node.elt))


def _kept(node: ast.ListComp, cx: Cx, cblock: list):
    """The condition and element of a comprehension whose element is the left side of its
    condition's comparison (``_keeps_tested``), both reading that value computed once per
    item, first in the item's statements: ``[u * k for u in 0..n if u * k <= m]`` multiplies
    once per item.  (Where both sides of the comparison fail, the left one's failure is the
    one reported.)"""
    cond = node.cond
    ls, lt = in_block(cx, cblock, gen_expr, cond.left)
    if not ls.isidentifier():
        q = cx.gen.temp()
        cblock.append(f"{q} = {ls}")
        ls = q
    slot = cx.scope.declare(_KEPT, lt)
    cx.scope.py[slot] = ls
    kept = ast.Name(_KEPT, pos=cond.left.pos)
    return ast.Compare(cond.op, kept, cond.right, pos=cond.pos), ast.Name(_KEPT, pos=node.elt.pos)


def _pyname(cx: Cx, slot: int) -> str:
    name = f"_v{slot}"
    cx.scope.py[slot] = name
    return name


def _listcomp_nested(node: ast.ListComp, cx: Cx):
    """Several ``for``s: one Python comprehension that counts the combinations it
    tries (limit 'elements'): the innermost list's length is added up before it runs.
    In statement context, nested loops instead (:func:`_listcomp_loops`)."""
    if cx.stmts is not None and cx.depth + len(node.fors) + 1 < MAX_DEPTH:
        return _listcomp_loops(node, cx)
    gen = cx.gen
    cx.scope.push()
    clauses = []
    try:
        for i, clause in enumerate(node.fors):
            its, itype = (gen_as_list(clause.iter, cx, "what a 'for' runs over") if i == 0 else
                          in_block(cx, None, lambda n, c: gen_as_list(n, c, "what a 'for' runs over"),
                                   clause.iter))
            slots = _declare_targets(clause, T.elem_of(itype), cx)
            note_range(clause, slots, cx)
            names = [_pyname(cx, s) for s in slots]
            clauses.append((names, its))
        cond = in_block(cx, None, gen_cond, node.cond)[0] if node.cond is not None else None
        es, et = in_block(cx, None, gen_expr, node.elt)
    finally:
        cx.scope.pop()
    counter = f"_n{len(gen.ns)}"
    tally = gen.bind(_tally, "f")
    parts = []
    for i, (names, its) in enumerate(clauses):
        target = names[0] if len(names) == 1 else "(" + ", ".join(names) + ",)"
        if i == len(clauses) - 1:
            its = f"{tally}({its}, {counter})"
        parts.append(f"for {target} in {its}")
    tail = f" if {cond}" if cond is not None else ""
    inner = f"(lambda {counter}: tuple([{es} {' '.join(parts)}{tail}]))([0])"
    return gen.guard(inner, node.pos, "comprehension"), T.ListT(et)


def _listcomp_loops(node: ast.ListComp, cx: Cx):
    """A comprehension of several ``for``s in statement context, written as nested loops:
    each clause's list, the condition and the element may be statements in the loop they
    belong to (a rulebook function's remembered result looked up there instead of called),
    and no Python comprehension (a function call in Python 3.11) runs.  The same values in
    the same order, the same count of combinations tried (the innermost list's length,
    limit 'elements', a failure of which is located at the comprehension)."""
    gen = cx.gen
    depth = cx.depth
    pieces = []             # per clause: (target, list text, its statements)
    try:
        cx.scope.push()
        for i, clause in enumerate(node.fors):
            block = cx.stmts if i == 0 else []
            cx.depth = depth + i
            its, itype = in_block(cx, block, lambda n, c: gen_as_list(n, c, "what a 'for' runs over"),
                                  clause.iter)
            slots = _declare_targets(clause, T.elem_of(itype), cx)
            note_range(clause, slots, cx)
            names = [_pyname(cx, s) for s in slots]
            target = names[0] if len(names) == 1 else "(" + ", ".join(names) + ",)"
            pieces.append((target, its, [] if i == 0 else block))
        cx.depth = depth + len(node.fors) - 1
        cblock, eblock = [], []
        cond = in_block(cx, cblock, gen_cond, node.cond)[0] if node.cond is not None else None
        es, et = in_block(cx, eblock, gen_expr, node.elt)
    finally:
        cx.scope.pop()
        cx.depth = depth
    q = gen.temp()
    counter = gen.temp()
    body = [*eblock, f"{q}.append({es})"]
    if cond is not None:
        body = [*cblock, f"if {cond}:", *indented(body)]
    last = len(pieces) - 1
    for i in range(last, -1, -1):
        target, its, block = pieces[i]
        if i == last:       # the innermost list's length added up where it is made (_tally, written out)
            items = gen.temp()
            size = gen.guard(f"len({items})", node.pos, "comprehension")
            too_many = gen.guard(f"{gen.bind(check_size, 'f')}({counter}, {gen.bind('this comprehension', 's')})",
                                 node.pos, "comprehension")
            block = [*block, f"{items} = {gen.guard(its, node.pos, 'comprehension')}",
                     f"{counter} += {size}",
                     f"if {counter} > {gen.bind(LIMITS, 'L')}.elements:", f"    {too_many}"]
            its = items
        body = [*block, f"for {target} in {its}:", *indented(body)]
    cx.stmts.extend([f"{q} = []", f"{counter} = 0", *body, f"{q} = tuple({q})"])
    return q, T.ListT(et)


def _tally(items, counter):
    """``items``, after adding their number to ``counter[0]`` (the combinations a
    comprehension tries; limit 'elements')."""
    counter[0] += len(items)
    if counter[0] > LIMITS.elements:
        check_size(counter[0], "this comprehension")
    return items


def _declare_targets(clause: ast.CompFor, elem: T.Type, cx: Cx) -> list:
    names = clause.names
    if len(names) == 1:
        return [cx.scope.declare(names[0], elem)]
    if isinstance(elem, T.TupleT):
        if len(elem.items) != len(names):
            cx.error(clause.pos, f"cannot unpack {elem} into {len(names)} names")
            items = [T.ANY] * len(names)
        else:
            items = list(elem.items)
    elif isinstance(elem, T.ListT):
        items = [elem.elem] * len(names)
    else:
        if not T.is_any(elem):
            cx.error(clause.pos, f"cannot unpack {T.describe(elem)} into {len(names)} names")
        items = [T.ANY] * len(names)
    return [cx.scope.declare(n, t) for n, t in zip(names, items)]


def note_range(clause, slots, cx: Cx) -> None:
    """Remember that a loop variable runs over ``a..b`` with known bounds."""
    if len(slots) == 1 and isinstance(clause.iter, ast.Range) and cx.scope is not None:
        lo, hi = static_int(clause.iter.lo, cx.game, cx.scope), static_int(clause.iter.hi, cx.game, cx.scope)
        if lo is not None and hi is not None:
            cx.scope.ranges[slots[0]] = (lo, hi)


def bind(L, slots, value):
    if len(slots) == 1:
        L[slots[0]] = value
    else:
        for s, v in zip(slots, value):
            L[s] = v


def _lambda(node: ast.Lambda, cx: Cx):
    return cx.error(node.pos, "a lambda (x -> ...) may only be an argument of a function call", E_LAMBDA)


def gen_lambda(node, param_type: T.Type, cx: Cx, expect: T.Type | None, what: str, block=None):
    """``x -> body`` as a Python lambda of one argument (the variable a Python local); the
    body's own statements go to ``block`` (a loop's body written by the caller; None: the
    body is one expression, as a lambda needs)."""
    if not isinstance(node, ast.Lambda):
        cx.error(node.pos, f"{what} must be a lambda such as 'x -> ...'", E_LAMBDA)
        return "(lambda _x: None)", T.ANY
    if cx.scope is None:
        cx.scope = Scope()
    cx.scope.push()
    saved = cx.stmts, cx.depth
    cx.stmts, cx.depth = block, cx.depth + 1
    try:
        slot = cx.scope.declare(node.param, param_type)
        name = _pyname(cx, slot)
        if expect == T.BOOL:
            body, bt = gen_cond(node.body, cx, f"the result of {what}")
        else:
            body, bt = gen_expr(node.body, cx)
            if expect is not None and not T.compatible(bt, expect):
                cx.error(node.body.pos, f"{what} must give {T.describe(expect)}, not {T.describe(bt)}")
    finally:
        cx.stmts, cx.depth = saved
        cx.scope.pop()
    return _Lambda(f"(lambda {name}: {body})", name, body), bt


class _Lambda(str):
    """A lambda's source, which also knows its parameter and body (so that a
    call such as ``count(xs, x -> ...)`` can be written as a comprehension)."""

    def __new__(cls, text, param, body):
        self = super().__new__(cls, text)
        self.param = param
        self.body = body
        return self
