"""Compile expression ASTs into Python closures, checking names and types.

``compile_expr(node, cx)`` returns ``(fn, type)`` where ``fn(state, L)``
evaluates the expression; ``L`` is the list of local slots of the running
frame.  Every name is resolved here, once: a local becomes ``L[slot]``, a
variable ``state.v[offset]``, a zone family a dictionary lookup in the
game's layout.  Nothing is looked up by name while a game runs.

Problems are reported to ``cx.report`` and compilation goes on with the
type ``ANY``, so that one run of the validator reports every problem.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from dsl import ast
from dsl.diagnostics import Pos, Report, RuleRuntimeError

from . import types as T
from .stdlib import BUILTINS
from .limits import LIMITS, LimitError, check_number, check_size
from .values import Component, Record, Zone, format_value

#: the diagnostic code of a rule that asks for more work than the limits allow
LIMIT_CODE = "RW910"

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

    def error(self, pos: Pos, message: str, code: str = E_TYPE):
        self.report.error(pos, message, code)
        return _any_value, T.ANY


def _any_value(st, L):
    return None


def guard(fn, pos: Pos, what: str):
    """Wrap ``fn`` so that a Python error becomes a located rule error."""

    def guarded(st, L):
        try:
            return fn(st, L)
        except RuleRuntimeError:
            raise
        except ZeroDivisionError:
            raise RuleRuntimeError(f"{what}: division by zero", pos) from None
        except (KeyError, IndexError) as exc:
            key = exc.args[0] if exc.args else "?"
            raise RuleRuntimeError(f"{what}: no entry for {format_value(key)}", pos) from None
        except LimitError as exc:
            raise RuleRuntimeError(f"{what}: {exc}", pos, LIMIT_CODE) from None
        except MemoryError:
            raise RuleRuntimeError(f"{what}: out of memory: the rules build something far too large",
                                   pos, LIMIT_CODE) from None
        except Exception as exc:  # noqa: BLE001 - every other failure is a rule error too
            raise RuleRuntimeError(f"{what}: {exc}", pos) from None

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
    method = _DISPATCH.get(type(node))
    if method is None:
        return cx.error(node.pos, f"unsupported expression {type(node).__name__}")
    return method(node, cx)


def compile_cond(node: ast.Node, cx: Cx, what: str = "a condition"):
    fn, typ = compile_expr(node, cx)
    if typ != T.BOOL and not T.is_any(typ):
        hint = " (compare it, e.g. 'x > 0')" if T.is_numeric(typ) else ""
        cx.error(node.pos, f"{what} must be true or false, but this is {T.describe(typ)}{hint}")
    return fn, T.BOOL


def compile_as_list(node: ast.Node, cx: Cx, what: str = "this"):
    """Compile a list-valued expression; a zone stands for its contents."""
    fn, typ = compile_expr(node, cx)
    return as_list(fn, typ, node.pos, cx, what)


def as_list(fn, typ, pos, cx: Cx, what="this"):
    if isinstance(typ, T.ZoneT):
        def contents(st, L, fn=fn):
            return st.z[fn(st, L).id]
        return contents, T.ListT(T.elem_of(typ))
    if isinstance(typ, T.MapT):
        return (lambda st, L, fn=fn: tuple(fn(st, L))), T.ListT(typ.key)
    if not T.is_listlike(typ):
        cx.error(pos, f"{what} must be a list or a zone, but this is {T.describe(typ)}")
        return fn, T.ListT(T.ANY)
    if T.is_any(typ):
        def dyn(st, L, fn=fn):
            v = fn(st, L)
            return st.z[v.id] if isinstance(v, Zone) else v
        return dyn, T.ListT(T.ANY)
    return fn, typ


def _use(cx: Cx, name: str) -> None:
    """Count a use of a global name (for the unused-definition check)."""
    uses = getattr(cx.game, "uses", None)
    if uses is not None:
        uses[name] = uses.get(name, 0) + 1
        if name in cx.game.symbol_enum:
            enum = cx.game.symbol_enum[name]
            uses[enum] = uses.get(enum, 0) + 1


def _number(node, cx):
    v = node.value
    return (lambda st, L: v), T.INT


def _string(node, cx):
    v = node.value
    return (lambda st, L: v), T.STR


def _const(node, cx):
    v = node.value
    typ = T.BOOL if isinstance(v, bool) else T.NONE
    return (lambda st, L: v), typ


def _name(node: ast.Name, cx: Cx):
    n = node.id
    if cx.scope is not None:
        hit = cx.scope.lookup(n)
        if hit is not None:
            slot, typ = hit
            return (lambda st, L: L[slot]), typ
    g = cx.game
    _use(cx, n)
    if n == "players":
        return (lambda st, L: st.lay.seats), T.ListT(T.PLAYER)
    if n == "num_players":
        return (lambda st, L: st.lay.num_players), T.INT
    if n == "num_seats":
        return (lambda st, L: st.lay.num_seats), T.INT
    if n in g.variables:
        var = g.variables[n]
        if cx.static:
            return cx.error(node.pos, f"variable '{n}' cannot be used here: only constants, options and "
                                      "the number of players are known when a game is laid out", E_STATIC)
        if var.index:
            return cx.error(node.pos, f"variable '{n}' needs an index: {n}[{', '.join(i.name for i in var.index)}]",
                            E_ARITY)
        off = var.offset
        return (lambda st, L: st.v[off]), var.type
    if n in g.constants:
        const = g.constants[n]
        if const.compute is None:
            value = const.value
            return (lambda st, L: value), const.type
        return (lambda st, L: st.lay.const[n]), const.type
    if n in g.symbol_enum:
        return (lambda st, L: n), T.Sym(g.symbol_enum[n])
    if n in g.enums:
        symbols = g.enums[n].symbols
        return (lambda st, L: symbols), T.ListT(T.Sym(n))
    if n in g.zones:
        fam = g.zones[n]
        if cx.static:
            return cx.error(node.pos, f"zone '{n}' cannot be used here: zones do not exist yet when a game "
                                      "is laid out", E_STATIC)
        if fam.index:
            return cx.error(node.pos, f"zone family '{n}' needs an index: {n}[{', '.join(i.name for i in fam.index)}]",
                            E_ARITY)
        fid = fam.id
        return (lambda st, L: st.lay.zfam[fid][()]), T.ZoneT(fam.holds)
    if n in g.kinds:
        return (lambda st, L: n), T.Sym("kind")
    if n == "box":
        if cx.static:
            return cx.error(node.pos, "zone 'box' cannot be used here", E_STATIC)
        return (lambda st, L: st.lay.box), T.ZoneT()
    if n in g.tables:
        return cx.error(node.pos, f"table '{n}' needs a key: {n}[...]", E_ARITY)
    if n in g.functions or n in BUILTINS:
        return cx.error(node.pos, f"'{n}' is a function; call it: {n}(...)", E_ARITY)
    if n in ("option", "variant"):
        return cx.error(node.pos, f"write {n}.NAME to read a game {n}", E_NAME)
    if n in ("player", "event", "viewer"):
        return cx.error(node.pos, f"'{n}' is not available here", E_NAME)
    return cx.error(node.pos, f"unknown name '{n}'{suggest(n, known_names(cx))}", E_NAME)


def _index(node: ast.Index, cx: Cx):
    g = cx.game
    if isinstance(node.obj, ast.Name) and (cx.scope is None or cx.scope.lookup(node.obj.id) is None):
        n = node.obj.id
        _use(cx, n)
        if n in g.zones:
            fam = g.zones[n]
            if cx.static:
                return cx.error(node.pos, f"zone '{n}' cannot be used here: zones do not exist yet when a "
                                          "game is laid out", E_STATIC)
            key = _family_key(node, fam.index, f"zone family '{n}'", cx)
            fid = fam.id
            name = n

            def zone(st, L):
                k = key(st, L)
                try:
                    return st.lay.zfam[fid][k]
                except KeyError:
                    raise RuleRuntimeError(f"there is no zone {name}[{_show_key(k)}]", node.pos) from None
            return zone, T.ZoneT(fam.holds)
        if n in g.variables and g.variables[n].index:
            var = g.variables[n]
            if cx.static:
                return cx.error(node.pos, f"variable '{n}' cannot be used here: only constants, options and "
                                          "the number of players are known when a game is laid out", E_STATIC)
            key = _family_key(node, var.index, f"variable '{n}'", cx)
            vid = var.family_id

            def read(st, L):
                k = key(st, L)
                try:
                    return st.v[st.lay.vkeys[vid][k]]
                except KeyError:
                    raise RuleRuntimeError(f"there is no {n}[{_show_key(k)}]", node.pos) from None
            return read, var.type
        if n in g.tables:
            table = g.tables[n]
            if len(node.args) != 1:
                return cx.error(node.pos, f"table '{n}' takes one key", E_ARITY)
            lookups = getattr(g, "table_lookups", None)
            if lookups is not None:
                lookups.append((n, node.args[0], cx.scope.known_ranges() if cx.scope else {}))
            kf, kt = compile_expr(node.args[0], cx)
            if not T.compatible(kt, table.key_type):
                cx.error(node.args[0].pos, f"table '{n}' has keys of type {table.key_type}, not {T.describe(kt)}")
            lookup = table.lookup
            if cx.game.coverage is not None:  # recording which rows are read (coverage only)
                lookup = cx.game.coverage.table(table, lookup)

            def look(st, L):
                k = kf(st, L)
                try:
                    return lookup(k)
                except KeyError:
                    raise RuleRuntimeError(f"table '{n}' has no row for {format_value(k)}", node.pos) from None
            return look, table.value_type
    of, ot = compile_expr(node.obj, cx)
    if T.is_any(ot) and len(node.args) != 1:  # already reported (or unknown): do not pile on
        for a in node.args:
            compile_expr(a, cx)
        return _any_value, T.ANY
    if len(node.args) != 1:
        return cx.error(node.pos, "a list is indexed by one number", E_ARITY)
    kf, kt = compile_expr(node.args[0], cx)
    if isinstance(ot, T.MapT):
        if not T.compatible(kt, ot.key):
            cx.error(node.args[0].pos, f"keys of this map are {ot.key}, not {T.describe(kt)}")
        return guard(lambda st, L: of(st, L)[kf(st, L)], node.pos, "lookup"), ot.value
    if isinstance(ot, T.ZoneT):
        of, ot = as_list(of, ot, node.pos, cx)
    if isinstance(ot, T.TupleT) and isinstance(node.args[0], ast.Number):
        i = node.args[0].value
        if not 0 <= i < len(ot.items):
            return cx.error(node.args[0].pos, f"index {i} is out of range for {ot}")
        return (lambda st, L: of(st, L)[i]), ot.items[i]
    if not T.is_listlike(ot):
        return cx.error(node.pos, f"{T.describe(ot)} cannot be indexed")
    if not T.is_numeric(kt):
        cx.error(node.args[0].pos, f"a list index must be a number, not {T.describe(kt)}")
    return guard(lambda st, L: of(st, L)[kf(st, L)], node.pos, "index"), T.elem_of(ot)


def _show_key(k) -> str:
    if isinstance(k, tuple):
        return ", ".join(format_value(x) for x in k)
    return format_value(k)


def _family_key(node: ast.Index, index: list, what: str, cx: Cx):
    if len(node.args) != len(index):
        cx.error(node.pos, f"{what} takes {len(index)} index value(s) "
                           f"({', '.join(i.name for i in index)}), not {len(node.args)}", E_ARITY)
        return _any_value
    parts = []
    for arg, spec in zip(node.args, index):
        f, t = compile_expr(arg, cx)
        if not T.compatible(t, spec.type):
            cx.error(arg.pos, f"{what}: index '{spec.name}' is {T.describe(spec.type)}, not {T.describe(t)}")
        parts.append(f)
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        a, b = parts
        return lambda st, L: (a(st, L), b(st, L))
    if len(parts) == 3:
        a, b, c = parts
        return lambda st, L: (a(st, L), b(st, L), c(st, L))
    return lambda st, L: tuple(p(st, L) for p in parts)


def _attr(node: ast.Attr, cx: Cx):
    g = cx.game
    if isinstance(node.obj, ast.Name) and node.obj.id in ("option", "variant") and (
            cx.scope is None or cx.scope.lookup(node.obj.id) is None):
        which, name = node.obj.id, node.name
        if which == "variant":
            if name not in g.variants:
                return cx.error(node.pos, f"unknown variant '{name}'{suggest(name, g.variants)}", E_NAME)
            return (lambda st, L: name in st.lay.variants), T.BOOL
        if name not in g.options:
            return cx.error(node.pos, f"unknown option '{name}'{suggest(name, g.options)}", E_NAME)
        return (lambda st, L: st.lay.options[name]), option_type(g, g.options[name])
    of, ot = compile_expr(node.obj, cx)
    name = node.name
    if isinstance(ot, T.Comp):
        if name == "kind":
            return guard(lambda st, L: of(st, L).kind, node.pos, "kind"), T.Sym("kind")
        if name == "label":
            return guard(lambda st, L: of(st, L).label, node.pos, "label"), T.STR
        kinds = ot.kinds or frozenset(g.kinds)
        found = [g.kinds[k].attributes[name] for k in kinds if k in g.kinds and name in g.kinds[k].attributes]
        if not found:
            names = set().union(*(g.kinds[k].attributes for k in kinds if k in g.kinds)) if kinds else set()
            return cx.error(node.pos, f"{T.describe(ot)} has no attribute '{name}'{suggest(name, names)}", E_NAME)
        # kinds without the attribute fail at run time (a guard such as
        # `t.kind == tile and t.color == c` keeps them away)

        def attr(st, L):
            c = of(st, L)
            try:
                return c.attrs[name]
            except AttributeError:
                raise RuleRuntimeError(f"'.{name}' of {format_value(c)}: not a component", node.pos) from None
            except KeyError:
                raise RuleRuntimeError(f"component {c.label} has no attribute '{name}'", node.pos) from None
        return attr, T.join_all(found)
    if isinstance(ot, T.RecordT):
        ft = ot.field(name)
        if ft is None:
            return cx.error(node.pos, f"no field '{name}' here; fields are: {', '.join(n for n, _ in ot.fields)}",
                            E_NAME)
        return guard(lambda st, L: of(st, L)[name], node.pos, f"field '{name}'"), ft
    if T.is_any(ot):
        def dyn(st, L):
            v = of(st, L)
            if isinstance(v, Component):
                if name == "kind":
                    return v.kind
                return v.attrs[name]
            if isinstance(v, Record):
                return v[name]
            raise RuleRuntimeError(f"{format_value(v)} has no attribute '{name}'", node.pos)
        return guard(dyn, node.pos, f"attribute '{name}'"), T.ANY
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


_ARITH = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: check_number(a * b),
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
}


def _binop(node: ast.BinOp, cx: Cx):
    lf, lt = compile_expr(node.left, cx)
    rf, rt = compile_expr(node.right, cx)
    op = node.op
    if op == "+" and (isinstance(lt, (T.ListT, T.TupleT)) or isinstance(rt, (T.ListT, T.TupleT))):
        if not (T.is_listlike(lt) and T.is_listlike(rt)):
            cx.error(node.pos, f"'+' joins two lists or adds two numbers, not {T.describe(lt)} and {T.describe(rt)}")
        lf, lt = as_list(lf, lt, node.left.pos, cx)
        rf, rt = as_list(rf, rt, node.right.pos, cx)
        joined = T.join(T.elem_of(lt), T.elem_of(rt)) or T.ANY
        def join(st, L):
            a, b = tuple(lf(st, L)), tuple(rf(st, L))
            check_size(len(a) + len(b), "this joined list")
            return a + b
        return guard(join, node.pos, "'+'"), T.ListT(joined)
    if op == "+" and (lt == T.STR or rt == T.STR):
        for side, t in ((node.left, lt), (node.right, rt)):
            if t != T.STR and t != T.ANY:
                cx.error(side.pos, f"'+' joins two texts, but this is {T.describe(t)} (write str(x))")
        def concat(st, L):
            text = lf(st, L) + rf(st, L)
            check_size(len(text), "this text")
            return text
        return guard(concat, node.pos, "'+'"), T.STR
    for side, t in ((node.left, lt), (node.right, rt)):
        if not T.is_numeric(t):
            cx.error(side.pos, f"'{op}' needs numbers, but this is {T.describe(t)}")
    f = _ARITH[op]
    if op in ("//", "%"):
        return guard(lambda st, L: f(lf(st, L), rf(st, L)), node.pos, f"'{op}'"), T.INT
    if op == "+":
        return (lambda st, L: lf(st, L) + rf(st, L)), T.INT
    if op == "-":
        return (lambda st, L: lf(st, L) - rf(st, L)), T.INT
    return guard(lambda st, L: f(lf(st, L), rf(st, L)), node.pos, f"'{op}'"), T.INT


def _neg(node: ast.Neg, cx: Cx):
    f, t = compile_expr(node.operand, cx)
    if not T.is_numeric(t):
        cx.error(node.pos, f"'-' needs a number, but this is {T.describe(t)}")
    return guard(lambda st, L: -f(st, L), node.pos, "'-'"), T.INT


def _orderable(t: T.Type) -> bool:
    if T.is_numeric(t):
        return True
    if isinstance(t, T.TupleT):
        return all(_orderable(x) for x in t.items)
    return isinstance(t, T.Sym) and False


def _compare(node: ast.Compare, cx: Cx):
    op = node.op
    if op in ("in", "notin"):
        lf, lt = compile_expr(node.left, cx)
        rf, rt = compile_expr(node.right, cx)
        negate = op == "notin"
        if isinstance(rt, T.ZoneT):
            if not (isinstance(lt, T.Comp) or T.is_any(lt)):
                cx.error(node.left.pos, f"only a component can be in a zone, not {T.describe(lt)}")

            def in_zone(st, L):
                c = lf(st, L)
                return (c is not None and st.where[c.id] == rf(st, L).id) != negate
            return guard(in_zone, node.pos, "'in'"), T.BOOL
        if isinstance(rt, T.MapT):
            return (lambda st, L: (lf(st, L) in rf(st, L)) != negate), T.BOOL
        if not T.is_listlike(rt):
            cx.error(node.right.pos, f"'in' needs a list or a zone on its right, not {T.describe(rt)}")
        elif not T.comparable(lt, T.elem_of(rt)):
            cx.error(node.pos, f"{T.describe(lt)} is never in {T.describe(rt)}")
        if negate:
            return guard(lambda st, L: lf(st, L) not in rf(st, L), node.pos, "'not in'"), T.BOOL
        return guard(lambda st, L: lf(st, L) in rf(st, L), node.pos, "'in'"), T.BOOL
    lf, lt = compile_expr(node.left, cx)
    rf, rt = compile_expr(node.right, cx)
    if op in ("==", "!="):
        if not T.comparable(lt, rt):
            cx.error(node.pos, f"cannot compare {T.describe(lt)} with {T.describe(rt)}: they are never equal")
        if op == "==":
            return (lambda st, L: lf(st, L) == rf(st, L)), T.BOOL
        return (lambda st, L: lf(st, L) != rf(st, L)), T.BOOL
    for side, t in ((node.left, lt), (node.right, rt)):
        if not _orderable(t):
            cx.error(side.pos, f"'{op}' compares numbers, but this is {T.describe(t)}")
    fn = {
        "<": lambda st, L: lf(st, L) < rf(st, L),
        "<=": lambda st, L: lf(st, L) <= rf(st, L),
        ">": lambda st, L: lf(st, L) > rf(st, L),
        ">=": lambda st, L: lf(st, L) >= rf(st, L),
    }[op]
    return guard(fn, node.pos, f"'{op}'"), T.BOOL


def _boolop(node: ast.BoolOp, cx: Cx):
    fns = [compile_cond(v, cx, f"each side of '{node.op}'")[0] for v in node.values]
    if node.op == "and":
        if len(fns) == 2:
            a, b = fns
            return (lambda st, L: a(st, L) and b(st, L)), T.BOOL
        return (lambda st, L: all(f(st, L) for f in fns)), T.BOOL
    if len(fns) == 2:
        a, b = fns
        return (lambda st, L: a(st, L) or b(st, L)), T.BOOL
    return (lambda st, L: any(f(st, L) for f in fns)), T.BOOL


def _not(node: ast.Not, cx: Cx):
    f, _ = compile_cond(node.operand, cx, "the operand of 'not'")
    return (lambda st, L: not f(st, L)), T.BOOL


def _ifexp(node: ast.IfExp, cx: Cx):
    tf, _ = compile_cond(node.test, cx)
    bf, bt = compile_expr(node.body, cx)
    of, ot = compile_expr(node.orelse, cx)
    typ = T.join(bt, ot)
    if typ is None:
        cx.error(node.pos, f"the two branches give {T.describe(bt)} and {T.describe(ot)}")
        typ = T.ANY
    if isinstance(bt, T.ZoneT) and isinstance(ot, T.ZoneT):
        typ = T.ZoneT(bt.holds | ot.holds)
    return (lambda st, L: bf(st, L) if tf(st, L) else of(st, L)), typ


def _range(node: ast.Range, cx: Cx):
    lf, lt = compile_expr(node.lo, cx)
    hf, ht = compile_expr(node.hi, cx)
    for side, t in ((node.lo, lt), (node.hi, ht)):
        if not T.is_numeric(t):
            cx.error(side.pos, f"a range needs numbers, but this is {T.describe(t)}")
    def make(st, L):
        lo, hi = lf(st, L), hf(st, L)
        check_size(hi - lo + 1, f"the range {lo}..{hi}")
        return tuple(range(lo, hi + 1))
    return guard(make, node.pos, "range"), T.ListT(T.INT)


def _list(node: ast.ListExpr, cx: Cx):
    compiled = [compile_expr(i, cx) for i in node.items]
    fns = [f for f, _ in compiled]
    elem = T.ANY
    if compiled:
        elem = compiled[0][1]
        for item, (_, t) in zip(node.items[1:], compiled[1:]):
            j = T.join(elem, t)
            if j is None:
                cx.error(item.pos, f"list items differ: {T.describe(elem)} and {T.describe(t)}")
                j = T.ANY
            elem = j
    return (lambda st, L: tuple(f(st, L) for f in fns)), T.ListT(elem)


def _tuple(node: ast.TupleExpr, cx: Cx):
    compiled = [compile_expr(i, cx) for i in node.items]
    fns = [f for f, _ in compiled]
    return (lambda st, L: tuple(f(st, L) for f in fns)), T.TupleT(tuple(t for _, t in compiled))


def _record(node: ast.RecordExpr, cx: Cx):
    names = [n for n, _ in node.fields]
    if len(set(names)) != len(names):
        cx.error(node.pos, "a field is named twice in this record")
    compiled = [(n, *compile_expr(v, cx)) for n, v in node.fields]
    fields = [(n, f) for n, f, _ in compiled]
    return (lambda st, L: Record({n: f(st, L) for n, f in fields})), T.RecordT(tuple((n, t) for n, _, t in compiled))


def _listcomp(node: ast.ListComp, cx: Cx):
    if cx.scope is None:
        cx.scope = Scope()
    cx.scope.push()
    loops = []
    try:
        for clause in node.fors:
            it, itype = compile_as_list(clause.iter, cx, "what a 'for' runs over")
            elem = T.elem_of(itype)
            slots = _declare_targets(clause, elem, cx)
            note_range(clause, slots, cx)
            loops.append((it, slots))
        cond = compile_cond(node.cond, cx)[0] if node.cond is not None else None
        ef, et = compile_expr(node.elt, cx)
    finally:
        cx.scope.pop()

    if len(loops) == 1 and len(loops[0][1]) == 1:
        (it, (s,)), = loops
        if cond is None:
            def run(st, L):  # the common fast case
                out = []
                for v in it(st, L):
                    L[s] = v
                    out.append(ef(st, L))
                return tuple(out)
        else:
            def run(st, L):
                out = []
                for v in it(st, L):
                    L[s] = v
                    if cond(st, L):
                        out.append(ef(st, L))
                return tuple(out)
    else:
        def run(st, L):
            out = []
            tried = [0]

            def level(i):
                if i == len(loops):
                    tried[0] += 1
                    if tried[0] > LIMITS.elements:
                        check_size(tried[0], "this comprehension")
                    if cond is None or cond(st, L):
                        out.append(ef(st, L))
                    return
                it, slots = loops[i]
                for v in it(st, L):
                    bind(L, slots, v)
                    level(i + 1)
            level(0)
            return tuple(out)
    fast = len(loops) == 1 and len(loops[0][1]) == 1
    return (run if fast else guard(run, node.pos, "comprehension")), T.ListT(et)


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


def compile_lambda(node, param_type: T.Type, cx: Cx, expect: T.Type | None, what: str):
    """Compile ``x -> body`` into a maker ``mk(st, L) -> callable(x)``."""
    if not isinstance(node, ast.Lambda):
        cx.error(node.pos, f"{what} must be a lambda such as 'x -> ...'", E_LAMBDA)
        return (lambda st, L: (lambda x: None)), T.ANY
    if cx.scope is None:
        cx.scope = Scope()
    cx.scope.push()
    try:
        slot = cx.scope.declare(node.param, param_type)
        if expect == T.BOOL:
            body, bt = compile_cond(node.body, cx, f"the result of {what}")
        else:
            body, bt = compile_expr(node.body, cx)
            if expect is not None and not T.compatible(bt, expect):
                cx.error(node.body.pos, f"{what} must give {T.describe(expect)}, not {T.describe(bt)}")
    finally:
        cx.scope.pop()

    def make(st, L):
        def fn(x):
            L[slot] = x
            return body(st, L)
        return fn
    return make, bt


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
    return _call_builtin(node, b, cx)


def _call_builtin(node: ast.Call, b, cx: Cx):
    args = node.args
    if b.variadic_numeric and args and not isinstance(args[0], ast.Lambda):
        probe_report = Report()
        first_t = compile_expr(args[0], Cx(cx.game, probe_report, cx.scope, cx.static, cx.notes, cx.compiler))[1]
        if T.is_numeric(first_t) and not T.is_any(first_t):
            fns = []
            for a in args:
                f, t = compile_expr(a, cx)
                if not T.is_numeric(t):
                    cx.error(a.pos, f"{b.name}(a, b, ...) compares numbers, not {T.describe(t)}")
                fns.append(f)
            impl = b.impl
            return guard(lambda st, L: impl(st, *[f(st, L) for f in fns]), node.pos, f"{b.name}()"), T.INT
    if b.params and b.params[0].kind == "family":
        return _call_family(node, b, cx)
    required = [p for p in b.params if not p.optional]
    if not len(required) <= len(args) <= len(b.params):
        shape = ", ".join(p.name + ("?" if p.optional else "") for p in b.params)
        return cx.error(node.pos, f"{b.name}({shape}) takes {len(required)}"
                                  f"{'' if len(required) == len(b.params) else f' to {len(b.params)}'} "
                                  f"arguments, not {len(args)}", E_ARITY)
    types: dict = {}
    fn_types: dict = {}
    makers = []  # (is_lambda, fn)
    for p, a in zip(b.params, args):
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
            mk, rt = compile_lambda(a, ptype, cx, p.returns, f"the '{p.name}' of {b.name}()")
            fn_types[p.name] = rt
            makers.append((True, mk))
            continue
        f, t = compile_expr(a, cx)
        if isinstance(a, ast.Lambda):
            cx.error(a.pos, f"the '{p.name}' of {b.name}() is not a function", E_LAMBDA)
        if p.kind == "list":
            f, t = as_list(f, t, a.pos, cx, f"the '{p.name}' of {b.name}()")
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
        makers.append((False, f))
    result = b.result(types, fn_types)
    impl = b.impl
    fs = [f for _, f in makers]  # a lambda's entry makes the callable from the frame
    if len(fs) == 1:
        f0, = fs
        fn = lambda st, L: impl(st, f0(st, L))  # noqa: E731
    elif len(fs) == 2:
        f0, f1 = fs
        fn = lambda st, L: impl(st, f0(st, L), f1(st, L))  # noqa: E731
    else:
        fn = lambda st, L: impl(st, *[f(st, L) for f in fs])  # noqa: E731
    return guard(fn, node.pos, f"{b.name}()"), result


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
            compile_expr(a, cx)
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
        f, t = compile_expr(arg, cx)
        if isinstance(arg, ast.Lambda):
            cx.error(arg.pos, f"an index value of {b.name}() is not a function", E_LAMBDA)
        elif not T.compatible(t, spec.type):
            cx.error(arg.pos, f"zone family '{first.id}': index '{spec.name}' is {T.describe(spec.type)}, "
                              f"not {T.describe(t)}")
        parts.append(f)
    result = b.result({b.params[0].name: T.ZoneT(fam.holds)}, {})
    impl = b.impl
    fid = fam.id
    if not parts:
        fn = lambda st, L: impl(st, fid, ())  # noqa: E731
    elif len(parts) == 1:
        f0, = parts
        fn = lambda st, L: impl(st, fid, (f0(st, L),))  # noqa: E731
    elif len(parts) == 2:
        f0, f1 = parts
        fn = lambda st, L: impl(st, fid, (f0(st, L), f1(st, L)))  # noqa: E731
    else:
        fn = lambda st, L: impl(st, fid, tuple(f(st, L) for f in parts))  # noqa: E731
    return guard(fn, node.pos, f"{b.name}()"), result


def _call_user(node: ast.Call, fdecl, cx: Cx):
    if len(node.args) != len(fdecl.params):
        return cx.error(node.pos, f"{fdecl.name}() takes {len(fdecl.params)} arguments, not {len(node.args)}",
                        E_ARITY)
    argfns = []
    for a, (pname, ptype) in zip(node.args, fdecl.params):
        f, t = compile_expr(a, cx)
        if isinstance(ptype, T.ListT) and isinstance(t, T.ZoneT):
            f0 = f
            f = lambda st, L, f0=f0: tuple(st.z[f0(st, L).id])  # noqa: E731 - a snapshot, hashable
            t = T.ListT(T.elem_of(t))
        if not T.compatible(t, ptype):
            cx.error(a.pos, f"argument '{pname}' of {fdecl.name}() must be {T.describe(ptype)}, not {T.describe(t)}")
        argfns.append(f)
    if cx.compiler is not None:
        cx.compiler.compile_function(fdecl, node.pos, static=cx.static)
    if fdecl.type is None:
        return cx.error(node.pos, f"{fdecl.name}() calls itself; functions may not be recursive")
    holder = fdecl
    name = fdecl.name
    # Functions are pure (they see their arguments and the state, nothing
    # else), so a result stays valid until the state changes: State.memo is
    # emptied by every change (State.changed).
    if len(argfns) == 0:
        def call(st, L):
            memo = st.memo
            key = (name,)
            if key in memo:
                return memo[key]
            value = memo[key] = holder.compiled(st, [None] * holder.nslots)
            return value
    elif len(argfns) == 1:
        a0, = argfns

        def call(st, L):
            x = a0(st, L)
            key = (name, x)
            memo = st.memo
            if key in memo:
                return memo[key]
            frame = [None] * holder.nslots
            frame[0] = x
            value = memo[key] = holder.compiled(st, frame)
            return value
    elif len(argfns) == 2:
        a0, a1 = argfns

        def call(st, L):
            x, y = a0(st, L), a1(st, L)
            key = (name, x, y)
            memo = st.memo
            if key in memo:
                return memo[key]
            frame = [None] * holder.nslots
            frame[0] = x
            frame[1] = y
            value = memo[key] = holder.compiled(st, frame)
            return value
    elif len(argfns) == 3:
        a0, a1, a2 = argfns

        def call(st, L):
            x, y, z = a0(st, L), a1(st, L), a2(st, L)
            key = (name, x, y, z)
            memo = st.memo
            if key in memo:
                return memo[key]
            frame = [None] * holder.nslots
            frame[0] = x
            frame[1] = y
            frame[2] = z
            value = memo[key] = holder.compiled(st, frame)
            return value
    else:
        def call(st, L):
            args = tuple(f(st, L) for f in argfns)
            key = (name, args)
            memo = st.memo
            if key in memo:
                return memo[key]
            frame = [None] * holder.nslots
            frame[:len(args)] = args
            value = memo[key] = holder.compiled(st, frame)
            return value
    return call, fdecl.type


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
