"""Operators in an expression: arithmetic and concatenation, comparisons and ``in``,
``and``/``or``/``not`` (statements where a part needs them, so the part not needed is not
evaluated), ``if … else``, ranges, list, tuple and record displays.
"""
from __future__ import annotations

from dsl import ast

from . import types as T
from ..run.limits import LIMITS, check_number, check_size, power
from ..run.values import Record
from .context import Cx, _plain, gen_cond, gen_expr, in_block, indented, nested, src_as_list
from .names import builtin_called, static_int


def _join(a, b):
    a, b = tuple(a), tuple(b)
    check_size(len(a) + len(b), "this joined list")
    return a + b


def _concat(a, b):
    text = a + b
    check_size(len(text), "this text")
    return text


def _binop(node: ast.BinOp, cx: Cx):
    ls, lt = gen_expr(node.left, cx)
    rs, rt = gen_expr(node.right, cx)
    gen = cx.gen
    op = node.op
    if op == "+" and (isinstance(lt, (T.ListT, T.TupleT)) or isinstance(rt, (T.ListT, T.TupleT))):
        if not (T.is_listlike(lt) and T.is_listlike(rt)):
            cx.error(node.pos, f"'+' joins two lists or adds two numbers, not {T.describe(lt)} and {T.describe(rt)}")
        ls, lt = src_as_list(ls, lt, node.left.pos, cx)
        rs, rt = src_as_list(rs, rt, node.right.pos, cx)
        joined = T.join(T.elem_of(lt), T.elem_of(rt)) or T.ANY
        return gen.guard(f"{gen.bind(_join, 'f')}({ls}, {rs})", node.pos, "'+'"), T.ListT(joined)
    if op == "+" and (lt == T.STR or rt == T.STR):
        for side, t in ((node.left, lt), (node.right, rt)):
            if t != T.STR and t != T.ANY:
                cx.error(side.pos, f"'+' joins two texts, but this is {T.describe(t)} (write str(x))")
        return gen.guard(f"{gen.bind(_concat, 'f')}({ls}, {rs})", node.pos, "'+'"), T.STR
    for side, t in ((node.left, lt), (node.right, rt)):
        if not T.is_numeric(t):
            cx.error(side.pos, f"'{op}' needs numbers, but this is {T.describe(t)}")
    if op in ("+", "-"):
        return f"({ls} {op} {rs})", T.INT
    if op == "*":
        # a whole number times the number 1 (a literal or a constant nothing local hides) is
        # that number: no product, no look at the limit 'digits' (the number is within it)
        if lt == T.INT and static_int(node.right, cx.game, cx.scope) == 1:
            return ls, T.INT
        if rt == T.INT and static_int(node.left, cx.game, cx.scope) == 1:
            return rs, T.INT
        if cx.stmts is not None:        # the limit 'digits' looked at where it is needed, no call
            q = gen.temp()
            what = f"'{op}'"
            limits, check = gen.bind(LIMITS, "L"), gen.bind(check_number, "f")
            product = gen.guard(f"{ls} * {rs}", node.pos, what)
            too_long = gen.guard(f"{q}.bit_length() > {limits}.bits", node.pos, what)
            cx.stmts.extend([f"{q} = {product}", f"if {too_long}:", f"    {gen.guard(f'{check}({q})', node.pos, what)}"])
            return q, T.INT
        return gen.guard(f"{gen.bind(check_number, 'f')}({ls} * {rs})", node.pos, f"'{op}'"), T.INT
    if op == "**":
        return gen.guard(f"{gen.bind(power, 'f')}({ls}, {rs})", node.pos, f"'{op}'"), T.INT
    return gen.guard(f"{ls} {op} {rs}", node.pos, f"'{op}'"), T.INT


def _neg(node: ast.Neg, cx: Cx):
    s, t = gen_expr(node.operand, cx)
    if not T.is_numeric(t):
        cx.error(node.pos, f"'-' needs a number, but this is {T.describe(t)}")
    return cx.gen.guard(f"-{s}", node.pos, "'-'"), T.INT


def _orderable(t: T.Type) -> bool:
    if T.is_numeric(t):
        return True
    if isinstance(t, T.TupleT):
        return all(_orderable(x) for x in t.items)
    return isinstance(t, T.Sym) and False


def _in_zone(st, c, z):
    return c is not None and st.where[c.id] == z.id


def _compare(node: ast.Compare, cx: Cx):
    op = node.op
    gen = cx.gen
    if op in ("in", "notin"):
        ls, lt = gen_expr(node.left, cx)
        rs, rt = gen_expr(node.right, cx)
        negate = op == "notin"
        if isinstance(rt, T.ZoneT):
            if not (isinstance(lt, T.Comp) or T.is_any(lt)):
                cx.error(node.left.pos, f"only a component can be in a zone, not {T.describe(lt)}")
            test = gen.guard(f"{gen.bind(_in_zone, 'f')}(st, {ls}, {rs})", node.pos, "'in'")
            return (f"(not {test})" if negate else test), T.BOOL
        if isinstance(rt, T.MapT):
            return f"({ls} {'not in' if negate else 'in'} {rs})", T.BOOL
        if not T.is_listlike(rt):
            cx.error(node.right.pos, f"'in' needs a list or a zone on its right, not {T.describe(rt)}")
        elif not T.comparable(lt, T.elem_of(rt)):
            cx.error(node.pos, f"{T.describe(lt)} is never in {T.describe(rt)}")
        if negate:
            return gen.guard(f"{ls} not in {rs}", node.pos, "'not in'"), T.BOOL
        return gen.guard(f"{ls} in {rs}", node.pos, "'in'"), T.BOOL
    ls, lt = gen_expr(node.left, cx)
    rs, rt = gen_expr(node.right, cx)
    if op in ("==", "!="):
        if not T.comparable(lt, rt):
            cx.error(node.pos, f"cannot compare {T.describe(lt)} with {T.describe(rt)}: they are never equal")
        return f"({ls} {op} {rs})", T.BOOL
    for side, t in ((node.left, lt), (node.right, rt)):
        if not _orderable(t):
            cx.error(side.pos, f"'{op}' compares numbers, but this is {T.describe(t)}")
    return gen.guard(f"{ls} {op} {rs}", node.pos, f"'{op}'"), T.BOOL


def _boolop(node: ast.BoolOp, cx: Cx):
    what = f"each side of '{node.op}'"
    parts = [gen_cond(node.values[0], cx, what)[0]]
    blocks = []
    for v in node.values[1:]:           # evaluated only when the ones before do not decide
        block = nested(cx)
        parts.append(in_block(cx, block, lambda n, c: gen_cond(n, c, what), v)[0])
        blocks.append(block)
    if any(blocks):
        # written as statements: the later sides' own statements run only when they must
        q = cx.gen.temp()
        out = [f"{q} = {parts[0]}"]
        depth = 0
        for part, block in zip(parts[1:], blocks):
            out.append("    " * depth + (f"if {q}:" if node.op == "and" else f"if not {q}:"))
            depth += 1
            out.extend("    " * depth + line for line in block)
            out.append("    " * depth + f"{q} = {part}")
        if len(parts) > 2:
            out.append(f"{q} = True if {q} else False")
        cx.stmts.extend(out)
        return q, T.BOOL
    if len(parts) == 2:
        return f"({parts[0]} {node.op} {parts[1]})", T.BOOL
    # three or more: a strict true/false, as all() and any() give
    return f"(True if ({f' {node.op} '.join(parts)}) else False)", T.BOOL


def _not(node: ast.Not, cx: Cx):
    s, _ = gen_cond(node.operand, cx, "the operand of 'not'")
    return f"(not {s})", T.BOOL


def _ifexp(node: ast.IfExp, cx: Cx):
    ts, _ = gen_cond(node.test, cx)
    bblock, oblock = nested(cx), nested(cx)      # each branch is evaluated only when chosen
    bs, bt = in_block(cx, bblock, gen_expr, node.body)
    os_, ot = in_block(cx, oblock, gen_expr, node.orelse)
    typ = _ifexp_type(node, cx, bt, ot)
    if bblock or oblock:
        q = cx.gen.temp()
        cx.stmts.extend([f"if {ts}:", *indented(bblock), f"    {q} = {bs}",
                         "else:", *indented(oblock), f"    {q} = {os_}"])
        return q, typ
    return f"({bs} if {ts} else {os_})", typ


def _ifexp_type(node: ast.IfExp, cx: Cx, bt, ot):
    typ = T.join(bt, ot)
    if typ is None:
        cx.error(node.pos, f"the two branches give {T.describe(bt)} and {T.describe(ot)}")
        typ = T.ANY
    if isinstance(bt, T.ZoneT) and isinstance(ot, T.ZoneT):
        typ = T.ZoneT(bt.holds | ot.holds)
    elif _is_empty_list(node.orelse) and isinstance(bt, T.ListT):
        typ = bt                # `[0] if c else []`: a list of int, not of anything
    elif _is_empty_list(node.body) and isinstance(ot, T.ListT):
        typ = ot
    return typ


def _is_empty_list(node) -> bool:
    return isinstance(node, ast.ListExpr) and not node.items


#: the short ranges made so far, by (lo, hi): shared by every game, as a range's value never changes
_MADE: dict = {}
#: the same by lo, then hi (``_MADE_BY_LO[lo].get(hi)``): what generated code looks up, no tuple built
_MADE_BY_LO: dict = {}


def _make_range(lo, hi, _made=_MADE):
    r = _made.get((lo, hi))
    if r is None:
        check_size(hi - lo + 1, f"the range {lo}..{hi}")
        r = tuple(range(lo, hi + 1))
        if -64 < lo < 64 and hi - lo < 64 and len(_made) < 4096:
            _made[(lo, hi)] = r
            _MADE_BY_LO.setdefault(lo, {})[hi] = r
    return r


def _range(node: ast.Range, cx: Cx):
    ls, lt = gen_expr(node.lo, cx)
    hs, ht = gen_expr(node.hi, cx)
    for side, t in ((node.lo, lt), (node.hi, ht)):
        if not T.is_numeric(t):
            cx.error(side.pos, f"a range needs numbers, but this is {T.describe(t)}")
    lo, hi = static_int(node.lo, cx.game, cx.scope), static_int(node.hi, cx.game, cx.scope)
    if lo is not None and hi is not None and hi - lo < 64:      # a short constant range: made once
        return cx.gen.bind(tuple(range(lo, hi + 1)), "r"), T.ListT(T.INT)
    ranges = getattr(cx.game, "layout_ranges", None)       # a list only while the rulebook compiles
    if isinstance(ranges, list) and not cx.static and _per_layout(node.lo, cx) and _per_layout(node.hi, cx):
        # bounds a layout fixes (constants, options, the number of players): made once per layout
        # (Layout.ranges; None there when it failed or is empty: made here, as before)
        made = cx.gen.guard(f"{cx.gen.bind(_make_range, 'f')}({ls}, {hs})", node.pos, "range")
        k = len(ranges)
        ranges.append(cx.gen.function(made, node.pos))
        return f"(st.lay.ranges[{k}] or {made})", T.ListT(T.INT)
    if cx.stmts is not None:
        # in statement context a range made before is looked up where it is needed, without a
        # call (an empty one too: None is what is not there); each bound evaluated once, in order
        gen = cx.gen
        lo_s, hi_s = _plain(ls, cx), _plain(hs, cx)
        q = gen.temp()
        look = gen.guard(f"{gen.bind(_MADE_BY_LO, 'rm')}.get({lo_s})", node.pos, "range")
        then = gen.guard(f"{q}.get({hi_s})", node.pos, "range")
        make = gen.guard(f"{gen.bind(_make_range, 'f')}({lo_s}, {hi_s})", node.pos, "range")
        cx.stmts.extend([f"if ({q} := {look}) is None or ({q} := {then}) is None:", f"    {q} = {make}"])
        return q, T.ListT(T.INT)
    return cx.gen.guard(f"{cx.gen.bind(_make_range, 'f')}({ls}, {hs})", node.pos, "range"), T.ListT(T.INT)


def _per_layout(node, cx: Cx) -> bool:
    """Is ``node``'s value fixed by the layout (numbers, constants, options, the number of
    players and seats, tables and constant maps of these, + - * // % min max abs)?"""
    local = cx.scope.lookup if cx.scope is not None else (lambda name: None)
    if isinstance(node, ast.Number):
        return True
    if isinstance(node, ast.Name):
        return local(node.id) is None and (node.id in ("num_players", "num_seats") or node.id in cx.game.constants)
    if isinstance(node, ast.Attr):
        return (isinstance(node.obj, ast.Name) and node.obj.id == "option" and local("option") is None
                and node.name in cx.game.options)
    if isinstance(node, ast.Neg):
        return _per_layout(node.operand, cx)
    if isinstance(node, ast.BinOp):
        return node.op in ("+", "-", "*", "//", "%") and _per_layout(node.left, cx) and _per_layout(node.right, cx)
    if isinstance(node, ast.Index):
        return (isinstance(node.obj, ast.Name) and local(node.obj.id) is None
                and (node.obj.id in cx.game.tables or node.obj.id in cx.game.constants)
                and len(node.args) == 1 and _per_layout(node.args[0], cx))
    if isinstance(node, ast.Call):
        return (builtin_called(node, cx.game) in ("min", "max", "abs")
                and local(node.func.id) is None and all(_per_layout(a, cx) for a in node.args))
    return False


def _list(node: ast.ListExpr, cx: Cx):
    compiled = [gen_expr(i, cx) for i in node.items]
    elem = T.ANY
    if compiled:
        elem = compiled[0][1]
        for item, (_, t) in zip(node.items[1:], compiled[1:]):
            j = T.join(elem, t)
            if j is None:
                cx.error(item.pos, f"list items differ: {T.describe(elem)} and {T.describe(t)}")
                j = T.ANY
            elem = j
    return _tuple_src([s for s, _ in compiled]), T.ListT(elem)


def _tuple_src(parts) -> str:
    if not parts:
        return "()"
    return "(" + ", ".join(parts) + ",)"


def _tuple(node: ast.TupleExpr, cx: Cx):
    compiled = [gen_expr(i, cx) for i in node.items]
    return _tuple_src([s for s, _ in compiled]), T.TupleT(tuple(t for _, t in compiled))


def _record(node: ast.RecordExpr, cx: Cx):
    names = [n for n, _ in node.fields]
    if len(set(names)) != len(names):
        cx.error(node.pos, "a field is named twice in this record")
    compiled = [(n, *gen_expr(v, cx)) for n, v in node.fields]
    gen = cx.gen
    body = ", ".join(f"{gen.bind(n, 's')}: {s}" for n, s, _ in compiled)
    return f"{gen.bind(Record.of, 'R')}({{{body}}})", T.RecordT(tuple((n, t) for n, _, t in compiled))
