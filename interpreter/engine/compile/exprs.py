"""Compile expression ASTs into generated Python code, checking names and types.

``compile_expr(node, cx)`` returns ``(fn, type)`` where ``fn(state, L)``
evaluates the expression; ``L`` is the list of local slots of the running
frame.  Each handler below checks one kind of node and writes it as the
text of a Python expression; ``compile_expr`` compiles the whole text once
(``interpreter/codegen.py``, which also maps a run-time failure back to the
rulebook's position).  Every name is resolved here, once: a local becomes
``L[slot]`` (a comprehension's or lambda's variable a Python local), a
variable ``st.v[offset]``, a zone family a dictionary lookup in the game's
layout.  Nothing is looked up by name while a game runs.

Problems are reported to ``cx.report`` and compilation goes on with the
type ``ANY``, so that one run of the validator reports every problem.
"""
from __future__ import annotations

import difflib
import re
import sys
from dataclasses import dataclass, field

from dsl import ast
from dsl.diagnostics import Pos, Report, RuleRuntimeError

from . import types as T
from ..run.stdlib import BUILTINS
from .codegen import MISSING, Gen, LIMIT_CODE, _as_rule_error, is_generated, local, with_outer
from ..run.limits import LIMITS, check_number, check_size, power
from ..run.values import Component, MissingAttribute, Record, Zone, format_value

# codes of the diagnostics raised here (documented in docs/diagnostics.md)
E_NAME = "RW101"
E_TYPE = "RW102"
E_ARITY = "RW103"
E_STATIC = "RW104"
E_LAMBDA = "RW105"


class Scope:
    """The local names of one procedure; each name is a slot of the frame."""

    def __init__(self, names=()):
        self.blocks: list[dict] = [{}]
        self.names: list[str] = []
        #: slot -> (lo, hi) for loop variables known to range over whole numbers
        self.ranges: dict = {}
        #: slot -> the Python local that holds it in generated code (comprehension and lambda variables)
        self.py: dict = {}
        for name, typ in names:
            self.declare(name, typ)

    def known_ranges(self) -> dict:
        """Visible names whose values lie in a known range (for the checks)."""
        out = {}
        for block in self.blocks:
            for name, (slot, _) in block.items():
                if slot in self.ranges:
                    out[name] = self.ranges[slot]
                else:
                    out.pop(name, None)
        return out

    @property
    def nslots(self) -> int:
        return len(self.names)

    def declare(self, name: str, typ: T.Type) -> int:
        slot = len(self.names)
        self.names.append(name)
        self.blocks[-1][name] = [slot, typ]
        return slot

    def lookup(self, name: str):
        for block in reversed(self.blocks):
            if name in block:
                return block[name]
        return None

    def all_names(self):
        for block in self.blocks:
            yield from block

    def push(self) -> None:
        self.blocks.append({})

    def pop(self) -> None:
        self.blocks.pop()


@dataclass
class Cx:
    """Where an expression is compiled."""

    game: object  # model.GameDef (being filled)
    report: Report
    scope: Scope | None = None
    #: static: evaluated when a game is laid out (no zones or variables yet)
    static: bool = False
    #: type of `event` in trigger bodies
    notes: dict = field(default_factory=dict)
    compiler: object = None
    #: the generated function being written (codegen.Gen), set by compile_expr
    gen: object = None
    #: statement context: where statements that compute parts of the expression go, before
    #: the line that uses it (None: the expression must stay one Python expression)
    stmts: list | None = None
    #: how deeply those statements already nest (see MAX_DEPTH)
    depth: int = 0

    def error(self, pos: Pos, message: str, code: str = E_TYPE):
        self.report.error(pos, message, code)
        return "None", T.ANY



def guard(fn, pos: Pos, what: str):
    """``fn`` with a failure anywhere in it reported as a rule error at ``pos``
    ("``what``: …").  A generated function gets the guard without a wrapper."""
    if is_generated(fn):
        return with_outer(fn, pos, what)

    def guarded(st, L):
        try:
            return fn(st, L)
        except RuleRuntimeError:
            raise
        except Exception as exc:  # noqa: BLE001 - every other failure is a rule error too
            raise _as_rule_error(exc, pos, what) from None

    return guarded


def suggest(name: str, candidates) -> str:
    hits = difflib.get_close_matches(str(name), [c for c in candidates if isinstance(c, str)], n=1, cutoff=0.7)
    return f"; did you mean '{hits[0]}'?" if hits else ""


def known_names(cx: Cx):
    g = cx.game
    names = set(BUILTINS) | {"players", "num_players", "num_seats", "option", "variant", "box"}
    for table in (g.variables, g.constants, g.enums, g.symbol_enum, g.zones, g.kinds, g.tables, g.functions):
        names |= set(table)
    if cx.scope:
        names |= set(cx.scope.all_names())
    return names


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


#: how deeply the statements written for parts of an expression may nest (Python compiles at
#: most 20 nested blocks; steps and functions add their own): deeper parts stay expressions
MAX_DEPTH = 6


def nested(cx: Cx):
    """A statement list for a block inside the current statements, or None (expression
    mode) when there is no statement context or it would nest too deeply."""
    return [] if cx.stmts is not None and cx.depth < MAX_DEPTH else None


def in_block(cx: Cx, stmts, fn, *args):
    """``fn(*args, cx)`` with statements going to ``stmts`` (a nested block, or None for
    expression mode)."""
    saved = cx.stmts, cx.depth
    cx.stmts, cx.depth = stmts, cx.depth + 1
    try:
        return fn(*args, cx)
    finally:
        cx.stmts, cx.depth = saved


def indented(lines) -> list:
    return ["    " + line for line in lines]


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
        mark = gen.line_guard(node.pos, what)
        pre = [_marked(line, mark) for line in pre]
    return gen.guard(src, node.pos, what), typ, pre


def _marked(line: str, mark: str) -> str:
    body = line.lstrip(" ")
    return line[:len(line) - len(body)] + mark + body


def gen_expr(node: ast.Node, cx: Cx):
    """``(source, type)``: the expression as the text of a Python expression."""
    method = _DISPATCH.get(type(node))
    if method is None:
        return cx.error(node.pos, f"unsupported expression {type(node).__name__}")
    return method(node, cx)


def gen_cond(node: ast.Node, cx: Cx, what: str = "a condition"):
    src, typ = gen_expr(node, cx)
    if typ != T.BOOL and not T.is_any(typ):
        hint = " (compare it, e.g. 'x > 0')" if T.is_numeric(typ) else ""
        cx.error(node.pos, f"{what} must be true or false, but this is {T.describe(typ)}{hint}")
    return src, T.BOOL


def gen_as_list(node: ast.Node, cx: Cx, what: str = "this"):
    """A list-valued expression; a zone stands for its contents."""
    src, typ = gen_expr(node, cx)
    return src_as_list(src, typ, node.pos, cx, what)


class _ZoneText(str):
    """The text of a zone of a family (``st.zf[family][key]``) that also knows the family
    and key: where only the zone's contents are needed, they are read through its id
    (``st.z[st.zi[family][key]]``), one lookup fewer."""

    def __new__(cls, text, fid: int, key: str, pos, custom):
        self = super().__new__(cls, text)
        self.fid, self.key, self.pos, self.custom = fid, key, pos, custom
        return self


def contents_of(src, cx: Cx) -> str:
    """The contents (a list) of the zone ``src`` stands for."""
    if isinstance(src, _ZoneText):
        zid = f"st.zi[{src.fid}][{src.key}]"
        return f"st.z[{cx.gen.guard(zid, src.pos, 'zone', src.custom) if src.custom is not None else zid}]"
    return f"st.z[{src}.id]"


def src_as_list(src, typ, pos, cx: Cx, what="this"):
    if isinstance(typ, T.ZoneT):
        return contents_of(src, cx), T.ListT(T.elem_of(typ))
    if isinstance(typ, T.MapT):
        return f"tuple({src})", T.ListT(typ.key)
    if not T.is_listlike(typ):
        cx.error(pos, f"{what} must be a list or a zone, but this is {T.describe(typ)}")
        return src, T.ListT(T.ANY)
    if T.is_any(typ):
        return f"{cx.gen.bind(_dyn_list, 'dyn')}(st, {src})", T.ListT(T.ANY)
    return src, typ


def _dyn_list(st, v):
    return st.z[v.id] if isinstance(v, Zone) else v


def _use(cx: Cx, name: str) -> None:
    """Count a use of a global name (for the unused-definition check)."""
    uses = getattr(cx.game, "uses", None)
    if uses is not None:
        uses[name] = uses.get(name, 0) + 1
        if name in cx.game.symbol_enum:
            enum = cx.game.symbol_enum[name]
            uses[enum] = uses.get(enum, 0) + 1


def _dynamic_zone(cx: Cx, typ) -> None:
    """This value may be a zone the expression does not name (a variable's): whatever
    reads it may read any zone (dependencies.py)."""
    if T.may_hold_zone(typ) and hasattr(cx.game, "dynamic_reads"):
        cx.game.dynamic_reads += 1


def _value(cx: Cx, v) -> str:
    """A constant value in generated code: small numbers as text, the rest bound by name."""
    if v is None or v is True or v is False:
        return repr(v)
    if type(v) is int and -10**9 < v < 10**9:
        return f"({v})"
    return cx.gen.bind(v, "c")


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
            key = _family_key(node, fam.index, f"zone family '{n}'", cx)
            custom = _key_error(lambda k: f"there is no zone {n}[{_show_key(k)}]")(node.pos)
            text = gen.guard(f"st.zf[{int(fam.id)}][{key}]", node.pos, "zone", custom)
            return _ZoneText(text, int(fam.id), key, node.pos, custom), T.ZoneT(fam.holds)
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


def _family_key(node: ast.Index, index: list, what: str, cx: Cx) -> str:
    if len(node.args) != len(index):
        cx.error(node.pos, f"{what} takes {len(index)} index value(s) "
                           f"({', '.join(i.name for i in index)}), not {len(node.args)}", E_ARITY)
        return "None"
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
                return RuleRuntimeError(f"'.{name}' of {format_value(getattr(exc, 'obj', None))}: "
                                        "not a component", pos)
            if isinstance(exc, MissingAttribute):
                return RuleRuntimeError(f"component {exc.label} has no attribute '{name}'", pos)
            return None
        return gen.guard(f"{os_}.attrs[{gen.bind(name, 's')}]", pos, "attribute", custom), T.join_all(found)
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


def _make_range(lo, hi, _made={}):   # noqa: B006 - a cache of short ranges, shared on purpose
    r = _made.get((lo, hi))
    if r is None:
        check_size(hi - lo + 1, f"the range {lo}..{hi}")
        r = tuple(range(lo, hi + 1))
        if -64 < lo < 64 and hi - lo < 64 and len(_made) < 4096:
            _made[(lo, hi)] = r
    return r


def _range(node: ast.Range, cx: Cx):
    ls, lt = gen_expr(node.lo, cx)
    hs, ht = gen_expr(node.hi, cx)
    for side, t in ((node.lo, lt), (node.hi, ht)):
        if not T.is_numeric(t):
            cx.error(side.pos, f"a range needs numbers, but this is {T.describe(t)}")
    lo, hi = static_int(node.lo, cx.game), static_int(node.hi, cx.game)
    if lo is not None and hi is not None and hi - lo < 64:      # a short constant range: made once
        return cx.gen.bind(tuple(range(lo, hi + 1)), "r"), T.ListT(T.INT)
    made = cx.gen.guard(f"{cx.gen.bind(_make_range, 'f')}({ls}, {hs})", node.pos, "range")
    ranges = getattr(cx.game, "layout_ranges", None)       # a list only while the rulebook compiles
    if isinstance(ranges, list) and not cx.static and _per_layout(node.lo, cx) and _per_layout(node.hi, cx):
        # bounds a layout fixes (constants, options, the number of players): made once per layout
        # (Layout.ranges; None there when it failed or is empty: made here, as before)
        k = len(ranges)
        ranges.append(cx.gen.function(made, node.pos))
        return f"(st.lay.ranges[{k}] or {made})", T.ListT(T.INT)
    return made, T.ListT(T.INT)


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
        cond = in_block(cx, cblock, gen_cond, node.cond)[0] if node.cond is not None else None
        es, et = in_block(cx, eblock, gen_expr, node.elt)
    finally:
        cx.scope.pop()
    target = names[0] if len(names) == 1 else "(" + ", ".join(names) + ",)"
    if cblock or eblock:
        # written as a loop: the condition's and the element's own statements run per element
        q = cx.gen.temp()
        body = [*eblock, f"{q}.append({es})"]
        if cond is not None:
            body = [*cblock, f"if {cond}:", *indented(body)]
        cx.stmts.extend([f"{q} = []", f"for {target} in {its}:", *indented(body), f"{q} = tuple({q})"])
        return q, T.ListT(et)
    tail = f" if {cond}" if cond is not None else ""
    return f"tuple([{es} for {target} in {its}{tail}])", T.ListT(et)


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
    tally = gen.bind(_tally, "f")
    body = [*eblock, f"{q}.append({es})"]
    if cond is not None:
        body = [*cblock, f"if {cond}:", *indented(body)]
    last = len(pieces) - 1
    for i in range(last, -1, -1):
        target, its, block = pieces[i]
        if i == last:
            its = gen.guard(f"{tally}({its}, {counter})", node.pos, "comprehension")
        body = [*block, f"for {target} in {its}:", *indented(body)]
    cx.stmts.extend([f"{q} = []", f"{counter} = [0]", *body, f"{q} = tuple({q})"])
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
def static_int(node, game):
    """The value of a whole-number expression made of literals and constants, or None."""
    if isinstance(node, ast.Number):
        return node.value
    if isinstance(node, ast.Name):
        const = game.constants.get(node.id)
        if const is not None and const.compute is None and isinstance(const.value, int) \
                and not isinstance(const.value, bool):
            return const.value
        return None
    if isinstance(node, ast.Neg):
        v = static_int(node.operand, game)
        return -v if v is not None else None
    if isinstance(node, ast.BinOp) and node.op in ("+", "-", "*"):
        a, b = static_int(node.left, game), static_int(node.right, game)
        if a is None or b is None:
            return None
        return a + b if node.op == "+" else a - b if node.op == "-" else a * b
    return None


def note_range(clause, slots, cx: Cx) -> None:
    """Remember that a loop variable runs over ``a..b`` with known bounds."""
    if len(slots) == 1 and isinstance(clause.iter, ast.Range) and cx.scope is not None:
        lo, hi = static_int(clause.iter.lo, cx.game), static_int(clause.iter.hi, cx.game)
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
}

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


def builtin_called(node, g) -> str | None:
    """The name of the standard library function ``node`` calls, or None: not a call by name,
    or a call of the rulebook's own function of that name (a rulebook's names always win over
    the standard library's, docs/compatibility.md).  Every analysis that treats a library
    function specially asks this, never the bare name."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in g.functions:
        return node.func.id
    return None


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


def _call_builtin(node: ast.Call, b, cx: Cx):
    args = node.args
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
#: those a loop always beats (no generator, no list built): the rest only when the lambda's
#: body has statements of its own
_ALWAYS_LOOP = frozenset({"any", "all", "first", "count"})


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


def compile_function(node: ast.Node, cx: Cx, slot: int, nparams: int):
    """A rulebook function's body as ``f(state, *arguments)``, its parameters (the
    scope's first slots) Python locals; results are remembered in ``State.memo[slot]``
    (functions are pure: a result stays valid until what it reads changes)."""
    params = [f"_p{i}" for i in range(nparams)]
    for i, p in enumerate(params):
        cx.scope.py[i] = p
    saved = cx.gen, cx.stmts, cx.depth
    cx.gen, cx.stmts, cx.depth = Gen(), [], 0
    try:
        src, typ = gen_expr(node, cx)
        return cx.gen.memo_function(src, node.pos, slot, params, pre=cx.stmts), typ
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
    if fdecl.type is None or fdecl.compiled is None:
        return cx.error(node.pos, f"{fdecl.name}() calls itself; functions may not be recursive")
    if fdecl.inline_body is not None and parts and not cx.static:
        if cx.stmts is not None:        # statement context: any argument can be made plain
            parts = [_plain(part, cx) for part in parts]
        if all(_PLAIN_ARG.match(p) for p in parts):
            src = _inline(fdecl, parts, cx)
            if src is not None:
                return src, fdecl.type
    if cx.stmts is not None and not cx.static:
        return _memo_probe(fdecl, parts, cx), fdecl.type
    return f"{cx.gen.bind(fdecl.compiled, 'u')}({', '.join(['st'] + parts)})", fdecl.type


def _memo_probe(fdecl, parts: list, cx: Cx) -> str:
    """A call of a rulebook function in statement context: its remembered result looked up
    where it is needed (what the function itself does first, without the call), the
    function called only when there is none — its variant that does not look again
    (``_rw_fill``, codegen.Gen.memo_function)."""
    gen = cx.gen
    args = [_plain(part, cx) for part in parts]     # each argument once
    q = gen.temp()
    key = "None" if not args else args[0] if len(args) == 1 else f"({', '.join(args)},)"
    miss = gen.bind(MISSING, "miss")
    cx.stmts.extend([f"{q} = st.memo[{int(fdecl.slot)}]",
                     f"if {q} is None or ({q} := {q}.get({key}, {miss})) is {miss}:",
                     f"    {q} = {gen.bind(getattr(fdecl.compiled, '_rw_fill', fdecl.compiled), 'u')}"
                     f"({', '.join(['st'] + args)})"])
    return q


#: an argument that costs nothing to evaluate twice and cannot fail: a local, a slot, a variable, a number
_PLAIN_ARG = re.compile(r"(?:[A-Za-z_]\w*|L\[\d+\]|\x05\d+\x06|st\.v\[\d+\]|-?\d+|\(-?\d+\))\Z")


def _plain(part: str, cx: Cx) -> str:
    """``part``, or (statement context) a new local holding its value: a plain argument."""
    if _PLAIN_ARG.match(part):
        return part
    t = cx.gen.temp()
    cx.stmts.append(f"{t} = {part}")
    return t
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


_DISPATCH = {
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
}
