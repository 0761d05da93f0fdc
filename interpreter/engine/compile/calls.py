"""Calls in an expression: the standard library's functions (written out where their cost is
fixed, their lambda inline, as loops that stop at the element that decides, keys computed in a
loop), a zone family called with its key, the rulebook's own functions (their remembered
results looked up where needed, small ones written out with their arguments bound), and
which expressions yield distinct values (``yields_distinct``) or can be written inline
(``inlinable``).
"""
from __future__ import annotations

from dsl import ast
from dsl.diagnostics import Pos, Report

from . import types as T
from ..run.stdlib import BUILTINS
from .codegen import MISSING, Gen, memo_path
from .context import (Cx, E_ARITY, E_LAMBDA, E_NAME, E_STATIC, Scope, _use, contents_of, gen_expr,
    indented, nested, src_as_list, suggest)
from .names import _family_key
from .context import _PLAIN_ARG, _plain  # noqa: F401 - written here first
from .operators import _tuple_src
from .rowfill import bucket_lines, row_lines
from .comprehensions import _Lambda, gen_lambda


#: builtins of one list (or zone) written out as the Python they stand for (stdlib has the same)
_DIRECT = {
    "empty": "(not {xs})",
    "count": "len({xs})",
}

#: builtins of fixed cost written out as the Python they stand for (stdlib has the same
#: meaning), by name and number of arguments; an argument used more than once must be plain
#: (statement context binds it to a local first), else the library function is called
_SMALL = {
    ("top", 1): "({0}[-1] if {0} else None)",
    ("bottom", 1): "({0}[0] if {0} else None)",
    ("first", 1): "({0}[0] if {0} else None)",
    ("last", 1): "({0}[-1] if {0} else None)",
    ("full", 1): "({0}.capacity is not None and len(st.z[{0}.id]) >= {0}.capacity)",
    ("room", 1): "(({0}.capacity if {0}.capacity is not None else 1000000000) - len(st.z[{0}.id]))",
    ("capacity", 1): "({0}.capacity if {0}.capacity is not None else 1000000000)",
    ("owner", 1): "{0}.owner",
    ("automaton", 1): "({0} in st.lay.automata)",
    ("next", 1): "(({0} + 1) % st.lay.num_seats)",
    ("next", 2): "(({0} + {1}) % st.lay.num_seats)",
    ("prev", 1): "(({0} - 1) % st.lay.num_seats)",
    ("prev", 2): "(({0} - {1}) % st.lay.num_seats)",
    ("seat_name", 1): "st.lay.seat_names[{0}]",
    # (only where xs is a list: a slice of it; else the library's tuple(xs)[:n])
    ("take", 2): "(tuple({0}[:{1}]) if {1} > 0 else ())",
}
#: those of ``_SMALL`` written out only where their first argument is a list (or a zone's contents)
_SMALL_OF_LISTS = frozenset({("take", 2)})

#: builtins whose lambda is written inline, as the body of a comprehension
#: (the same result as the standard-library function, without a call per element;
#: any and all still stop at the first element that decides)
_INLINE = {
    "count": "len([None for {v} in {xs} if {body}])",
    "filter": "tuple([{v} for {v} in {xs} if {body}])",
    "map": "tuple([{body} for {v} in {xs}])",
    "sum": "{sum}([{body} for {v} in {xs}])",
    "any": "{next}((True for {v} in {xs} if {body}), False)",
    "all": "{next}((False for {v} in {xs} if not {body}), True)",
    "first": "{next}(({v} for {v} in {xs} if {body}), None)",
}


def _call(node: ast.Call, cx: Cx):
    if not isinstance(node.func, ast.Name):
        return cx.error(node.pos, "only named functions can be called")
    name = node.func.id
    g = cx.game
    _use(cx, name)
    if name in g.functions:
        return _call_user(node, g.functions[name], cx)
    b = BUILTINS.get(name)
    if b is None:
        return cx.error(node.func.pos, f"unknown function '{name}'{suggest(name, list(BUILTINS) + list(g.functions))}",
                        E_NAME)
    if name == "known" and len(node.args) == 2 and _variable_named(node.args[1], cx) is not None:
        return _known_value(node, cx)
    return _call_builtin(node, b, cx)


def _variable_named(node, cx: Cx):
    """The variable ``node`` names (``v`` or ``v[...]``, not hidden by a local), else None."""
    head = node.obj if isinstance(node, ast.Index) else node
    if not isinstance(head, ast.Name) or (cx.scope is not None and cx.scope.lookup(head.id) is not None):
        return None
    return cx.game.variables.get(head.id)


def _known_value(node: ast.Call, cx: Cx):
    """``known(p, v[k])``: true if seat p knows the value of variable v's element k now: it is
    visible to p, or a `reveal` step showed it to p and it has not changed since."""
    p_node, target = node.args
    var = _variable_named(target, cx)
    _use(cx, var.name)
    if cx.static:
        return cx.error(node.pos, "known() reads a game's state: it cannot be used here", E_STATIC)
    ps, pt = gen_expr(p_node, cx)
    if not T.compatible(pt, T.PLAYER):
        cx.error(p_node.pos, f"known(p, …): p is a seat, not {T.describe(pt)}")
    gen = cx.gen
    if var.index:
        if not isinstance(target, ast.Index):
            return cx.error(target.pos, f"known(p, {var.name}[…]): variable '{var.name}' needs an index", E_NAME)
        key = _family_key(target, var.index, f"variable '{var.name}'", cx)
        at = f"st.vk[{int(var.family_id)}].get({key})"
    else:
        if isinstance(target, ast.Index):
            return cx.error(target.pos, f"variable '{var.name}' has no index", E_NAME)
        key, at = "None", str(int(var.offset))
    return gen.guard(f"{gen.bind(_knows_value, 'f')}(st, {ps}, {gen.bind(var, 'v')}, {key}, {at})", node.pos,
                     "known()"), T.BOOL


def _knows_value(st, p, var, key, at) -> bool:
    from ..knowledge.observe import var_visible
    if p is None or at is None:
        return False
    return p in st.value_revealed_to(at) or bool(var_visible(st, var, key, p))


#: max(a, b, ...) and min(a, b, ...) of numbers mean Python's (stdlib._extreme)
_NUMERIC_PICK = {"max": max, "min": min}


def _counted_selection(node) -> bool:
    """Is ``node`` ``[x for x in xs if cond]``: the items of one list that meet a condition, each
    item itself?  ``count`` of it is ``count(xs, x -> cond)`` — the same items asked the same
    question in the same order — counted without the list."""
    return (isinstance(node, ast.ListComp) and node.cond is not None and len(node.fors) == 1
            and len(node.fors[0].names) == 1 and isinstance(node.elt, ast.Name)
            and node.elt.id == node.fors[0].names[0])


def _call_builtin(node: ast.Call, b, cx: Cx):
    args = node.args
    if b.name == "count" and len(args) == 1 and _counted_selection(args[0]):
        sel = args[0]
        args = [sel.fors[0].iter, ast.Lambda(sel.fors[0].names[0], sel.cond, pos=sel.pos)]
    gen = cx.gen
    impl = gen.bind(b.impl, "b")
    if b.variadic_numeric and args and not isinstance(args[0], ast.Lambda):
        probe = Cx(cx.game, Report(), cx.scope, cx.static, cx.notes, cx.compiler, Gen())
        first_t = gen_expr(args[0], probe)[1]      # only its type: nothing is compiled
        if T.is_numeric(first_t) and not T.is_any(first_t):
            parts = []
            for a in args:
                s, t = gen_expr(a, cx)
                if not T.is_numeric(t):
                    cx.error(a.pos, f"{b.name}(a, b, ...) compares numbers, not {T.describe(t)}")
                parts.append(s)
            if len(parts) == 2 and (cx.stmts is not None or all(_PLAIN_ARG.match(p) for p in parts)):
                # max(a, b) written out: what Python's max does with two (b if b > a else a: the
                # same comparison, so the same result and the same error), without a call that
                # parses its arguments as keywords; each argument evaluated once, in order
                a, c = (_plain(parts[0], cx), _plain(parts[1], cx)) if cx.stmts is not None else parts
                op = ">" if b.name == "max" else "<"
                return gen.guard(f"({c} if {c} {op} {a} else {a})", node.pos, f"{b.name}()"), T.INT
            if len(parts) > 1:      # max(a, b): the library's meaning is Python's max of the numbers
                return gen.guard(f"{gen.bind(_NUMERIC_PICK[b.name], 'f')}({', '.join(parts)})", node.pos,
                                 f"{b.name}()"), T.INT
            return gen.guard(f"{impl}(st, {', '.join(parts)})", node.pos, f"{b.name}()"), T.INT
    if b.params and b.params[0].kind == "family":
        return _call_family(node, b, cx)
    required = [p for p in b.params if not p.optional]
    args = _skip_function(b, list(args))
    if not len(required) <= len(args) <= len(b.params):
        shape = ", ".join(p.name + ("?" if p.optional else "") for p in b.params)
        return cx.error(node.pos, f"{b.name}({shape}) takes {len(required)}"
                                  f"{'' if len(required) == len(b.params) else f' to {len(b.params)}'} "
                                  f"arguments, not {len(args)}", E_ARITY)
    types: dict = {}
    fn_types: dict = {}
    parts = []
    # an aggregate with a lambda in statement context becomes a loop (below): its body's own
    # statements go into the loop
    body_block = (nested(cx) if ((b.name in _LOOPS or b.keyed is not None) and len(args) == 2
                                 and isinstance(args[1], ast.Lambda)) else None)
    for p, a in zip(b.params, args):
        if a is None:                   # an optional function left out (_skip_function)
            parts.append("None")
            continue
        if p.kind == "fn":
            mode = p.arg_from[0]
            if mode == "elem":
                ptype = T.elem_of(types.get(p.arg_from[1], T.ANY))
            elif mode == "same":
                ptype = types.get(p.arg_from[1], T.ANY)
            elif mode == "assignment":
                item = T.elem_of(types.get(p.arg_from[1], T.ANY))
                opt = T.elem_of(fn_types.get(p.arg_from[2], T.ANY))
                ptype = T.ListT(T.TupleT((item, opt)))
            else:
                ptype = T.ANY
            s, rt = gen_lambda(a, ptype, cx, p.returns, f"the '{p.name}' of {b.name}()", body_block)
            fn_types[p.name] = rt
            parts.append(s)
            continue
        s, t = gen_expr(a, cx)
        if isinstance(a, ast.Lambda):
            cx.error(a.pos, f"the '{p.name}' of {b.name}() is not a function", E_LAMBDA)
        if p.kind == "list":
            s, t = src_as_list(s, t, a.pos, cx, f"the '{p.name}' of {b.name}()")
        elif p.kind == "zone":
            if not isinstance(t, T.ZoneT) and not T.is_any(t):
                cx.error(a.pos, f"the '{p.name}' of {b.name}() must be a zone, not {T.describe(t)}")
        elif p.kind == "zones":
            if not T.is_any(t) and not (isinstance(t, T.ListT) and isinstance(t.elem, T.ZoneT)) \
                    and not (isinstance(t, T.ListT) and T.is_any(t.elem)):
                cx.error(a.pos, f"the '{p.name}' of {b.name}() must be a list of zones, not {T.describe(t)}")
        elif p.expect is not None and not T.compatible(t, p.expect):
            cx.error(a.pos, f"the '{p.name}' of {b.name}() must be {T.describe(p.expect)}, not {T.describe(t)}")
        types[p.name] = t
        parts.append(s)
    result = b.result(types, fn_types)
    small = _SMALL.get((b.name, len(parts)))
    if (b.name, len(parts)) in _SMALL_OF_LISTS and not isinstance(types.get(b.params[0].name), (T.ListT, T.TupleT)):
        small = None
    if small is not None and not any(isinstance(p, _Lambda) for p in parts):
        many = any(small.count("{%d}" % i) > 1 for i in range(len(parts)))
        if many and cx.stmts is not None:
            parts = [_plain(p, cx) for p in parts]
        if not many or all(_PLAIN_ARG.match(p) for p in parts):
            return gen.guard(small.format(*parts), node.pos, f"{b.name}()"), result
    direct = _DIRECT.get(b.name)
    if direct is not None and len(parts) == 1 and not isinstance(parts[0], _Lambda):
        return gen.guard(direct.format(xs=parts[0]), node.pos, f"{b.name}()"), result
    if body_block is not None and isinstance(parts[1], _Lambda):
        if b.keyed is not None:
            return _keyed(b, parts[0], parts[1], body_block, node.pos, cx), result
        if body_block or b.name in _ALWAYS_LOOP:
            return _loop(b.name, parts[0], parts[1], body_block, node.pos, cx), result
    inline = _INLINE.get(b.name)
    if inline is not None and len(parts) == 2 and isinstance(parts[1], _Lambda):
        text = inline.format(v=parts[1].param, xs=parts[0], body=parts[1].body,
                             sum=gen.bind(sum, "f"), next=gen.bind(next, "f"))
        return gen.guard(text, node.pos, f"{b.name}()"), result
    return gen.guard(f"{impl}(st, {', '.join(parts)})", node.pos, f"{b.name}()"), result


def _skip_function(b, args: list) -> list:
    """The arguments of ``b``, with None for an optional function left out before a value
    that follows it (``first(xs, default)`` is ``first(xs, <no pred>, default)``): a lambda
    is written as one, so an argument that is not one is the value after it."""
    params = b.params
    if len(args) < len(params):
        for i, (p, a) in enumerate(zip(params, args)):
            if (p.kind == "fn" and p.optional and not isinstance(a, ast.Lambda) and i + 1 < len(params)
                    and params[i + 1].kind == "value" and params[i + 1].optional):
                return [*args[:i], None, *args[i:]]
    return args


#: aggregates with a lambda written as a loop in statement context: the result, what each
#: element does to it (``{q}`` the result, ``{v}`` the element, ``{body}`` the lambda's value)
#: and what follows the loop; any, all and first stop at the element that decides
_LOOPS = {
    "any": ("False", ["if {body}:", "    {q} = True", "    break"], None),
    "all": ("True", ["if not {body}:", "    {q} = False", "    break"], None),
    "first": ("None", ["if {body}:", "    {q} = {v}", "    break"], None),
    "count": ("0", ["if {body}:", "    {q} += 1"], None),
    "sum": ("0", ["{q} += {body}"], None),
    "filter": ("[]", ["if {body}:", "    {q}.append({v})"], "{q} = tuple({q})"),
    "map": ("[]", ["{q}.append({body})"], "{q} = tuple({q})"),
}
#: those a loop always beats: no generator, no list built (any, all, first, count, sum), or no
#: Python comprehension, a function made and called in Python 3.11 (filter, map) — all of them
_ALWAYS_LOOP = frozenset(_LOOPS)


def _loop(name: str, xs: str, lam, block: list, pos: Pos, cx: Cx) -> str:
    """``name(xs, v -> body)`` as a loop in the current statements (the same values as the
    library function and ``_INLINE``; a failure in it is "name(): …" at the call)."""
    gen = cx.gen
    start, each, after = _LOOPS[name]
    q = gen.temp()
    body = gen.guard(lam.body, pos, f"{name}()")
    lines = [f"{q} = {start}", f"for {lam.param} in {gen.guard(xs, pos, f'{name}()')}:", *indented(block)]
    lines.extend("    " + line.format(q=q, v=lam.param, body=body) for line in each)
    if after is not None:
        lines.append(after.format(q=q))
    cx.stmts.extend(lines)
    return q


def _keyed(b, xs: str, lam, block: list, pos: Pos, cx: Cx) -> str:
    """``name(xs, v -> key)`` of a function whose lambda is a key of every item
    (``Builtin.keyed``) in the current statements: the keys in a loop, in order, then the
    function given the items and their keys."""
    gen = cx.gen
    what = f"{b.name}()"
    items, keys = gen.temp(), gen.temp()
    cx.stmts.extend([f"{items} = {gen.guard(xs, pos, what)}", f"{keys} = []",
                     f"for {lam.param} in {items}:", *indented(block),
                     f"    {keys}.append({gen.guard(lam.body, pos, what)})"])
    return gen.guard(f"{gen.bind(b.keyed, 'b')}(st, {items}, {keys})", pos, what)


def _call_family(node: ast.Call, b, cx: Cx):
    """A builtin over part of a zone family: ``name(family, i...)``.  The family is
    named bare; the index values given (the first ones, in order) are typed like
    ``family[...]``'s.  The impl gets the family's id and the values as one tuple."""
    args = node.args
    g = cx.game
    fam_param = b.params[0].name
    if not args:
        return cx.error(node.pos, f"{b.name}() needs the name of a zone family: {b.name}({fam_param}, ...)", E_ARITY)
    first = args[0]
    fam = None
    if isinstance(first, ast.Name) and (cx.scope is None or cx.scope.lookup(first.id) is None):
        fam = g.zones.get(first.id)
    if fam is None:
        for a in args[1:]:
            gen_expr(a, cx)
        return cx.error(first.pos, f"the '{fam_param}' of {b.name}() must be the name of a zone family"
                                   f"{suggest(first.id, list(g.zones)) if isinstance(first, ast.Name) else ''}")
    _use(cx, first.id)
    if cx.static:
        return cx.error(node.pos, f"zone '{first.id}' cannot be used here: zones do not exist yet when a "
                                  "game is laid out", E_STATIC)
    lead = args[1:]
    if len(lead) > len(fam.index):
        return cx.error(node.pos, f"zone family '{first.id}' has {len(fam.index)} index value(s) "
                                  f"({', '.join(i.name for i in fam.index)}); {b.name}() got {len(lead)}", E_ARITY)
    parts = []
    for arg, spec in zip(lead, fam.index):
        s, t = gen_expr(arg, cx)
        if isinstance(arg, ast.Lambda):
            cx.error(arg.pos, f"an index value of {b.name}() is not a function", E_LAMBDA)
        elif not T.compatible(t, spec.type):
            cx.error(arg.pos, f"zone family '{first.id}': index '{spec.name}' is {T.describe(spec.type)}, "
                              f"not {T.describe(t)}")
        parts.append(s)
    result = b.result({b.params[0].name: T.ZoneT(fam.holds)}, {})
    gen = cx.gen
    return gen.guard(f"{gen.bind(b.impl, 'b')}(st, {int(fam.id)}, {_tuple_src(parts)})", node.pos,
                     f"{b.name}()"), result


def compile_function(node: ast.Node, cx: Cx, slot: int, nparams: int, declared: list = (), owner=None):
    """A rulebook function's body as ``f(state, *arguments)``, its parameters (the
    scope's first slots) Python locals; results are remembered in ``State.memo[slot]``
    (functions are pure: a result stays valid until what it reads changes).  ``declared``:
    the parameters' ``(name, type)``; a count by a field of the last one, or a selection by
    it, fills a whole row of results (rowfill.py); ``owner``: its model.FuncDecl."""
    params = [f"_p{i}" for i in range(nparams)]
    for i, p in enumerate(params):
        cx.scope.py[i] = p
    saved = cx.gen, cx.stmts, cx.depth
    cx.gen, cx.stmts, cx.depth = Gen(owner), [], 0
    try:
        errors = len(cx.report.errors)
        src, typ = gen_expr(node, cx)
        pre = cx.stmts
        row = (row_lines(node, list(declared), cx) or bucket_lines(node, list(declared), cx)
               if len(cx.report.errors) == errors else [])
        return cx.gen.memo_function(src, node.pos, slot, params, pre=pre, row=row), typ
    finally:
        cx.gen, cx.stmts, cx.depth = saved


def _call_user(node: ast.Call, fdecl, cx: Cx):
    if len(node.args) != len(fdecl.params):
        return cx.error(node.pos, f"{fdecl.name}() takes {len(fdecl.params)} arguments, not {len(node.args)}",
                        E_ARITY)
    parts = []
    for a, (pname, ptype) in zip(node.args, fdecl.params):
        s, t = gen_expr(a, cx)
        if isinstance(ptype, T.ListT) and isinstance(t, T.ZoneT):
            s = f"tuple({contents_of(s, cx)})"      # a snapshot, hashable
            t = T.ListT(T.elem_of(t))
        if not T.compatible(t, ptype):
            cx.error(a.pos, f"argument '{pname}' of {fdecl.name}() must be {T.describe(ptype)}, not {T.describe(t)}")
        parts.append(s)
    if cx.compiler is not None:
        cx.compiler.compile_function(fdecl, node.pos, static=cx.static)
    if cx.compiler is None or not cx.compiler.in_option_domains:
        fdecl.called_outside_options = True
    if fdecl.type is None or fdecl.compiled is None:
        return cx.error(node.pos, f"{fdecl.name}() calls itself; functions may not be recursive")
    if fdecl.inline_body is not None and parts and not cx.static:
        if cx.stmts is not None:        # statement context: any argument can be made plain
            parts = [_plain(part, cx) for part in parts]
        if all(_PLAIN_ARG.match(p) for p in parts):
            src = _inline(fdecl, parts, cx)
            if src is not None:
                return src, fdecl.type
    _note_asked(fdecl, parts, cx)
    if cx.stmts is not None and not cx.static:
        return _memo_probe(fdecl, parts, cx), fdecl.type
    return f"{cx.gen.bind(fdecl.compiled, 'u')}({', '.join(['st'] + parts)})", fdecl.type


def _note_asked(fdecl, parts: list, cx: Cx) -> None:
    """Remember where ``fdecl``'s remembered result is asked for: in the body of a rulebook
    function (``FuncDecl.asked``: which one, its generated function's codegen.Gen, whether the
    arguments pass every parameter of that function on as it is), or anywhere else
    (``FuncDecl.asked_elsewhere``) — for dependencies.not_remembered.  (A body is compiled
    once, so the list stays as long as the rulebook's calls in bodies.)"""
    owner = None if cx.static or cx.gen is None else cx.gen.owner
    if owner is None:
        fdecl.asked_elsewhere = True
        return
    passes_all = set(f"_p{i}" for i in range(len(owner.params))) <= set(parts)
    fdecl.asked.append((owner, cx.gen, passes_all))


def leave_unremembered(fdecl) -> None:
    """Let every function whose body asks for ``fdecl``'s result call its variant that
    remembers nothing (dependencies.not_remembered: nobody would ask for a remembered result
    again): the name each of their generated functions calls on a miss, and the one a
    variant compiled later from the same text will call, bound to it."""
    fill = getattr(fdecl.compiled, "_rw_fill", None)
    if fill is None:
        return
    plain = getattr(fill, "_rw_plain_fn", None)
    if plain is None:
        plain = fill._rw_plain_fn = fill._rw_plain()
    for owner, gen, _ in fdecl.asked:
        names = [gen.names[id(obj)] for obj in (fdecl.compiled, fill) if id(obj) in gen.names]
        made = [owner.compiled, getattr(owner.compiled, "_rw_fill", None)]
        for name in names:
            if gen.ns.get(name) in (fdecl.compiled, fill):
                gen.ns[name] = plain
            for fn in made:
                if fn is not None and fn.__globals__.get(name) in (fdecl.compiled, fill):
                    fn.__globals__[name] = plain
    fdecl.remembered = False


def _memo_probe(fdecl, parts: list, cx: Cx) -> str:
    """A call of a rulebook function in statement context: its remembered result looked up
    where it is needed (what the function itself does first, without the call), the
    function called only when there is none — its variant that does not look again
    (``_rw_fill``, codegen.Gen.memo_function)."""
    gen = cx.gen
    args = [_plain(part, cx) for part in parts]     # each argument once
    q = gen.temp()
    outer, key = memo_path(args)
    miss = gen.bind(MISSING, "miss")
    inner = "".join(f" or ({q} := {q}.get({a})) is None" for a in outer)    # nested (Gen.memo_function)
    cx.stmts.extend([f"{q} = st.memo[{int(fdecl.slot)}]",
                     f"if {q} is None{inner} or ({q} := {q}.get({key}, {miss})) is {miss}:",
                     f"    {q} = {gen.bind(getattr(fdecl.compiled, '_rw_fill', fdecl.compiled), 'u')}"
                     f"({', '.join(['st'] + args)})"])
    return q


#: the most nodes a function's body may have to be written out where it is called
INLINE_NODES = 24


#: builtins that take a fixed, small time (no scan of a list or a zone family): a body that
#: calls only these costs less than looking its remembered result up
CHEAP_BUILTINS = frozenset({"abs", "automaton", "bottom", "capacity", "empty", "first", "full", "last",
                            "next", "prev", "owner", "room", "seat_name", "top", "zone_index", "zone_of",
                            "str"})


#: builtins whose result holds no value twice when their first argument holds none twice
_KEEPS_DISTINCT = frozenset({"filter", "sorted", "reversed"})


def yields_distinct(node: ast.Node, game, local: frozenset, trees: dict, depth: int = 0) -> bool:
    """Is the list ``node`` evaluates to certainly without repeats, in every state?  (A range,
    an enum, ``players``, a list of at most one item, ``distinct(...)``, a fixed constant
    list without repeats, a comprehension that keeps its loop value from such a list, and
    ``filter``, ``sorted``, ``reversed``, ``if``/``else`` and rulebook functions of these.)
    ``local``: names bound in the scope, which hide the game's names; ``trees``: the
    rulebook functions' parsed bodies.  A false "no" costs only speed; a "yes" must hold."""
    if depth > 8:
        return False
    if isinstance(node, ast.Range):
        return True
    if isinstance(node, ast.ListExpr):
        return len(node.items) <= 1
    if isinstance(node, ast.IfExp):
        return (yields_distinct(node.body, game, local, trees, depth + 1)
                and yields_distinct(node.orelse, game, local, trees, depth + 1))
    if isinstance(node, ast.Name):
        n = node.id
        if n in local:
            return False
        if n == "players" or n in game.enums:
            return True
        const = game.constants.get(n)
        if const is not None and const.compute is None and isinstance(const.value, tuple):
            try:
                return len(set(const.value)) == len(const.value)
            except TypeError:           # unhashable items
                return False
        return False
    if isinstance(node, ast.ListComp):
        if len(node.fors) != 1 or len(node.fors[0].names) != 1:
            return False
        var = node.fors[0].names[0]
        return (isinstance(node.elt, ast.Name) and node.elt.id == var
                and yields_distinct(node.fors[0].iter, game, local, trees, depth + 1))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in local:
        name = node.func.id
        if name in game.functions:
            f = game.functions[name]
            tree = trees.get(name)
            return tree is not None and yields_distinct(tree, game, frozenset(p for p, _ in f.params),
                                                        trees, depth + 1)
        if name == "distinct":
            return True
        if name in _KEEPS_DISTINCT and node.args:
            return yields_distinct(node.args[0], game, local, trees, depth + 1)
    return False


def inlinable(node: ast.Node, functions) -> bool:
    """A body cheap enough to compute at each call rather than to remember: small, without
    a scope of its own (no lambda, no comprehension: its parameters can simply stand for
    the arguments; nothing that scans a zone), calling only builtins of fixed cost
    (``count`` of one thing, ``min`` and ``max`` of several values too) and at most one
    rulebook function (``functions``), which keeps its own memory.  It may read zones:
    looking one up, its size, its top component cost less than a call that looks the
    remembered result up (counted in instructions per game of the shipped rulebooks: up to
    5.5 % fewer; docs/performance.md)."""
    count = 0
    user_calls = 0
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Lambda, ast.ListComp)):
            return False
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            name = n.func.id
            if name in functions:
                user_calls += 1
                if user_calls > 1:
                    return False
            elif not (name in CHEAP_BUILTINS or (name == "count" and len(n.args) == 1)
                      or (name in ("min", "max") and len(n.args) > 1)):
                return False
        count += 1
        if count > INLINE_NODES:
            return False
        for value in vars(n).values():
            if isinstance(value, ast.Node):
                stack.append(value)
            elif isinstance(value, (list, tuple)):
                stack.extend(v for v in value if isinstance(v, ast.Node))
    return True


def _inline(fdecl, parts: list, cx: Cx) -> str | None:
    """The body of ``fdecl`` written out with its parameters standing for ``parts``
    (plain arguments), in the caller's generated function: no call, nothing
    remembered (the function is pure, so its value is the same; remembering a
    small body's result by its arguments costs more than computing it).  Only
    functions with parameters: a function of none is remembered under one key,
    which is cheap.  A failure in it is located in the function's body, as when
    it is called."""
    scope = Scope(fdecl.params)
    for i, p in enumerate(parts):
        scope.py[i] = p
    report = Report()
    block = [] if cx.stmts is not None else None      # in statement context, its parts may be statements
    src, _ = gen_expr(fdecl.inline_body, Cx(cx.game, report, scope, False, {}, cx.compiler, cx.gen, block, cx.depth))
    if report.has_errors:
        return None
    if block:
        cx.stmts.extend(block)
    return f"({src})"
