"""Every value an expression can take in a layout, found without playing (for the fixed action
space, spaces.py): :class:`_Bounder` evaluates a parameter's domain expression over *sets of
possible values* — a number variable with ``min``/``max`` stands for its range, any other
variable for its type's values, its initial values and ``none``, a zone for every component its
family may hold, an enum for its symbols, a rulebook function for its body with the argument
sets bound.  An over-approximation: every value the expression can take is in the set;
:class:`Unbounded` where none can be stated (the action's ``bounds:`` then, or RW240).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from dsl import ast
from dsl.parser import ParseError, parse_expression

from ..compile.names import builtin_called
from .values import Component, Zone


#: beyond this many possible values a set is "unbounded" (and so is a space of more ids)
MAX_SET = 20_000


class Unbounded(Exception):
    """A domain whose values cannot be bounded at layout time."""

    def __init__(self, why: str, pos=None):
        super().__init__(why)
        self.why = why
        self.pos = pos


@dataclass(frozen=True)
class AbsList:
    """A list whose elements are some of ``elems`` (None: unknown)."""

    elems: frozenset | None


def _product(sets, f):
    """{f(*xs) for xs in the product of sets}; unknown if any set is unknown or too large."""
    if len(sets) == 2:  # the most common case: two single values
        a, b = sets
        if a is None or b is None:
            return None
        if len(a) == 1 and len(b) == 1:
            (x,), (y,) = a, b
            try:
                return frozenset((f(x, y),))
            except Exception:  # noqa: BLE001 - as below
                return frozenset()
    if any(s is None for s in sets):
        return None
    size = 1
    for s in sets:
        size *= max(len(s), 1)
    if size > MAX_SET:
        return None
    try:  # the common case, in one go; a failing combination takes the slow path below
        if len(sets) == 1:
            return frozenset(map(f, sets[0]))
        return frozenset(itertools.starmap(f, itertools.product(*sets)))
    except Exception:  # noqa: BLE001
        pass
    out = set()
    for xs in itertools.product(*sets):
        try:
            out.add(f(*xs))
        except Exception:  # noqa: BLE001 - a combination that fails at run time is never legal
            continue
    return frozenset(out)


def _union(a, b):
    if a is None or b is None:
        return None
    if isinstance(a, AbsList) or isinstance(b, AbsList):
        ea = a.elems if isinstance(a, AbsList) else None
        eb = b.elems if isinstance(b, AbsList) else None
        if not (isinstance(a, AbsList) and isinstance(b, AbsList)) or ea is None or eb is None:
            return AbsList(None)
        return AbsList(ea | eb)
    return a | b


BOOLS = frozenset((True, False))
_NONE = frozenset((None,))
_COMPARE = {"==": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y,
            "<=": lambda x, y: x <= y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y}


class _Bounder:
    """Evaluates expressions over sets of possible values (see the module docstring)."""

    #: reuse results (off only in the test that the memo changes no space)
    MEMO = True

    def __init__(self, game, lay):
        self.game = game
        self.lay = lay
        self.ncomp = len(lay.components)
        self.counts = frozenset(range(0, max(self.ncomp, len(lay.zones)) + 1))
        self.seats = frozenset(lay.seats)
        self.calls: list = []
        self._parsed: dict = {}
        # results already found, keyed by what they can depend on (see _key): the same
        # domain, function call or filtered comprehension recurs with every earlier value
        self._memo: dict = {}
        self._names: dict = {}
        self._inits: dict = {}

    # --- entry points -----------------------------------------------------
    def elems_of_source(self, source, pos, env):
        if isinstance(source, list):
            return frozenset(x for x in source if isinstance(x, (int, str)))
        key = (source, pos)
        node = self._parsed.get(key)
        if node is None:
            try:
                node = parse_expression(source, pos)
            except ParseError:
                return None
            self._parsed[key] = node
        mkey = self._key(("domain", id(node)), node, env)
        if mkey is None:
            return self.elems(node, env)
        if mkey not in self._memo:
            self._memo[mkey] = (node, self.elems(node, env))  # the node is kept alive: its id stays its own
        return self._memo[mkey][1]

    def _key(self, what, node, env, skip=(), comp=False):
        """A memo key for evaluating ``node`` in ``env``: the values of the names it mentions
        (told apart by type, so that 1 and true stay different) and the functions being
        called (a recursive call is unknown); None when a value cannot be a key.
        ``comp``: a comprehension's condition and element only (its iterable is in ``what``)."""
        if not self.MEMO:
            return None
        names = self._names.get((id(node), comp))
        if names is None:  # the node is kept in the entry, so its id stays its own
            parts = (node.elt, node.cond) if comp else node
            names = self._names[(id(node), comp)] = (node, tuple(sorted(ast.names_in(parts))))
        try:
            return (what, tuple((n, _tagged(env[n])) if n in env else (n,) for n in names[1] if n not in skip),
                    tuple(self.calls))
        except TypeError:
            return None

    def by_type(self, typ):
        from ..compile import types as T
        if typ == T.PLAYER:
            return self.seats
        if typ == T.BOOL:
            return BOOLS
        if isinstance(typ, T.Sym):
            enum = self.game.enums.get(typ.enum)
            return frozenset(enum.symbols) if enum is not None else None
        if isinstance(typ, T.Comp):
            return frozenset(c for c in self.lay.components if not typ.kinds or c.kind in typ.kinds)
        return None

    # --- lists ------------------------------------------------------------
    def elems(self, node, env):
        """The possible elements of a list-valued expression (None: unknown)."""
        v = self.val(node, env)
        if isinstance(v, AbsList):
            return v.elems
        if v is None:
            return None
        # a set of zones: their possible contents
        if v and all(isinstance(z, Zone) for z in v):
            return self.zone_contents(v)
        if v and all(isinstance(x, (tuple, list)) for x in v):
            out = set()
            for x in v:
                for e in x:
                    try:
                        out.add(e)
                    except TypeError:
                        return None
            return frozenset(out)
        return None

    def zone_contents(self, zones):
        kinds = set()
        for z in zones:
            if not z.holds:
                return frozenset(self.lay.components)
            kinds |= set(z.holds)
        return frozenset(c for c in self.lay.components if c.kind in kinds)

    def as_elems(self, v):
        if isinstance(v, AbsList):
            return v.elems
        if v is None:
            return None
        if v and all(isinstance(z, Zone) for z in v):
            return self.zone_contents(v)
        if all(isinstance(x, tuple) for x in v):
            out = set()
            for x in v:
                out |= set(x)
            return frozenset(out)
        return None

    # --- values -----------------------------------------------------------
    def val(self, node, env):
        visit = _VISIT.get(type(node))
        if visit is None:
            visit = _VISIT[type(node)] = getattr(_Bounder, "v_" + type(node).__name__, _unknown)
        return visit(self, node, env)

    def v_Number(self, node, env):
        return frozenset((node.value,))

    def v_String(self, node, env):
        return frozenset((node.value,))

    def v_Const(self, node, env):
        return frozenset((node.value,))

    def v_Name(self, node, env):
        n = node.id
        g, lay = self.game, self.lay
        if n in env:
            return env[n]
        if n == "player":
            return self.seats
        if n == "players":
            return AbsList(self.seats)
        if n == "num_players":
            return frozenset((lay.num_players,))
        if n == "num_seats":
            return frozenset((lay.num_seats,))
        if n in lay.const:
            return _const_val(lay.const[n])
        if n in g.variables:
            return self.var_values(g.variables[n])
        if n in g.enums:
            return AbsList(frozenset(g.enums[n].symbols))
        if n in g.symbol_enum or n in g.kinds:
            return frozenset((n,))
        if n in g.zones:
            fam = g.zones[n]
            zones = lay.zfam[fam.id]
            if not fam.index:
                return frozenset(zones.values())
            return None
        if n == "box":
            return frozenset((lay.box,))
        return None

    def var_values(self, var):
        from ..compile import types as T
        clamp = self.lay.clamp.get(var.name)
        if var.index:
            return None  # indexed: see v_Index
        return self._typed_var(var, clamp, T)

    def _typed_var(self, var, clamp, T):
        """Every value ``var`` can hold: its type's values (a number's range), its initial
        values, and ``none`` (which any variable but a number with ``min``/``max`` may be
        set to: the clamp of such a number fails on none) — so that ``x == none`` filters
        keep what they may keep."""
        typ = var.type
        if clamp is not None and clamp[0] is not None and clamp[1] is not None and typ == T.INT:
            out = frozenset(range(clamp[0], clamp[1] + 1))
        else:
            out = self.by_type(typ)
            if out is None:
                return None
            out = out | _NONE
        init = self._initial(var)
        return out if init is None or init <= out else out | init

    def _initial(self, var):
        """The initial values of ``var`` in this layout (None: not hashable)."""
        got = self._inits.get(var.name)
        if got is None and var.name not in self._inits:
            lay = self.lay
            if var.index:
                keys = lay.vkeys[var.family_id] if 0 <= var.family_id < len(lay.vkeys) else {}
                vals = [lay.init_vars[i] for i in keys.values()]
            else:
                vals = [lay.init_vars[var.offset]] if 0 <= var.offset < len(lay.init_vars) else []
            try:
                got = frozenset(vals)
            except TypeError:
                got = None
            self._inits[var.name] = got
        return got

    def v_Attr(self, node, env):
        objs = self.val(node.obj, env)
        name = node.name

        def get(o):
            if isinstance(o, Component):
                if name == "kind":
                    return o.kind
                if name == "label":
                    return o.label
                return o.attrs[name]
            if isinstance(o, Zone):
                raise KeyError(name)
            return o[name] if not hasattr(o, name) or isinstance(o, dict) else getattr(o, name)
        return _product([objs], get)

    def v_Index(self, node, env):
        g, lay = self.game, self.lay
        obj = node.obj
        args = [self.val(a, env) for a in node.args]
        if isinstance(obj, ast.Name):
            n = obj.id
            if n in g.zones and n not in env:
                fam = g.zones[n]
                zones = lay.zfam[fam.id]
                if any(a is None for a in args):
                    return frozenset(zones.values())
                key = (lambda *xs: zones[xs[0] if len(xs) == 1 else tuple(xs)])
                out = _product(args, key)
                return out if out else frozenset(zones.values())
            if n in g.tables and n not in env:
                table = g.tables[n]
                got = _product(args, lambda k: _hashable(table.lookup(k)))
                if got is None:
                    vals = list(table.exact.values()) + [r[2] for r in table.ranges]
                    return frozenset(_hashable(v) for v in vals)
                return got
            if n in lay.const and n not in env and isinstance(lay.const[n], (dict, tuple, list)):
                table = lay.const[n]
                return _product(args, lambda *ks: _hashable(_index(table, ks)))
            if n in g.variables and n not in env:
                var = g.variables[n]
                from ..compile import types as T
                return self._typed_var(var, lay.clamp.get(var.name), T)
        objs = self.val(obj, env)
        if isinstance(objs, AbsList):
            return objs.elems
        if objs is None:
            return None
        return _product([objs] + args, lambda o, *ks: _hashable(_index(o, ks)))

    def v_BinOp(self, node, env):
        a, b = self.val(node.left, env), self.val(node.right, env)
        op = node.op
        if isinstance(a, AbsList) or isinstance(b, AbsList):
            if op == "+":
                return _union(a if isinstance(a, AbsList) else AbsList(None), b if isinstance(b, AbsList) else AbsList(None))
            return AbsList(None)
        f = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
             "//": lambda x, y: x // y, "%": lambda x, y: x % y}.get(op)
        if op == "**":                  # known only for small numbers (else unknown, not computed)
            if a is None or b is None or not all(isinstance(y, int) and 0 <= y <= 64 for y in b) or \
                    not all(isinstance(x, int) and abs(x) < 1 << 16 for x in a):
                return None
            f = pow
        if f is None:
            return None
        out = _product([a, b], f)
        if out is None and _ints(a) and _ints(b) and op in "+-*":
            # too many combinations: the interval of the results (corners suffice for + - *)
            corners = [f(x, y) for x in (min(a), max(a)) for y in (min(b), max(b))]
            return _interval(min(corners), max(corners))
        return out

    def v_Neg(self, node, env):
        return _product([self.val(node.operand, env)], lambda x: -x)

    def v_Compare(self, node, env):
        f = _COMPARE.get(node.op)
        if f is None:
            return BOOLS
        a, b = self.val(node.left, env), self.val(node.right, env)
        if isinstance(a, AbsList) or isinstance(b, AbsList) or a is None or b is None:
            return BOOLS
        got = _product([a, b], f)
        return got if got else BOOLS

    def v_BoolOp(self, node, env):
        parts = [self.val(v, env) for v in node.values]
        known = [p for p in parts if isinstance(p, frozenset) and p <= BOOLS and p]
        if node.op == "and" and any(p == frozenset((False,)) for p in known):
            return frozenset((False,))
        if node.op == "or" and any(p == frozenset((True,)) for p in known):
            return frozenset((True,))
        if len(known) == len(parts):
            pick = all if node.op == "and" else any
            return _product(known, lambda *xs: pick(xs))
        return BOOLS

    def v_Not(self, node, env):
        v = self.val(node.operand, env)
        if isinstance(v, frozenset) and v <= BOOLS and v:
            return frozenset(not x for x in v)
        return BOOLS

    def v_IfExp(self, node, env):
        return _union(self.val(node.body, env), self.val(node.orelse, env))

    def v_Range(self, node, env):
        lo, hi = self.val(node.lo, env), self.val(node.hi, env)
        if hi is None and builtin_called(node.hi, self.game) == "min" and len(node.hi.args) >= 2:
            # min(a, unknown): at most a's largest value
            known = [v for v in (self.val(a, env) for a in node.hi.args) if _ints(v)]
            if known:
                hi = frozenset((min(max(v) for v in known),))
        if lo is None or hi is None or isinstance(lo, AbsList) or isinstance(hi, AbsList) or not lo or not hi:
            return AbsList(None) if (lo is None or hi is None) else AbsList(frozenset())
        try:
            a, z = min(lo), max(hi)
        except TypeError:
            return AbsList(None)
        if z - a > MAX_SET:
            return AbsList(None)
        return AbsList(frozenset(range(a, z + 1)))

    def v_ListExpr(self, node, env):
        out = frozenset()
        for item in node.items:
            v = self.val(item, env)
            if v is None or isinstance(v, AbsList):
                return AbsList(None)
            out |= v
        return AbsList(out)

    def v_TupleExpr(self, node, env):
        parts = [self.val(i, env) for i in node.items]
        if any(isinstance(p, AbsList) for p in parts):
            return None
        return _product(parts, lambda *xs: tuple(xs))

    def v_ListComp(self, node, env):
        if len(node.fors) == 1 and len(node.fors[0].names) == 1 and node.cond is not None:
            # one loop variable over few values: drop the values the condition surely rejects
            it = self.elems(node.fors[0].iter, env)
            if it is not None and len(it) <= 1000:
                name = node.fors[0].names[0]
                try:
                    # the names of the iterable matter only through ``it``
                    mkey = self._key(("comp", id(node), _tagged(it)), node, env, skip=(name,), comp=True)
                except TypeError:
                    mkey = None
                if mkey is not None:
                    if mkey not in self._memo:
                        self._memo[mkey] = (node, self._filtered_comp(node, name, it, env))
                    return self._memo[mkey][1]
                return self._filtered_comp(node, name, it, env)
        inner = dict(env)
        for comp in node.fors:
            it = self.elems(comp.iter, inner)
            if it is None:
                return AbsList(None)
            if len(comp.names) == 1:
                inner[comp.names[0]] = it
            else:
                for i, name in enumerate(comp.names):
                    inner[name] = _product([it], lambda t, i=i: t[i])
        v = self.val(node.elt, inner)
        if v is None or isinstance(v, AbsList):
            return AbsList(None)
        return AbsList(v)

    def _filtered_comp(self, node, name, it, env):
        out = set()
        for x in it:
            inner = {**env, name: frozenset((x,))}
            if self.val(node.cond, inner) == frozenset((False,)):
                continue
            v = self.val(node.elt, inner)
            if v is None or isinstance(v, AbsList):
                return AbsList(None)
            out |= v
        return AbsList(frozenset(out))

    def v_Call(self, node, env):
        if not isinstance(node.func, ast.Name):
            return None
        name = node.func.id
        g = self.game
        fn = g.functions.get(name)
        if fn is not None:
            return self.call_function(fn, node.args, env)
        args = node.args
        if name in ("filter", "sorted", "reversed", "distinct", "take", "flatten_not"):
            return AbsList(self.elems(args[0], env)) if args else None
        if name in ("first", "last") and (len(args) == 3 or (len(args) == 2 and
                                                             not isinstance(args[1], ast.Lambda))):
            xs, default = self.elems(args[0], env), self.val(args[-1], env)     # with a default
            if xs is None or default is None or isinstance(default, AbsList):
                return None
            return xs | default
        if name in ("first", "last", "top", "bottom", "argmax", "argmin"):
            return self.elems(args[0], env) if args else None
        if name in ("count", "count_nonempty", "room", "capacity", "len"):
            return self.counts
        if name in ("empty", "full", "any", "all", "automaton"):
            return BOOLS
        if name in ("next", "prev"):
            return self.seats
        if name in ("seats_from",):
            return AbsList(self.seats)
        if name == "map" and len(args) == 2 and isinstance(args[1], ast.Lambda):
            xs = self.elems(args[0], env)
            if xs is None:
                return AbsList(None)
            v = self.val(args[1].body, {**env, args[1].param: xs})
            return AbsList(v) if v is not None and not isinstance(v, AbsList) else AbsList(None)
        if name in ("min", "max"):
            if len(args) >= 2 and not isinstance(args[1], ast.Lambda):
                vals = [self.val(a, env) for a in args]
                if any(isinstance(v, AbsList) for v in vals):
                    return None
                if any(v is None for v in vals):
                    # min: bounded by any known argument from above, not below
                    return None
                pick = min if name == "min" else max
                if all(_ints(v) for v in vals):
                    return _interval(pick(min(v) for v in vals), pick(max(v) for v in vals))
                return _product(vals, lambda *xs: pick(xs))
            if len(args) == 1:
                return self.elems(args[0], env)
            return None
        if name == "abs":
            return _product([self.val(args[0], env)], abs) if args else None
        if name == "sum" and args:
            return self.sum_values(args, env)
        return None

    def sum_values(self, args, env):
        """``sum(xs)`` / ``sum(xs, x -> f)`` where ``xs`` holds each of its possible elements
        at most once (a range, an enum, the seats, a zone's components): between the sum of
        each element's least value (or 0 where it may be left out) and of its greatest."""
        src = args[0]
        # every possible element surely there (the seats, an enum's symbols), or each maybe
        whole = isinstance(src, ast.Name) and src.id not in env and (src.id == "players" or src.id in self.game.enums)
        got = None if whole or isinstance(src, ast.Range) else self.val(src, env)
        zone = isinstance(got, frozenset) and bool(got) and all(isinstance(z, Zone) for z in got)
        if not (whole or zone or isinstance(src, ast.Range)):
            return None
        elems = self.elems(src, env)
        if elems is None or len(elems) > 1000:
            return None
        f = args[1] if len(args) > 1 and isinstance(args[1], ast.Lambda) else None
        lo = hi = 0
        for x in elems:
            v = self.val(f.body, {**env, f.param: frozenset((x,))}) if f is not None else frozenset((x,))
            if not _ints(v):
                return None
            a, b = min(v), max(v)
            if not whole:                     # an element may be missing: it adds nothing then
                a, b = min(a, 0), max(b, 0)
            lo, hi = lo + a, hi + b
        return _interval(lo, hi)

    def call_function(self, fn, args, env):
        if fn.name in self.calls or len(self.calls) > 20:
            return None
        inner = {}
        for (pname, _ptype), arg in zip(fn.params, args):
            inner[pname] = self.val(arg, env)
        body = fn.body
        if not isinstance(body, ast.Node):
            body = self._parsed.get(("fn", fn.name))
            if body is None:
                try:
                    body = parse_expression(fn.body, fn.pos)
                except ParseError:
                    return None
                self._parsed[("fn", fn.name)] = body
        try:
            mkey = ("fn", fn.name, tuple((k, _tagged(v)) for k, v in inner.items()), tuple(self.calls)) \
                if self.MEMO else None
        except TypeError:
            mkey = None
        if mkey is not None and mkey in self._memo:
            return self._memo[mkey]
        self.calls.append(fn.name)
        try:
            out = self.val(body, inner)
        finally:
            self.calls.pop()
        if mkey is not None:
            self._memo[mkey] = out
        return out


def _unknown(bounder, node, env):
    return None


#: values equal only to values of their own type (a set of just these is its own key)
_PLAIN = frozenset((str, Component, Zone))


def _tagged(v):
    """``v`` as a memo key that tells equal values of different types apart (1, 1.0, true)."""
    if isinstance(v, frozenset):
        for x in v:
            if type(x) not in _PLAIN:
                return frozenset(_tagged(x) for x in v)
        return v
    if isinstance(v, tuple):
        return (tuple,) + tuple(_tagged(x) for x in v)
    if isinstance(v, AbsList):
        return (AbsList, None if v.elems is None else _tagged(v.elems))
    hash(v)
    return (type(v), v)


def _ints(v) -> bool:
    return isinstance(v, frozenset) and bool(v) and all(isinstance(x, int) and not isinstance(x, bool) for x in v)


def _interval(lo: int, hi: int):
    return frozenset(range(lo, hi + 1)) if hi - lo <= MAX_SET else None


def _index(o, ks):
    if isinstance(o, tuple):
        return o[ks[0]]
    return o[ks[0]] if len(ks) == 1 else o[tuple(ks)]


def _hashable(v):
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    return v


def _const_val(value):
    if isinstance(value, (tuple, list)):
        try:
            return AbsList(frozenset(_hashable(x) for x in value))
        except TypeError:
            return AbsList(None)
    try:
        return frozenset((_hashable(value),))
    except TypeError:
        return None


#: node type → the _Bounder method that evaluates it (v_<type name>)
_VISIT: dict = {}
