"""Literals and names in an expression: how a name resolves (a local, a constant, a variable,
a zone family, an enum symbol, a table), indexing and attributes, resolved once while the
text is written (``L[slot]``, ``st.v[offset]``, a zone family's index); and which calls
mean the standard library (``builtin_called``: a rulebook's own name wins).
"""
from __future__ import annotations

import sys

from dsl import ast
from dsl.diagnostics import RuleRuntimeError

from . import types as T
from ..run.stdlib import BUILTINS
from .codegen import MISSING, local
from ..run.values import Component, MissingAttribute, Record, attribute_slot, format_value
from .context import (Cx, E_ARITY, E_NAME, E_STATIC, _ZoneText, _dynamic_zone, _plain, _use, _value, gen_expr,
    known_names, src_as_list, suggest)


def _number(node, cx):
    return _value(cx, node.value), T.INT


def _string(node, cx):
    return _value(cx, node.value), T.STR


def _const(node, cx):
    v = node.value
    typ = T.BOOL if isinstance(v, bool) else T.NONE
    return _value(cx, v), typ


def _local(cx: Cx, slot: int) -> str:
    return cx.scope.py.get(slot) or local(slot)


def _name(node: ast.Name, cx: Cx):
    n = node.id
    if cx.scope is not None:
        hit = cx.scope.lookup(n)
        if hit is not None:
            slot, typ = hit
            return _local(cx, slot), typ
    g = cx.game
    _use(cx, n)
    if n == "players":
        return "st.lay.seats", T.ListT(T.PLAYER)
    if n == "num_players":
        return "st.lay.num_players", T.INT
    if n == "num_seats":
        return "st.lay.num_seats", T.INT
    if n in g.variables:
        var = g.variables[n]
        if cx.static:
            return cx.error(node.pos, f"variable '{n}' cannot be used here: only constants, options and "
                                      "the number of players are known when a game is laid out", E_STATIC)
        if var.index:
            return cx.error(node.pos, f"variable '{n}' needs an index: {n}[{', '.join(i.name for i in var.index)}]",
                            E_ARITY)
        _dynamic_zone(cx, var.type)
        return f"st.v[{int(var.offset)}]", var.type
    if n in g.constants:
        const = g.constants[n]
        if const.compute is None:
            return _value(cx, const.value), const.type
        return f"st.lay.const[{cx.gen.bind(n, 's')}]", const.type
    if n in g.symbol_enum:
        return cx.gen.bind(sys.intern(n), "s"), T.Sym(g.symbol_enum[n])
    if n in g.enums:
        return cx.gen.bind(g.enums[n].symbols, "e"), T.ListT(T.Sym(n))
    if n in g.zones:
        fam = g.zones[n]
        if cx.static:
            return cx.error(node.pos, f"zone '{n}' cannot be used here: zones do not exist yet when a game "
                                      "is laid out", E_STATIC)
        if fam.index:
            return cx.error(node.pos, f"zone family '{n}' needs an index: {n}[{', '.join(i.name for i in fam.index)}]",
                            E_ARITY)
        return _ZoneText(f"st.zf[{int(fam.id)}][()]", int(fam.id), "()", node.pos, None), T.ZoneT(fam.holds)
    if n in g.kinds:
        return cx.gen.bind(sys.intern(n), "s"), T.Sym("kind")
    if n == "box":
        if cx.static:
            return cx.error(node.pos, "zone 'box' cannot be used here", E_STATIC)
        return "st.lay.box", T.ZoneT()
    if n in g.tables:
        return cx.error(node.pos, f"table '{n}' needs a key: {n}[...]", E_ARITY)
    if n in g.functions or n in BUILTINS:
        return cx.error(node.pos, f"'{n}' is a function; call it: {n}(...)", E_ARITY)
    if n in ("option", "variant"):
        return cx.error(node.pos, f"write {n}.NAME to read a game {n}", E_NAME)
    if n in ("player", "event", "viewer"):
        return cx.error(node.pos, f"'{n}' is not available here", E_NAME)
    return cx.error(node.pos, f"unknown name '{n}'{suggest(n, known_names(cx))}", E_NAME)


def _key_error(message):
    """A custom guard: a missing key is ``message(key)`` at the span's position."""
    def custom(pos):
        def convert(exc):
            if isinstance(exc, KeyError):
                return RuleRuntimeError(message(exc.args[0] if exc.args else "?"), pos)
            return None
        return convert
    return custom


def _index(node: ast.Index, cx: Cx):
    g = cx.game
    gen = cx.gen
    if isinstance(node.obj, ast.Name) and (cx.scope is None or cx.scope.lookup(node.obj.id) is None):
        n = node.obj.id
        _use(cx, n)
        if n in g.zones:
            fam = g.zones[n]
            if cx.static:
                return cx.error(node.pos, f"zone '{n}' cannot be used here: zones do not exist yet when a "
                                          "game is laid out", E_STATIC)
            parts = []
            key = _family_key(node, fam.index, f"zone family '{n}'", cx, parts)
            custom = _key_error(lambda k: f"there is no zone {n}[{_show_key(k)}]")(node.pos)
            text = gen.guard(f"st.zf[{int(fam.id)}][{key}]", node.pos, "zone", custom)
            return _ZoneText(text, int(fam.id), key, node.pos, custom, parts), T.ZoneT(fam.holds)
        if n in g.variables and g.variables[n].index:
            var = g.variables[n]
            if cx.static:
                return cx.error(node.pos, f"variable '{n}' cannot be used here: only constants, options and "
                                          "the number of players are known when a game is laid out", E_STATIC)
            key = _family_key(node, var.index, f"variable '{n}'", cx)
            custom = _key_error(lambda k: f"there is no {n}[{_show_key(k)}]")(node.pos)
            slot = gen.guard(f"st.vk[{int(var.family_id)}][{key}]", node.pos, "variable", custom)
            _dynamic_zone(cx, var.type)
            return f"st.v[{slot}]", var.type
        if n in g.tables:
            table = g.tables[n]
            if len(node.args) != 1:
                return cx.error(node.pos, f"table '{n}' takes one key", E_ARITY)
            lookups = getattr(g, "table_lookups", None)
            if lookups is not None:
                lookups.append((n, node.args[0], cx.scope.known_ranges() if cx.scope else {}))
            ks, kt = gen_expr(node.args[0], cx)
            if not T.compatible(kt, table.key_type):
                cx.error(node.args[0].pos, f"table '{n}' has keys of type {table.key_type}, not {T.describe(kt)}")
            lookup = table.lookup
            if cx.game.coverage is not None:  # recording which rows are read (coverage only)
                lookup = cx.game.coverage.table(table, lookup)
            custom = _key_error(lambda k: f"table '{n}' has no row for {format_value(k)}")(node.pos)
            if cx.stmts is not None and cx.game.coverage is None:
                # in statement context a row read before is looked up where it is needed, without
                # a call (TableDecl.found); the key evaluated once
                k = _plain(ks, cx)
                q = gen.temp()
                miss = gen.bind(MISSING, "miss")
                look = gen.guard(f"{gen.bind(table.found, 'tf')}.get({k}, {miss})", node.pos, "table", custom)
                call = gen.guard(f"{gen.bind(lookup, 't')}({k})", node.pos, "table", custom)
                cx.stmts.extend([f"{q} = {look}", f"if {q} is {miss}:", f"    {q} = {call}"])
                return q, table.value_type
            return gen.guard(f"{gen.bind(lookup, 't')}({ks})", node.pos, "table", custom), table.value_type
    os_, ot = gen_expr(node.obj, cx)
    if T.is_any(ot) and len(node.args) != 1:  # already reported (or unknown): do not pile on
        for a in node.args:
            gen_expr(a, cx)
        return "None", T.ANY
    if len(node.args) != 1:
        return cx.error(node.pos, "a list is indexed by one number", E_ARITY)
    ks, kt = gen_expr(node.args[0], cx)
    if isinstance(ot, T.MapT):
        if not T.compatible(kt, ot.key):
            cx.error(node.args[0].pos, f"keys of this map are {ot.key}, not {T.describe(kt)}")
        return gen.guard(f"{os_}[{ks}]", node.pos, "lookup"), ot.value
    if isinstance(ot, T.ZoneT):
        os_, ot = src_as_list(os_, ot, node.pos, cx)
    if isinstance(ot, T.TupleT) and isinstance(node.args[0], ast.Number):
        i = node.args[0].value
        if not 0 <= i < len(ot.items):
            return cx.error(node.args[0].pos, f"index {i} is out of range for {ot}")
        return f"{os_}[{int(i)}]", ot.items[i]
    if not T.is_listlike(ot):
        return cx.error(node.pos, f"{T.describe(ot)} cannot be indexed")
    if not T.is_numeric(kt):
        cx.error(node.args[0].pos, f"a list index must be a number, not {T.describe(kt)}")
    return gen.guard(f"{os_}[{ks}]", node.pos, "index"), T.elem_of(ot)


def _show_key(k) -> str:
    if isinstance(k, tuple):
        return ", ".join(format_value(x) for x in k)
    return format_value(k)


def _family_key(node: ast.Index, index: list, what: str, cx: Cx, parts=None) -> str:
    """The text of the key of ``node`` into a family indexed by ``index``; its parts' texts
    appended to ``parts`` when given."""
    if len(node.args) != len(index):
        cx.error(node.pos, f"{what} takes {len(index)} index value(s) "
                           f"({', '.join(i.name for i in index)}), not {len(node.args)}", E_ARITY)
        return "None"
    if parts is None:
        parts = []
    for arg, spec in zip(node.args, index):
        s, t = gen_expr(arg, cx)
        if not T.compatible(t, spec.type):
            cx.error(arg.pos, f"{what}: index '{spec.name}' is {T.describe(spec.type)}, not {T.describe(t)}")
        parts.append(s)
    if len(parts) == 1:
        return parts[0]
    return "(" + ", ".join(parts) + ")"


def _attr(node: ast.Attr, cx: Cx):
    g = cx.game
    gen = cx.gen
    if isinstance(node.obj, ast.Name) and node.obj.id in ("option", "variant") and (
            cx.scope is None or cx.scope.lookup(node.obj.id) is None):
        which, name = node.obj.id, node.name
        if which == "variant":
            if name not in g.variants:
                return cx.error(node.pos, f"unknown variant '{name}'{suggest(name, g.variants)}", E_NAME)
            return f"({gen.bind(name, 's')} in st.lay.variants)", T.BOOL
        if name not in g.options:
            return cx.error(node.pos, f"unknown option '{name}'{suggest(name, g.options)}", E_NAME)
        return f"st.lay.options[{gen.bind(name, 's')}]", option_type(g, g.options[name])
    os_, ot = gen_expr(node.obj, cx)
    name = node.name
    if isinstance(ot, T.Comp):
        if name == "kind":          # (declared as an attribute too: that error, reported once, is enough)
            return gen.guard(f"{os_}.kind", node.pos, "kind"), (T.ANY if name in g.shadowed_attrs
                                                                else T.Sym("kind"))
        if name == "label":
            return gen.guard(f"{os_}.label", node.pos, "label"), T.STR
        kinds = ot.kinds or frozenset(g.kinds)
        found = [g.kinds[k].attributes[name] for k in kinds if k in g.kinds and name in g.kinds[k].attributes]
        if not found:
            if name in T.RESERVED_ATTRIBUTES:
                return cx.error(node.pos, T.attribute_name_problem(name), E_NAME)
            names = set().union(*(g.kinds[k].attributes for k in kinds if k in g.kinds)) if kinds else set()
            return cx.error(node.pos, f"{T.describe(ot)} has no attribute '{name}'{suggest(name, names)}", E_NAME)
        # kinds without the attribute fail at run time (a guard such as
        # `t.kind == tile and t.color == c` keeps them away)
        pos = node.pos

        def custom(exc):
            if isinstance(exc, AttributeError):
                obj = getattr(exc, "obj", None)
                if isinstance(obj, Component):      # its kind has no such attribute: its slot is empty
                    return RuleRuntimeError(f"component {obj.label} has no attribute '{name}'", pos)
                return RuleRuntimeError(f"'.{name}' of {format_value(obj)}: not a component", pos)
            if isinstance(exc, MissingAttribute):
                return RuleRuntimeError(f"component {exc.label} has no attribute '{name}'", pos)
            return None
        slot = attribute_slot(name)     # a slot of the layout's component class (run/values.py)
        read = f"{os_}.{slot}" if slot is not None else f"{os_}.attrs[{gen.bind(name, 's')}]"
        return gen.guard(read, pos, "attribute", custom), T.join_all(found)
    if isinstance(ot, T.RecordT):
        ft = ot.field(name)
        if ft is None:
            return cx.error(node.pos, f"no field '{name}' here; fields are: {', '.join(n for n, _ in ot.fields)}",
                            E_NAME)
        pos = node.pos

        def not_a_record(exc):
            if isinstance(exc, AttributeError):
                return RuleRuntimeError(f"field '{name}': {format_value(getattr(exc, 'obj', None))} is not a record",
                                        pos)
            return None
        # the record's dictionary read directly (Record.__getitem__ is a Python call)
        return gen.guard(f"{os_}._fields[{gen.bind(name, 's')}]", pos, f"field '{name}'", not_a_record), ft
    if T.is_any(ot):
        pos = node.pos

        def dyn(v):
            if isinstance(v, Component):
                if name == "kind":
                    return v.kind
                return v.attrs[name]
            if isinstance(v, Record):
                return v[name]
            raise RuleRuntimeError(f"{format_value(v)} has no attribute '{name}'", pos)
        return gen.guard(f"{gen.bind(dyn, 'a')}({os_})", pos, f"attribute '{name}'"), T.ANY
    return cx.error(node.pos, f"{T.describe(ot)} has no attributes (looking for '{name}')")


def option_type(g, opt) -> T.Type:
    d = opt.default
    if isinstance(d, bool):
        return T.BOOL
    if isinstance(d, int):
        return T.INT
    if isinstance(d, str) and d in g.symbol_enum:
        return T.Sym(g.symbol_enum[d])
    allowed = opt.allowed if isinstance(opt.allowed, (list, tuple)) else []
    enums = {g.symbol_enum[a] for a in allowed if isinstance(a, str) and a in g.symbol_enum}
    if len(enums) == 1:
        return T.Sym(enums.pop())
    return T.ANY
def static_int(node, game, scope=None):
    """The value of a whole-number expression made of literals and constants, or None.
    ``scope``: the names bound where ``node`` stands (parameters, loop values), which hide the
    rulebook's constants of the same name."""
    if isinstance(node, ast.Number):
        return node.value
    if isinstance(node, ast.Name):
        if scope is not None and scope.lookup(node.id) is not None:
            return None
        const = game.constants.get(node.id)
        if const is not None and const.compute is None and isinstance(const.value, int) \
                and not isinstance(const.value, bool):
            return const.value
        return None
    if isinstance(node, ast.Neg):
        v = static_int(node.operand, game, scope)
        return -v if v is not None else None
    if isinstance(node, ast.BinOp) and node.op in ("+", "-", "*"):
        a, b = static_int(node.left, game, scope), static_int(node.right, game, scope)
        if a is None or b is None:
            return None
        return a + b if node.op == "+" else a - b if node.op == "-" else a * b
    return None


def builtin_called(node, g) -> str | None:
    """The name of the standard library function ``node`` calls, or None: not a call by name,
    or a call of the rulebook's own function of that name (a rulebook's names always win over
    the standard library's, docs/compatibility.md).  Every analysis that treats a library
    function specially asks this, never the bare name."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in g.functions:
        return node.func.id
    return None
