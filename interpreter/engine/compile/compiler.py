"""Compile a loaded rulebook into a :class:`model.GameDef`.

Declarations are collected first (enums, kinds, zones, variables, actions,
procedures, triggers), so that every name is known before any expression is
compiled; then every expression and step list is compiled into closures.
All problems are reported; a rulebook with errors gives no GameDef.
"""
from __future__ import annotations

import re
import sys
from collections import Counter

from dsl import ast
from dsl.diagnostics import Pos, Report
from dsl.loader import RulebookSource
from dsl.parser import ParseError, parse_expression
from dsl.yamlload import LDict, LList

from . import dependencies
from . import types as T
from .context import E_NAME, E_STATIC, E_TYPE, Cx, Scope, gen_cond, guard, suggest
from .exprs import compile_cond, compile_expr, gen_text
from .calls import compile_function, inlinable, yields_distinct
from .codegen import Gen, LazyExpr, id_is_value, local
from ..display.display import check_images
from .model import (ActionDecl, ConstDecl, EnumDecl, FuncDecl, GameDef, IndexSpec, ItemSpec, KindDecl, OptionDecl,
                    ParamSpec, Procedure, TableDecl, TriggerDecl, VarDecl, ZoneFamily)
from . import flowcode
from ..run.choices import choose_sets, parse_size

#: the ends of scopes an invariant may be checked at (`when:`)
INVARIANT_SCOPES = ("turn_end", "round_end", "phase_end")
from .flowcode import lazy_entries, lazy_instructions
from ..run.limits import LIMITS
from .steps import StepCompiler

#: the expression language's own words (dsl/grammar.lark): no name can be spelled like them
KEYWORDS = frozenset({"true", "false", "none", "and", "or", "not", "in", "if", "else", "for"})
RESERVED = {"player", "players", "num_players", "num_seats", "option", "variant", "event", "viewer", "box",
            "kind"} | KEYWORDS

EVENT_TYPES = {
    "drawn": T.RecordT((("components", T.ListT(T.Comp())), ("from", T.ZoneT()), ("to", T.ZoneT()),
                        ("count", T.INT), ("short", T.BOOL))),
    "moved": T.RecordT((("components", T.ListT(T.Comp())), ("from", T.ZoneT()), ("to", T.ZoneT()))),
}
SCOPE_EVENT = T.RecordT((("name", T.STR),))
BUILTIN_SCOPES = ("action", "turn", "phase", "round")


class Compiler:
    def __init__(self, source: RulebookSource, report: Report, coverage=None):
        self.src = source
        self.report = report
        first = source.files[0] if source.files else "?"
        game = source.sections.get("game") or {}
        players = game.get("players") if isinstance(game, dict) else None
        players = players if isinstance(players, dict) else {}
        self.game = GameDef(
            name=str(game.get("name", "?")) if isinstance(game, dict) else "?",
            root=str(source.root),
            min_players=players.get("min", 1) if isinstance(players.get("min", 1), int) else 1,
            max_players=players.get("max", 1) if isinstance(players.get("max", 1), int) else 1,
        )
        self.game.source_files = list(source.files)
        self.game.coverage = coverage
        self.game.inline_actions = {}
        self.game.action_by_proc = {}
        self.first_file = first
        #: a file could not be read (RW004): its sections are unknown, not missing (no RW011 for them)
        self.unreadable = any(t is None for t in source.texts)
        self.procedures: dict[str, Procedure] = {}
        #: (action, decided in a turn of the same steps?, position) of every decide step's options
        self.offers: list = []
        #: variables a `random` step draws into (or a drawn local is copied into unchanged), and the
        #: `set`s that change a variable that may be hidden with +=, -=, *= (RW260: check_compound_draws)
        self.drawn_into: set = set()
        self.compound_sets: list = []
        #: (variable, position, action, parameter names) of every `set` in an action of a variable
        #: that may be hidden, with the parameters its value depends on (check_secret_sets)
        self.param_sets: list = []
        self.emitted: set = set()
        self.scope_names: set = set(BUILTIN_SCOPES)
        self.deferrals: list = []  # (until, pos)

    # --- helpers -----------------------------------------------------------------
    def parse(self, value, pos: Pos):
        try:
            return parse_expression(value, getattr(value, "pos", pos))
        except ParseError as exc:
            self.report.error(exc.pos, exc.message, "RW100")
            return None

    def static_expr(self, value, pos: Pos, scope: Scope | None = None, what="expression"):
        if isinstance(value, list):
            v, t = self.literal(value, pos)
            return (lambda st, L: v), t
        node = self.parse(value, pos)
        if node is None:
            return None, T.ANY
        fn, typ = compile_expr(node, Cx(self.game, self.report, scope or Scope(), True, {}, self))
        return guard(fn, node.pos, what), typ

    def dyn_expr(self, value, pos: Pos, scope: Scope | None = None, what="expression", cond=False):
        if isinstance(value, list) and not cond:
            v, t = self.literal(value, pos)
            return (lambda st, L: v), t
        node = value if isinstance(value, ast.Node) else self.parse(value, pos)
        if node is None:
            return None, T.ANY
        cx = Cx(self.game, self.report, scope or Scope(), False, {}, self)
        fn, typ = compile_cond(node, cx, what) if cond else compile_expr(node, cx)
        return guard(fn, node.pos, what), typ

    def text_expr(self, value, pos: Pos, scope: Scope, gen: Gen, what="expression", cond=False):
        """``value`` written as Python text for ``gen``'s generated code (a failure anywhere
        in it a rule error at its position, "``what``: …"): ``(text, type, pre)`` with the
        statements ``pre`` that compute parts of it first, or ``(None, ANY, [])`` when it
        does not parse; a YAML list is a constant."""
        if isinstance(value, list) and not cond:
            v, t = self.literal(value, pos)
            return gen.bind(v, "c"), t, []
        node = value if isinstance(value, ast.Node) else self.parse(value, pos)
        if node is None:
            return None, T.ANY, []
        cx = Cx(self.game, self.report, scope, False, {}, self, gen)
        return gen_text(node, cx, what, (lambda n, c: gen_cond(n, c, what)) if cond else None)

    def literal(self, value, pos: Pos):
        """A YAML value as a run-time value and its type."""
        g = self.game
        if isinstance(value, bool):
            return value, T.BOOL
        if isinstance(value, int):
            return value, T.INT
        if value is None:
            return None, T.NONE
        if isinstance(value, str):
            if value in g.symbol_enum:
                return sys.intern(str(value)), T.Sym(g.symbol_enum[value])     # one object per symbol
            if value in self.kind_names:
                return sys.intern(str(value)), T.Sym("kind")
            return str(value), T.STR
        if isinstance(value, list):
            items = [self.literal(v, value.pos_of(i) if isinstance(value, LList) else pos)
                     for i, v in enumerate(value)]
            return tuple(v for v, _ in items), T.ListT(T.join_all(t for _, t in items))
        if isinstance(value, dict):
            out = {}
            ktypes, vtypes = [], []
            for k, v in value.items():
                kv, kt = self.literal(k, pos)
                vv, vt = self.literal(v, value.pos_of(k) if isinstance(value, LDict) else pos)
                out[kv] = vv
                ktypes.append(kt)
                vtypes.append(vt)
            # a record: every key a name, unless every key is an enum symbol (a table by symbol,
            # `{red: 3, blue: 2}`); a record may have a field spelled like a symbol ({type: x, red: 1})
            if all(isinstance(k, str) and re.fullmatch(r"[A-Za-z_]\w*", k) for k in out) and not (
                    ktypes and all(isinstance(kt, T.Sym) for kt in ktypes)):
                from ..run.values import Record
                return Record(out), T.RecordT(tuple((k, t) for k, t in zip(out, vtypes)))
            return out, T.MapT(T.join_all(ktypes), T.join_all(vtypes))
        if isinstance(value, float):
            self.report.error(pos, "numbers in a rulebook are whole numbers", E_TYPE)
            return 0, T.INT  # .inf and .nan have no whole number
        return value, T.ANY

    def type_name(self, word, pos: Pos) -> T.Type:
        t = T.type_from_name(str(word), self.game.enums, self.kind_names)
        if t is None:
            self.report.error(pos, f"unknown type '{word}' (int, bool, str, player, component, zone, list of X, "
                                   f"an enum or a component kind){suggest(str(word), list(self.game.enums) + list(self.kind_names))}",
                              E_NAME)
            return T.ANY
        return t

    # --- the passes --------------------------------------------------------------
    def run(self) -> GameDef:
        s = self.src
        g = self.game
        if g.min_players > g.max_players:
            self.report.error(s.section_pos.get("game", Pos(self.first_file)), "players: min is larger than max",
                              E_TYPE)
        if g.max_players > LIMITS.players:       # every count is laid out by validate: bound them
            players = (s.sections.get("game") or {}).get("players")
            where = players.pos_of("max") if isinstance(players, LDict) else s.section_pos.get("game", Pos(self.first_file))
            self.report.error(where, f"players: max is {g.max_players:,}; at most {LIMITS.players:,} players are "
                                     f"allowed (limit 'players')", "RW310")
            g.max_players = LIMITS.players
            g.min_players = min(g.min_players, LIMITS.players)
        self.kind_names = set(s.mapping("components"))
        self.declare_enums(s.mapping("enums"))
        self.declare_options(s.mapping("options"), s.mapping("variants"))
        self.declare_constants(s.mapping("constants"))
        self.declare_tables(s.mapping("tables"))
        self.declare_kinds(s.mapping("components"))
        self.declare_zones(s.mapping("zones"))
        self.declare_variables(s.mapping("variables"))
        self.declare_functions(s.mapping("functions"))
        g.memo_size = len(g.functions)
        self.check_name_clashes()
        self.declare_procedures(s.mapping("procedures"))
        self.declare_actions(s.mapping("actions"))
        self.declare_triggers(s.mapping("triggers"))
        self.compile_constants(s.mapping("constants"))
        self.compile_seats(s.sections.get("seats"))
        self.compile_max_decisions(s.sections.get("game"))
        # zones before kinds: a component's home may be a zone of a family (`home: "deck[owner]"`),
        # whose index must be known when the home expression is compiled
        self.compile_zones(s.mapping("zones"))
        self.compile_kinds(s.mapping("components"))
        self.compile_variables(s.mapping("variables"))
        for f in g.functions.values():
            self.compile_function(f, f.pos)
        if not self.report.has_errors:
            dependencies.plan(g)    # which results a change of state makes stale (State.memo)
        self.compile_procedures(s.mapping("procedures"))
        self.compile_actions(s.mapping("actions"))
        self.compile_triggers(s.mapping("triggers"))
        g.setup = self.compile_body("setup", "setup", s.steps("setup"), s.section_pos.get("setup"))
        g.flow = self.compile_body("flow", "flow", s.steps("flow"), s.section_pos.get("flow"))
        self.compile_end(s.sections.get("end"), s.section_pos.get("end"))
        self.compile_invariants(s.mapping("invariants"))
        self.check_compound_draws()
        self.check_deferrals()
        self.check_turn_ends()
        g.display = s.sections.get("display") if isinstance(s.sections.get("display"), dict) else {}
        # the pictures it names: inside the folder, regular files, not too big (RW257); on every load
        g.images = check_images(s.root, g.display, s.section_pos.get("display"), self.report)
        self.compile_redaction()
        self.check_secret_sets()
        if not self.report.has_errors:
            self.mark_distinct_options()
        g.all_procs = dict(self.all_procs())
        g.layout_ranges = tuple(g.layout_ranges)    # expressions compiled later make their ranges
        for proc in g.all_procs.values():
            proc.live = g.live
            proc.code = lazy_instructions(proc)     # each compiled alone when first called
        if g.coverage is not None and not self.report.has_errors:
            g.coverage.instrument(g, s)  # wraps instructions to record what runs (never in normal play)
        elif not self.report.has_errors:
            for proc in g.all_procs.values():   # generated step code, made where play first gets
                proc.entries = lazy_entries(proc)
        return g

    def check_compound_draws(self):
        """RW260: ``set: "v[…] += x"`` (or -=, *=) of a variable that may be hidden and that a
        `random` step draws into: the changed value is computed from a drawn one, so resample
        cannot draw it anew (see StepCompiler._chance_lines)."""
        for name, pos in self.compound_sets:
            if name in self.drawn_into:
                self.report.warning(pos, f"'{name}' may be hidden from a seat and holds what a `random` step drew; "
                                         f"this changes it through a computation: resample cannot draw the new "
                                         f"value anew, so a search that resamples would see it; draw the value "
                                         f"it should hold directly, or keep the change in another variable",
                                    "RW260")

    def check_secret_sets(self):
        """GameDef.secret_kept: an action sets a variable that may be hidden from a seat from a
        parameter the other seats are not told (GameDef.redact): ``resample`` chooses such a
        secret choice anew for a seat that was not told it (infosets.py), among the options
        legal then, so that a search that resamples does not know it."""
        for name, pos, action, params in self.param_sets:
            info = self.game.redact.get(action)
            secret = params & info[1] if info is not None else frozenset()
            if secret:
                self.game.secret_kept[action] = self.game.secret_kept.get(action, frozenset()) | secret
        g = self.game
        for action in list(g.actions.values()) + list(g.inline_actions.values()):
            if action.name in g.sealed:     # taken together: the others know nothing of it, not even which
                g.secret_kept[action.name] = frozenset(p.name for p in action.params)

    def check_turn_ends(self):
        """RW153: an action that ends the turn (`end_turn`) offered by a decision not taken
        in a turn of the same steps (there would be no turn to end)."""
        for action, in_turn, pos in self.offers:
            if action.ends_turn and not in_turn:
                self.report.error(pos, f"action '{action.name}' ends the turn (end_turn at line "
                                       f"{action.ends_turn[0].line}), but this decision is not taken in a turn "
                                       "of the same steps (directly in a turns loop, no phase, round or scope "
                                       "between)", "RW153")

    def all_procs(self):
        g = self.game
        for proc in (g.setup, g.flow, g.scoring):
            if proc is not None:
                yield proc.name, proc
        for a in list(g.actions.values()) + list(g.inline_actions.values()):
            yield a.proc.name, a.proc
        for p in self.procedures.values():
            yield p.name, p
        for t in g.triggers:
            yield t.proc.name, t.proc

    # enums ------------------------------------------------------------------------
    def declare_enums(self, enums: LDict):
        g = self.game
        for name, symbols in enums.items():
            if not isinstance(symbols, list):
                continue
            syms = []
            for i, sym in enumerate(symbols):
                spos = symbols.pos_of(i)
                if not isinstance(sym, str):
                    continue
                if sym in g.symbol_enum:
                    self.report.error(spos, f"symbol '{sym}' is already in enum '{g.symbol_enum[sym]}'", "RW120")
                    continue
                if sym in KEYWORDS:
                    self.report.error(spos, f"symbol '{sym}' is a word of the expression language: an expression "
                                            f"could never name it (rename it)", "RW120")
                    continue
                if sym in self.kind_names:
                    self.report.error(spos, f"symbol '{sym}' is also a component kind", "RW120")
                    continue
                g.symbol_enum[sym] = name
                syms.append(str(sym))
            g.enums[name] = EnumDecl(name, tuple(syms), enums.key_pos[name])

    def declare_options(self, options: LDict, variants: LDict):
        g = self.game
        for name, spec in options.items():
            if not isinstance(spec, dict):
                continue
            allowed = spec.get("allowed")
            if isinstance(allowed, str):
                scope = Scope()
                fn, typ = self.static_expr(allowed, spec.pos_of("allowed"), scope, what="allowed values")
                if fn is not None and not isinstance(typ, T.ListT) and not T.is_any(typ):
                    self.report.error(spec.pos_of("allowed"), f"allowed values must be a list, not "
                                                              f"{T.describe(typ)}", E_TYPE)
                    fn = None
                allowed = sized(fn, scope) if fn is not None else None
            elif isinstance(allowed, list):
                allowed = [str(a) if isinstance(a, str) else a for a in allowed]
            default = spec.get("default")
            default = str(default) if isinstance(default, str) else default
            g.options[name] = OptionDecl(name, default, allowed, options.key_pos[name])
        for name in variants:
            g.variants[name] = variants.key_pos[name]

    def declare_constants(self, consts: LDict):
        g = self.game
        for name, value in consts.items():
            pos = consts.pos_of(name)
            if isinstance(value, dict) and set(value) == {"expr"}:
                g.constants[name] = ConstDecl(name, T.ANY, consts.key_pos[name])
                continue
            v, t = self.literal(value, pos)
            g.constants[name] = ConstDecl(name, t, consts.key_pos[name], value=v)

    def compile_constants(self, consts: LDict):
        g = self.game
        for name, value in consts.items():
            if isinstance(value, dict) and set(value) == {"expr"}:
                scope = Scope()
                fn, typ = self.static_expr(value["expr"], value.pos_of("expr"), scope, what=f"constant {name}")
                decl = g.constants[name]
                decl.type = typ
                decl.compute = sized(fn, scope) if fn is not None else (lambda st, L: None)

    # tables -----------------------------------------------------------------------
    def declare_tables(self, tables: LDict):
        g = self.game
        for name, rows in tables.items():
            if not isinstance(rows, dict):
                continue
            decl = TableDecl(name, T.ANY, T.ANY, tables.key_pos[name])
            ktypes, vtypes = [], []
            for key, value in rows.items():
                kpos = rows.key_pos.get(key, rows.pos)
                v, vt = self.literal(value, rows.pos_of(key))
                vtypes.append(vt)
                if isinstance(key, bool):
                    self.report.error(kpos, "a table key is a number, a range or a symbol", E_TYPE)
                    continue
                if isinstance(key, int):
                    decl.ranges.append((key, key, v, kpos))
                    ktypes.append(T.INT)
                    continue
                text = str(key).strip()
                m = re.fullmatch(r"(-?\d+)\s*(?:-|\.\.)\s*(-?\d+)", text)
                if m:
                    lo, hi = int(m.group(1)), int(m.group(2))
                    if lo > hi:
                        self.report.error(kpos, f"range '{text}' is empty (its start is above its end)", "RW201")
                    decl.ranges.append((lo, hi, v, kpos))
                    ktypes.append(T.INT)
                    continue
                m = re.fullmatch(r"(-?\d+)\s*\+", text)
                if m:
                    decl.ranges.append((int(m.group(1)), None, v, kpos))
                    ktypes.append(T.INT)
                    continue
                if text in g.symbol_enum:
                    decl.exact[text] = v
                    ktypes.append(T.Sym(g.symbol_enum[text]))
                    continue
                self.report.error(kpos, f"table key '{text}' is not a number, a range (3-5), an open range (7+) "
                                        f"or a known symbol{suggest(text, g.symbol_enum)}", E_NAME)
            decl.ranges.sort(key=lambda r: r[0])
            for prev, cur in zip(decl.ranges, decl.ranges[1:]):
                if prev[1] is None or cur[0] <= prev[1]:
                    self.report.error(cur[3], f"table '{name}': key {_key_text(cur)} overlaps {_key_text(prev)}",
                                      "RW205")
                elif cur[0] > prev[1] + 1:
                    gap = f"{prev[1] + 1}" if cur[0] == prev[1] + 2 else f"{prev[1] + 1}-{cur[0] - 1}"
                    self.report.error(cur[3], f"table '{name}' has a gap: no row for {gap}", "RW205")
            decl.key_type = T.join_all(ktypes) if ktypes else T.ANY
            decl.value_type = T.join_all(vtypes) if vtypes else T.ANY
            g.tables[name] = decl

    # components -----------------------------------------------------------------
    def declare_kinds(self, comps: LDict):
        g = self.game
        for name, spec in comps.items():
            if not isinstance(spec, dict):
                continue
            attrs = {}
            for aname, tname in (spec.get("attributes") or {}).items():
                apos = spec["attributes"].pos_of(aname)
                problem = T.attribute_name_problem(str(aname))
                if problem:
                    self.report.error(apos, problem, E_NAME)
                    g.shadowed_attrs = g.shadowed_attrs | {str(aname)}
                    continue
                attrs[aname] = self.type_name(tname, apos)
            kind = KindDecl(name, attrs, comps.key_pos[name])
            label = spec.get("label")
            if isinstance(label, str):
                kind.label = label
                parts = []
                for piece in re.split(r"(\{[^{}]*\})", label):
                    if piece.startswith("{") and piece.endswith("}"):
                        field = piece[1:-1].strip()
                        if field in g.shadowed_attrs:
                            pass                # its declaration is the error (reported once)
                        elif field in T.RESERVED_ATTRIBUTES:
                            self.report.error(spec.pos_of("label"), f"label field: {T.attribute_name_problem(field)}",
                                              E_NAME)
                        elif field not in attrs:
                            self.report.error(spec.pos_of("label"), f"label field '{field}' is not an attribute of "
                                                                    f"'{name}'{suggest(field, attrs)}", E_NAME)
                        parts.append((True, field))
                    elif piece:
                        parts.append((False, piece))
                kind.label_parts = parts
            g.kinds[name] = kind

    def compile_kinds(self, comps: LDict):
        g = self.game
        for name, spec in comps.items():
            if not isinstance(spec, dict) or name not in g.kinds:
                continue
            kind = g.kinds[name]
            items = spec.get("items")
            if items is None:
                items_list = [(spec, spec.pos)]
            else:
                items_list = [(it, items.pos_of(i)) for i, it in enumerate(items) if isinstance(it, dict)]
                if "count" in spec:
                    self.report.error(spec.pos_of("count"), "give 'count' in each item when there are items", E_TYPE)
            for item, ipos in items_list:
                kind.items.append(self.compile_item(kind, item, ipos, items is None))
            if "home" in spec:
                scope = Scope([(a, t) for a, t in kind.attributes.items()])
                fn, typ = self.dyn_expr(spec["home"], spec.pos_of("home"), scope, "home")
                if fn is not None and not isinstance(typ, T.ZoneT) and not T.is_any(typ):
                    self.report.error(spec.pos_of("home"), f"home must be a zone, not {T.describe(typ)}", E_TYPE)
                kind.home = fn
                kind.home_pos = spec.pos_of("home")
                kind.home_nslots = scope.nslots
            if "shape" in spec:                 # a piece's cells as drawn: as many as its parts
                scope = Scope([(a, t) for a, t in kind.attributes.items()])
                fn, typ = self.dyn_expr(spec["shape"], spec.pos_of("shape"), scope, "shape")
                if fn is not None and not T.is_listlike(typ) and not T.is_any(typ):
                    self.report.error(spec.pos_of("shape"), f"shape is the list of a piece's cells, not "
                                                            f"{T.describe(typ)}", E_TYPE)
                kind.shape = fn
                kind.shape_pos = spec.pos_of("shape")
                kind.shape_nslots = scope.nslots

    def compile_item(self, kind: KindDecl, item: LDict, pos: Pos, whole_spec: bool) -> ItemSpec:
        scope = Scope()
        for_each = []
        for var, domain in (item.get("for_each") or {}).items():
            dpos = item["for_each"].pos_of(var)
            fn, typ = self.static_expr(domain, dpos, scope, f"for_each {var}")
            elem = T.elem_of(typ)
            if fn is not None and not T.is_listlike(typ):
                self.report.error(dpos, f"for_each '{var}' must range over a list, not {T.describe(typ)}", E_TYPE)
            slot = scope.declare(var, elem)
            for_each.append(IndexSpec(var, fn or (lambda st, L: ()), elem, slot, dpos))
        count = self.compile_count(item.get("count", 1), item.pos_of("count") if "count" in item else pos, scope)
        attrs = {}
        skip = {"count", "for_each"} | ({"attributes", "label", "home", "shape", "description", "items"} if whole_spec
                                        else set())
        for aname, value in item.items():
            if aname in skip:
                continue
            apos = item.pos_of(aname)
            if aname not in kind.attributes:
                self.report.error(item.key_pos.get(aname, apos),
                                  f"'{aname}' is not an attribute of '{kind.name}'{suggest(aname, kind.attributes)}",
                                  E_NAME)
                continue
            fn, typ = self.static_expr(value, apos, scope, aname)
            if fn is not None and not T.compatible(typ, kind.attributes[aname]):
                self.report.error(apos, f"attribute '{aname}' is {T.describe(kind.attributes[aname])}, "
                                        f"not {T.describe(typ)}", E_TYPE)
            attrs[aname] = fn or (lambda st, L: None)
        for spec in for_each:  # a for_each name that is an attribute sets it
            if spec.name in kind.attributes and spec.name not in attrs:
                slot = spec.slot
                attrs[spec.name] = lambda st, L, slot=slot: L[slot]
                if not T.compatible(spec.type, kind.attributes[spec.name]):
                    self.report.error(spec.pos, f"attribute '{spec.name}' is {T.describe(kind.attributes[spec.name])}, "
                                                f"not {T.describe(spec.type)}", E_TYPE)
        return ItemSpec(count, for_each, attrs, scope.nslots, pos)

    def compile_count(self, value, pos: Pos, scope: Scope | None = None):
        if isinstance(value, bool):
            self.report.error(pos, "a count is a number", E_TYPE)
            return lambda st, L: 0
        if isinstance(value, int):
            return lambda st, L: value
        if isinstance(value, dict):
            table = {}
            for k, v in value.items():
                if not isinstance(k, int):
                    self.report.error(value.key_pos.get(k, pos), "a count by player count has numbers as keys",
                                      E_TYPE)
                    continue
                table[k] = v

            def by_players(st, L):
                n = st.lay.num_players
                if n not in table:
                    from dsl.diagnostics import RuleRuntimeError
                    raise RuleRuntimeError(f"no count given for {n} players", pos)
                return table[n]
            return by_players
        fn, typ = self.static_expr(value, pos, scope, "count")
        if fn is not None and not T.is_numeric(typ):
            self.report.error(pos, f"a count must be a number, not {T.describe(typ)}", E_TYPE)
        return fn or (lambda st, L: 0)

    # zones ------------------------------------------------------------------------
    def declare_zones(self, zones: LDict):
        g = self.game
        for name, spec in zones.items():
            if not isinstance(spec, dict):
                continue
            if name == "box":
                self.report.error(zones.key_pos[name], "'box' is the built-in zone of components out of the game",
                                  E_NAME)
                continue
            holds = spec.get("holds") or []
            if isinstance(holds, str):
                holds = [holds]
            for i, k in enumerate(holds):
                if k not in self.kind_names:
                    hpos = spec["holds"].pos_of(i) if isinstance(spec["holds"], LList) else spec.pos_of("holds")
                    self.report.error(hpos, f"unknown component kind '{k}'{suggest(k, self.kind_names)}", E_NAME)
            fam = ZoneFamily(name, len(g.zone_list), zones.key_pos[name], [], spec.get("type", "area"),
                             frozenset(str(k) for k in holds))
            g.zones[name] = fam
            g.zone_list.append(fam)
            scope = Scope()
            for var in (spec.get("index") or {}):
                scope.declare(var, T.ANY)  # types filled in compile_zones
            fam.nslots = scope.nslots

    def compile_zones(self, zones: LDict):
        g = self.game
        for name, spec in zones.items():
            if name not in g.zones:
                continue
            fam = g.zones[name]
            scope = Scope()
            for var, domain in (spec.get("index") or {}).items():
                dpos = spec["index"].pos_of(var)
                fn, typ = self.static_expr(domain, dpos, scope, f"index {var}")
                if fn is not None and not T.is_listlike(typ):
                    self.report.error(dpos, f"index '{var}' must range over a list, not {T.describe(typ)}", E_TYPE)
                elem = T.elem_of(typ)
                slot = scope.declare(var, elem)
                fam.index.append(IndexSpec(var, fn or (lambda st, L: ()), elem, slot, dpos))
            if "capacity" in spec:
                if isinstance(spec["capacity"], int) and not isinstance(spec["capacity"], bool):
                    fam.capacity_literal = spec["capacity"]
                elif isinstance(spec["capacity"], str) and spec["capacity"] in g.constants and \
                        isinstance(g.constants[spec["capacity"]].value, int):
                    fam.capacity_literal = g.constants[spec["capacity"]].value
                fn, typ = self.static_expr(spec["capacity"], spec.pos_of("capacity"), scope, "capacity")
                if fn is not None and not T.is_numeric(typ):
                    self.report.error(spec.pos_of("capacity"), f"capacity must be a number, not {T.describe(typ)}",
                                      E_TYPE)
                fam.capacity = fn
            if "owner" in spec:
                fn, typ = self.static_expr(spec["owner"], spec.pos_of("owner"), scope, "owner")
                if fn is not None and not T.compatible(typ, T.PLAYER):
                    self.report.error(spec.pos_of("owner"), f"owner must be a seat, not {T.describe(typ)}", E_TYPE)
                fam.owner = fn
            if "refill" in spec and isinstance(spec["refill"], dict):
                rpos = spec["refill"].pos_of("from")
                fn, typ = self.dyn_expr(spec["refill"].get("from"), rpos, scope, "refill")
                if fn is not None and not isinstance(typ, T.ZoneT) and not T.is_any(typ):
                    self.report.error(rpos, f"refill comes from a zone, not {T.describe(typ)}", E_TYPE)
                fam.refill = fn
            if "visible" in spec:
                self.compile_visible(fam, spec, scope)
            if "cells" in spec:
                self.compile_grid(fam, spec, scope)
            fam.nslots = scope.nslots

    def compile_grid(self, fam, spec: LDict, scope: Scope) -> None:
        """``cells:`` of a zone family: each zone is a grid of these cells, its components
        pieces that cover some of them (a `move` with `cells:`).  A grid is an area everyone
        sees (what covers each cell is shown per cell), so neither hidden nor a bag or deck."""
        cpos = spec.pos_of("cells")
        fn, typ = self.static_expr(spec["cells"], cpos, scope, "cells")
        if fn is not None and not T.is_listlike(typ):
            self.report.error(cpos, f"cells must be a list of cells, not {T.describe(typ)}", E_TYPE)
        if spec.get("visible", True) is not True or spec.get("type", "area") != "area":
            self.report.error(cpos, f"zone '{fam.name}' has cells: a grid is an area everyone sees "
                                    "(no 'visible:' other than true, no bag or deck)", "RW270")
        fam.cells = fn or (lambda st, L: ())
        fam.cells_pos = cpos
        self.game.grids = True

    def compile_visible(self, target, spec: LDict, scope: Scope) -> None:
        """``visible:`` of a zone family or a variable: a constant or a condition on ``viewer``."""
        vis = spec["visible"]
        if isinstance(vis, bool):
            target.visible_const = vis
            return
        target.viewer_slot = scope.declare("viewer", T.PLAYER)
        before = dict(self.game.uses)
        dynamic_before = self.game.dynamic_reads
        fn, _ = self.dyn_expr(vis, spec.pos_of("visible"), scope, "visible", cond=True)
        target.visible = fn
        target.visible_const = None
        # the same for every seat when it never names the viewer (what a replay remembers asks once)
        target.visible_by_viewer = not isinstance(vis, str) or re.search(r"\bviewer\b", vis) is not None
        # what the condition reads (tensors.py keeps its values per viewer while they stay the same)
        target.visible_reads = frozenset(n for n, c in self.game.uses.items() if c > before.get(n, 0))
        target.visible_reads_any = self.game.dynamic_reads > dynamic_before

    # variables --------------------------------------------------------------------
    def declare_variables(self, variables: LDict):
        g = self.game
        for name, spec in variables.items():
            pos = variables.key_pos[name]
            if name in RESERVED:
                self.report.error(pos, f"'{name}' is a reserved name", E_NAME)
                continue
            if isinstance(spec, dict):
                declared = self.type_name(spec["type"], spec.pos_of("type")) if "type" in spec else None
                index = spec.get("index") or {}
            else:
                declared, index = None, {}
            var = VarDecl(name, declared or T.ANY, pos, init=lambda st, L: None)
            var.index = [IndexSpec(k, None, T.ANY, i, pos) for i, k in enumerate(index)]
            var.shown = isinstance(spec, dict) and spec.get("shown") is True
            if not isinstance(spec, dict) or "type" not in spec:
                init = spec.get("init") if isinstance(spec, dict) else spec
                var.type = self._init_type(init)
            g.variables[name] = var
            if var.index:
                var.family_id = len(g.family_vars)
                g.family_vars.append(var)
            else:
                var.offset = len(g.scalar_vars)
                g.scalar_vars.append(var)

    def _init_type(self, init) -> T.Type:
        if isinstance(init, (bool, int)) or init is None or isinstance(init, (list, dict)):
            return self.literal(init, Pos("?"))[1] if init is not None else T.ANY
        if isinstance(init, str):
            node = self.parse(init, getattr(init, "pos", Pos("?")))
            if node is None:
                return T.ANY
            _, typ = compile_expr(node, Cx(self.game, Report(), Scope(), True, {}, None))
            return typ
        return T.ANY

    def compile_variables(self, variables: LDict):
        g = self.game
        # scalars first, then families: State.v is laid out in that order
        offset = 0
        for var in g.scalar_vars:
            var.offset = offset
            offset += 1
        for name, spec in variables.items():
            var = g.variables.get(name)
            if var is None:
                continue
            scope = Scope()
            if isinstance(spec, dict):
                for spec_i, (iname, domain) in enumerate((spec.get("index") or {}).items()):
                    dpos = spec["index"].pos_of(iname)
                    fn, typ = self.static_expr(domain, dpos, scope, f"index {iname}")
                    elem = T.elem_of(typ)
                    slot = scope.declare(iname, elem)
                    var.index[spec_i] = IndexSpec(iname, fn or (lambda st, L: ()), elem, slot, dpos)
                init = spec.get("init")
                ipos = spec.pos_of("init")
            else:
                init, ipos = spec, variables.pos_of(name)
            if isinstance(init, (list, dict)):
                value, typ = self.literal(init, ipos)
                var.init = lambda st, L, value=value: value
            elif init is None:
                var.init = lambda st, L: None
                typ = T.NONE
            else:
                fn, typ = self.static_expr(init, ipos, scope, f"init of {name}")
                var.init = fn or (lambda st, L: None)
            if not T.compatible(typ, var.type):
                self.report.error(ipos, f"variable '{name}' holds {T.describe(var.type)}, but its init is "
                                        f"{T.describe(typ)}", E_TYPE)
            if isinstance(spec, dict):
                for bound in ("min", "max"):
                    if bound in spec:
                        fn, bt = self.static_expr(spec[bound], spec.pos_of(bound), scope, bound)
                        if fn is not None and not T.is_numeric(bt):
                            self.report.error(spec.pos_of(bound), f"{bound} must be a number", E_TYPE)
                        setattr(var, bound, fn)
                if "visible" in spec:
                    self.compile_visible(var, spec, scope)
            var.nslots = scope.nslots

    # functions --------------------------------------------------------------------
    def declare_functions(self, funcs: LDict):
        g = self.game
        for name, spec in funcs.items():
            if not isinstance(spec, dict):
                continue
            pos = funcs.key_pos[name]
            # a name of the standard library is the rulebook's own from here on, in every
            # expression of the rulebook (docs/compatibility.md: the library may grow)
            params = []
            for pname, tname in (spec.get("params") or {}).items():
                params.append((pname, self.type_name(tname, spec["params"].pos_of(pname))))
            g.functions[name] = FuncDecl(name, params, spec.get("value"), pos, slot=len(g.functions))
            g.functions[name].value_pos = spec.pos_of("value")

    def compile_function(self, f: FuncDecl, pos: Pos, static: bool = False):
        if f.compiled is not None or f.compiling:
            return
        f.compiling = True
        scope = Scope(f.params)
        before = dict(self.game.uses)
        dynamic_before = self.game.dynamic_reads
        node = f.tree = self.parse(f.body, f.value_pos)
        if node is None:
            f.compiled, f.type = (lambda st, *args: None), T.ANY
        else:
            errors = len(self.report.errors)
            fn, typ = compile_function(node, Cx(self.game, self.report, scope, False, {}, self), f.slot,
                                       len(f.params))
            f.compiled, f.type = fn, typ
            if len(self.report.errors) == errors and inlinable(node, self.game.functions):
                f.inline_body = node
        f.reads = {n for n, c in self.game.uses.items() if c > before.get(n, 0)}
        f.reads_dynamic = self.game.dynamic_reads > dynamic_before
        f.reads_any = f.reads_dynamic or any(T.may_hold_zone(t) for _, t in f.params)
        f.nslots = max(scope.nslots, 1)
        f.compiling = False

    # names ---------------------------------------------------------------------------
    def check_name_clashes(self):
        g = self.game
        seen = {}
        groups = [("enum", g.enums), ("symbol", g.symbol_enum), ("constant", g.constants), ("table", g.tables),
                  ("component kind", g.kinds), ("zone", g.zones), ("variable", g.variables),
                  ("function", g.functions)]
        for what, table in groups:
            for name in table:
                if name in RESERVED and what != "symbol":
                    self.report.error(self._pos_of(what, name), f"'{name}' is a reserved name", E_NAME)
                if name in seen and not (what == "symbol" and seen[name] == "enum"):
                    self.report.error(self._pos_of(what, name), f"'{name}' is both a {seen[name]} and a {what}",
                                      "RW121")
                seen.setdefault(name, what)

    def _pos_of(self, what, name) -> Pos:
        g = self.game
        obj = {"enum": g.enums, "constant": g.constants, "table": g.tables, "component kind": g.kinds,
               "zone": g.zones, "variable": g.variables, "function": g.functions}.get(what, {}).get(name)
        if obj is not None:
            return obj.pos
        if what == "symbol":
            return g.enums[g.symbol_enum[name]].pos
        return Pos(self.first_file)

    # procedures, actions, triggers ----------------------------------------------------
    def declare_procedures(self, procs: LDict):
        for name, spec in procs.items():
            pos = procs.key_pos[name]
            proc = Procedure(f"proc:{name}", pos, kind="procedure")
            scope = Scope([("player", T.PLAYER)])
            if isinstance(spec, dict):
                for pname, tname in (spec.get("params") or {}).items():
                    ptype = self.type_name(tname, spec["params"].pos_of(pname))
                    proc.params.append((pname, scope.declare(pname, ptype), ptype))
            proc._scope = scope
            self.procedures[name] = proc

    def compile_procedures(self, procs: LDict):
        for name, spec in procs.items():
            proc = self.procedures[name]
            body = spec.get("do") if isinstance(spec, dict) else spec
            bpos = spec.pos_of("do") if isinstance(spec, dict) else procs.pos_of(name)
            sc = StepCompiler(self, proc, proc._scope)
            sc.steps(body, bpos)
            proc.nslots = proc._scope.nslots
            proc.slot_names = list(proc._scope.names)

    def declare_actions(self, actions: LDict):
        g = self.game
        for name, spec in actions.items():
            if not isinstance(spec, dict):
                continue
            proc = Procedure(f"action:{name}", actions.key_pos[name], kind="action")
            g.actions[name] = ActionDecl(name, actions.key_pos[name], [], None, proc)
            g.action_by_proc[proc.name] = g.actions[name]

    def compile_actions(self, actions: LDict):
        for name, spec in actions.items():
            if name in self.game.actions:
                self._compile_action(self.game.actions[name], spec, Scope([("player", T.PLAYER)]))

    def compile_inline_action(self, spec: LDict, pos: Pos, parent: Procedure, parent_scope: Scope) -> ActionDecl:
        name = spec["name"]
        proc = Procedure(f"action:{name}@{pos.line}:{pos.col}", pos, kind="action")
        action = ActionDecl(name, pos, [], None, proc)
        # the inline action sees the enclosing locals: same slots, copied in
        scope = Scope()
        scope.names = list(parent_scope.names)
        scope.blocks = [dict((k, list(v)) for b in parent_scope.blocks for k, v in b.items())]
        action.inherit = len(parent_scope.names)
        self.game.inline_actions[proc.name] = action
        self.game.action_by_proc[proc.name] = action
        self._compile_action(action, spec, scope)
        return action

    def hoist_domain(self, tree, params: list, scope: Scope, gen: Gen, pos: Pos, pname: str, whole: tuple):
        """A parameter's domain (``whole``: its text, type and statements) that does not read
        the parameter just before it: made once per value of the parameters it reads.  Or a
        domain ``[e for v in L if c1 and c2 and ...]`` whose list ``L`` and
        first conditions ``c1 ...`` do not read the parameter just before it: those parts
        written once per value of the parameters they do read (``ParamSpec.hoist``), the
        rest — ``[e for v in H if ...]`` over that list ``H`` — per combination
        (``ParamSpec.rest``).  Speed only: the values and their order are the same, each part
        is computed where it was first needed (laziness keeps a failure where it was), and
        the compile leaves no trace in the checks' records (uses, table lookups, the report).
        None when the domain is not of that form or nothing can be moved."""
        if self.game.coverage is not None:
            return None
        names = [p.name for p in params]
        last = len(names)

        def level(node) -> int:
            """1 + the position of the last parameter ``node`` reads (0: none)."""
            read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            return max((i + 1 for i, name in enumerate(names) if name in read), default=0)

        whole_at = level(tree)
        if whole_at < last:
            text, typ, pre = whole
            hslot = scope.declare(f"{pname} domain", typ)     # a name no rulebook can write (a space)
            return (whole_at, hslot, text, pre), (local(hslot), [])
        if (not isinstance(tree, ast.ListComp) or len(tree.fors) != 1
                or len(tree.fors[0].names) != 1 or tree.cond is None):
            return None
        var = tree.fors[0].names[0]
        if var in names:
            return None
        conds = tree.cond.values if isinstance(tree.cond, ast.BoolOp) and tree.cond.op == "and" else [tree.cond]
        at = level(tree.fors[0].iter)
        if at >= last:
            return None
        k = 0
        while k < len(conds) and level(conds[k]) < last:
            at = max(at, level(conds[k]))
            k += 1
        if k == 0:
            return None
        g = self.game
        before = (dict(g.uses), len(g.table_lookups), g.dynamic_reads, len(self.report.items))
        try:
            hidden = f"{pname} domain"           # a name no rulebook can write (a space)
            first = ast.ListComp(ast.Name(var, pos=tree.pos), [ast.CompFor([var], tree.fors[0].iter, pos=tree.pos)],
                                 conds[0] if k == 1 else ast.BoolOp("and", conds[:k], pos=tree.cond.pos),
                                 pos=tree.pos)
            htext, htype, hpre = self.text_expr(first, pos, scope, gen, f"parameter {pname}")
            if htext is None or len(self.report.items) != before[3]:
                return None
            hslot = scope.declare(hidden, htype)
            rest = conds[k:]
            second = ast.ListComp(tree.elt, [ast.CompFor([var], ast.Name(hidden, pos=tree.pos), pos=tree.pos)],
                                  None if not rest else rest[0] if len(rest) == 1
                                  else ast.BoolOp("and", rest, pos=rest[0].pos), pos=tree.pos)
            rtext, _, rpre = self.text_expr(second, pos, scope, gen, f"parameter {pname}")
            if rtext is None or len(self.report.items) != before[3]:
                return None
            return (at, hslot, htext, hpre), (rtext, rpre)
        finally:
            uses, lookups, dynamic, items = before
            g.uses.clear()
            g.uses.update(uses)
            del g.table_lookups[lookups:]
            g.dynamic_reads = dynamic
            del self.report.items[items:]

    def _compile_action(self, action: ActionDecl, spec: LDict, scope: Scope):
        proc = action.proc
        gen = proc.gen = Gen()      # the action's generated code: options and steps
        action.player_slot = 0
        for pname, domain in (spec.get("params") or {}).items():
            dpos = spec["params"].pos_of(pname)
            if pname == "player":
                self.report.error(spec["params"].key_pos.get(pname, dpos), "'player' is the seat that decides; "
                                                                           "name the parameter differently", E_NAME)
                continue
            choose = None
            sizes = None                            # the size's bounds as Python text, their statements
            if isinstance(domain, dict):            # {set: LIST, size: K}: a set-valued choice
                spos = domain.pos_of("size") if "size" in domain else dpos
                choose = parse_size(domain.get("size"))
                if choose is None:
                    sizes = self._set_size(pname, domain.get("size"), spos, scope, gen)
                    choose = (0, None) if sizes is not None else (0, 0)
                dpos = domain.pos_of("set") if "set" in domain else dpos
                domain = domain.get("set", [])
            tree = None if isinstance(domain, list) else self.parse(domain, dpos)
            if tree is None and not isinstance(domain, list):
                text, typ, pre = None, T.ANY, []     # a syntax error, reported
            else:
                text, typ, pre = self.text_expr(domain if tree is None else tree, dpos, scope, gen,
                                                f"parameter {pname}")
            if text is not None and not T.is_listlike(typ):
                self.report.error(dpos, f"parameter '{pname}' must range over a list (its choices), "
                                        f"not {T.describe(typ)}", E_TYPE)
            elem = T.elem_of(typ)
            if isinstance(typ, T.ZoneT):
                text = f"st.z[{text}.id]"
            text = text or "()"
            if choose is not None:                  # its values: the sets, each a list in the set order
                lo, hi = (str(int(choose[0])), str(int(choose[1]))) if sizes is None else sizes[:2]
                if sizes is not None:
                    pre = [*pre, *sizes[2]]
                text = gen.guard(f"{gen.bind(choose_sets, 'f')}({text}, {lo}, {hi})", dpos,
                                 f"set parameter '{pname}'")
                elem = T.ListT(elem)
                action.has_sets = True
            split = None
            if choose is None and tree is not None and action.params and text != "()":
                split = self.hoist_domain(tree, action.params, scope, gen, dpos, pname, (text, typ, pre))
            slot = scope.declare(pname, elem)
            action.params.append(ParamSpec(pname, LazyExpr(gen, text, dpos, pre), elem, slot, dpos, domain, tree,
                                           text, pre, choose, *(split or (None, None))))
        if "where" in spec:
            wpos = spec.pos_of("where")
            text, _, pre = self.text_expr(spec["where"], wpos, scope, gen, "where", cond=True)
            if text is not None:
                action.where = LazyExpr(gen, text, wpos, pre)
                action.where_text = text
            action.where_pos = wpos
        self._compile_bounds(action, spec, scope)
        self._compile_secret(action, spec)
        sc = StepCompiler(self, proc, scope)
        sc.action_name = action.name        # what its steps keep of its parameters (GameDef.secret_kept)
        sc.params = {p.slot: p.name for p in action.params}
        sc.emit(flowcode.STMT, [sc.scope_start("action", action.name)], proc.pos, ("action_start",))
        sc.steps(spec.get("do"), spec.pos_of("do"))
        sc.emit(flowcode.STMT, [sc.scope_end("action", action.name)], proc.pos, ("action_end", flowcode.DEFERRED))
        proc.nslots = scope.nslots
        proc.slot_names = list(scope.names)

    def _set_size(self, pname: str, size, pos: Pos, scope: Scope, gen: Gen):
        """The ``size:`` of a set parameter that is not a literal number or "lo..hi": an
        expression of the state (``count(hand[player]) - 3``) or a range of two
        (``"0..count(hand[player])"``), as ``(lo_text, hi_text, pre)``; None when it is
        neither (reported)."""
        literal = isinstance(size, str) and re.fullmatch(r"\s*-?\d+\s*(\.\.\s*-?\d+\s*)?", size)
        tree = self.parse(size, pos) if isinstance(size, str) and not literal else None
        if tree is None:
            if not isinstance(size, str) or literal:
                self.report.error(pos, f"the size of set parameter '{pname}' must be a number, \"lo..hi\" or an "
                                       f"expression giving a number, not {size!r}", E_TYPE)
            return None
        ends = (tree.lo, tree.hi) if isinstance(tree, ast.Range) else (tree, tree)
        texts, pre = [], []
        for end in ends:
            text, typ, more = self.text_expr(end, pos, scope, gen, f"the size of set parameter '{pname}'")
            if text is None:
                return None
            if not T.is_numeric(typ):
                self.report.error(pos, f"the size of set parameter '{pname}' must be a number, not "
                                       f"{T.describe(typ)}", E_TYPE)
                return None
            texts.append(text)
            pre.extend(more)
        return texts[0], texts[1], pre

    def _compile_secret(self, action: ActionDecl, spec: LDict):
        """`secret: true` (every parameter), `secret: false` (none), `secret: [names]`, or by
        default: a component parameter the action moves (`move: NAME`) into a zone not everyone
        may see, unless its choices are a zone everyone sees (others saw it leave)."""
        names = [p.name for p in action.params]
        secret = spec.get("secret")
        if secret is True:
            action.secret = True
            action.secret_params = frozenset(names)
            return
        if secret is False:
            return
        if isinstance(secret, list):
            chosen = set()
            for i, name in enumerate(secret):
                if name not in names:
                    where = secret.pos_of(i) if hasattr(secret, "pos_of") else spec.pos_of("secret")
                    self.report.error(where, f"action '{action.name}' has no parameter '{name}'"
                                             f"{suggest(str(name), names)}", E_NAME)
                else:
                    chosen.add(name)
            action.secret_params = frozenset(chosen)
            return
        comps = {p.name for p in action.params
                 if isinstance(p.type, T.Comp) or (T.is_listlike(p.type) and isinstance(T.elem_of(p.type), T.Comp))}
        if not comps:
            return
        zones = self.game.zones

        def family(text):
            m = re.match(r"\s*([A-Za-z_]\w*)\s*(\[|$)", text) if isinstance(text, str) else None
            return zones.get(m.group(1)) if m and m.group(1) not in names else None
        hidden = set()

        def walk(steps):
            for step in steps if isinstance(steps, list) else ():
                if not isinstance(step, dict):
                    continue
                moved = step.get("move")
                if isinstance(moved, str) and moved.strip() in comps:
                    fam = family(step.get("to"))
                    if fam is not None and fam.visible_const is not True:
                        hidden.add(moved.strip())
                for key in ("then", "else", "do", "otherwise"):
                    walk(step.get(key))
        walk(spec.get("do"))
        for p in action.params:
            src = family(p.source) if p.name in hidden else None
            if src is not None and src.visible_const is True:
                hidden.discard(p.name)            # chosen from an open zone: everyone saw it go
        action.secret_params = frozenset(hidden)

    def compile_redaction(self):
        """GameDef.redact: per action name, what another seat is not told of the decision."""
        g = self.game
        display_secret = g.display.get("secret") if isinstance(g.display, dict) else None
        display_secret = {str(n) for n in display_secret} if isinstance(display_secret, list) else set()
        for action in list(g.actions.values()) + list(g.inline_actions.values()):
            names = tuple(p.name for p in action.params)
            hidden = frozenset(names) if action.name in display_secret else action.secret_params
            if hidden and action.name not in g.redact:
                g.redact[action.name] = (names, hidden)

    def mark_distinct_options(self):
        """ActionDecl.distinct_options: which actions' options cannot repeat an id
        (exprs.yields_distinct for every domain, values that are their own id part)."""
        g = self.game
        actions = list(g.actions.values()) + list(g.inline_actions.values())
        names = Counter(a.name for a in actions)
        trees = {name: f.tree for name, f in g.functions.items() if f.tree is not None}
        for action in actions:
            if names[action.name] > 1 or not action.params:
                continue
            ok = True
            for spec in action.params:
                local = frozenset(action.proc.slot_names[:spec.slot])   # what the domain sees: not itself
                if not id_is_value(spec.type):
                    ok = False
                elif isinstance(spec.source, list):
                    try:
                        ok = len(set(spec.source)) == len(spec.source)
                    except TypeError:       # a list of records
                        ok = False
                else:
                    ok = spec.tree is not None and yields_distinct(spec.tree, g, local, trees)
                if not ok:
                    break
            action.distinct_options = ok

    def _compile_bounds(self, action: ActionDecl, spec: LDict, scope: Scope):
        """`bounds: {param: "lo..hi"}`: every value a parameter can ever take (for the action space)."""
        bounds = spec.get("bounds") or {}
        names = {p.name for p in action.params}
        for pname, text in bounds.items():
            bpos = bounds.pos_of(pname)
            if pname not in names:
                self.report.error(bounds.key_pos.get(pname, bpos), f"bounds: action '{action.name}' has no "
                                  f"parameter '{pname}'{suggest(pname, names)}", E_NAME)
                continue
            fn, typ = self.dyn_expr(text, bpos, scope, f"bounds of {pname}")
            if fn is not None and not T.is_listlike(typ):
                self.report.error(bpos, f"the bounds of '{pname}' must be a list of values, "
                                        f"not {T.describe(typ)}", E_TYPE)
            action.bounds[pname] = (text, bpos)

    def declare_triggers(self, triggers: LDict):
        g = self.game
        g.live = self.live_events(triggers)
        for name, spec in triggers.items():
            if not isinstance(spec, dict):
                continue
            proc = Procedure(f"trigger:{name}", triggers.key_pos[name], kind="trigger")
            event = spec.get("on")
            trig = TriggerDecl(name, triggers.key_pos[name], str(event) if event else None, None,
                               str(spec["at"]) if spec.get("at") else None, proc, 1)
            g.triggers.append(trig)

    def live_events(self, triggers: LDict) -> frozenset:
        """GameDef.live, before any step is compiled: the events the triggers listen for,
        CHANGED when one is a condition trigger, DEFERRED when a trigger waits for a scope's
        end (`at:`) or any step is a `defer`."""
        live = set()
        for spec in triggers.values():
            if not isinstance(spec, dict):
                continue
            if spec.get("on"):
                live.add(str(spec["on"]))
            else:
                live.add(flowcode.CHANGED)
            if spec.get("at"):
                live.add(flowcode.DEFERRED)
        s = self.src
        invs = s.sections.get("invariants")
        for spec in (invs.values() if isinstance(invs, dict) else ()):
            if isinstance(spec, dict) and spec.get("when") in INVARIANT_SCOPES:
                live.add(str(spec["when"]))           # that scope's end calls State.scope_end
        stack = [s.sections.get(k) for k in ("setup", "flow", "procedures", "actions", "triggers", "end")]
        while stack and flowcode.DEFERRED not in live:
            item = stack.pop()
            if isinstance(item, dict):
                if "defer" in item:
                    live.add(flowcode.DEFERRED)
                stack.extend(v for v in item.values() if isinstance(v, (dict, list)))
            elif isinstance(item, list):
                stack.extend(v for v in item if isinstance(v, (dict, list)))
        return frozenset(live)

    def compile_triggers(self, triggers: LDict):
        g = self.game
        for trig in g.triggers:
            spec = triggers[trig.name]
            etype = T.ANY
            if trig.event in EVENT_TYPES:
                etype = EVENT_TYPES[trig.event]
            elif trig.event and (trig.event.endswith("_start") or trig.event.endswith("_end")):
                etype = SCOPE_EVENT
            scope = Scope([("player", T.PLAYER), ("event", etype)])
            if "when" in spec:
                before = dict(g.uses)
                fn, _ = self.dyn_expr(spec["when"], spec.pos_of("when"), scope, "when", cond=True)
                trig.when = fn or (lambda st, L: False)
                trig.reads = {n for n, c in g.uses.items() if c > before.get(n, 0)}
            if trig.at:
                self.deferrals.append((trig.at, spec.pos_of("at")))
            sc = StepCompiler(self, trig.proc, scope)
            sc.steps(spec.get("do"), spec.pos_of("do"))
            trig.proc.nslots = scope.nslots
            trig.proc.slot_names = list(scope.names)
            if trig.event:
                g.event_triggers.setdefault(trig.event, []).append(trig)
                g.on_moved = g.on_moved or trig.event == "moved"
            else:
                g.condition_triggers.append(trig)

    def compile_body(self, name, kind, steps, pos) -> Procedure | None:
        if pos is None and not steps:
            return None
        proc = Procedure(name, pos or Pos(self.first_file), kind=kind)
        scope = Scope([("player", T.PLAYER)])
        StepCompiler(self, proc, scope).steps(steps, pos or Pos(self.first_file))
        proc.nslots = scope.nslots
        proc.slot_names = list(scope.names)
        return proc

    def compile_max_decisions(self, game):
        if not isinstance(game, dict) or game.get("max_decisions") is None:
            return
        pos = game.pos_of("max_decisions")
        fn, typ = self.static_expr(game["max_decisions"], pos, Scope(), what="max_decisions")
        if fn is not None and not T.is_numeric(typ):
            self.report.error(pos, f"max_decisions must be a number, not {T.describe(typ)}", E_TYPE)
            return
        self.game.max_decisions = sized(fn, Scope()) if fn is not None else None
        self.game.max_decisions_pos = pos

    def compile_seats(self, seats):
        if not isinstance(seats, dict):
            return
        if "automata" in seats:
            scope = Scope()
            fn, typ = self.static_expr(seats["automata"], seats.pos_of("automata"), scope, what="automata")
            fn = sized(fn, scope) if fn is not None else None
            if fn is not None and not T.is_numeric(typ):
                self.report.error(seats.pos_of("automata"), f"automata must be a number, not {T.describe(typ)}",
                                  E_TYPE)
            self.game.automata = fn
        self.game.automaton_names = [str(n) for n in (seats.get("automaton_names") or [])]

    def compile_end(self, end, pos):
        g = self.game
        if not isinstance(end, dict):
            if not self.unreadable:
                self.report.error(Pos(self.first_file), "the rulebook has no 'end' section (how is a game scored?)",
                                  "RW011")
            g.score = lambda st, L: 0
            return
        g.scoring = self.compile_body("scoring", "scoring", end.get("scoring") or [], end.pos_of("scoring"))
        scope = Scope([("p", T.PLAYER)])
        fn, typ = self.dyn_expr(end.get("score"), end.pos_of("score"), scope, "score")
        if fn is not None and not T.is_numeric(typ):
            self.report.error(end.pos_of("score"), f"a score must be a number, not {T.describe(typ)}", E_TYPE)
        g.score = sized(fn, scope) if fn is not None else (lambda st, L: 0)
        g.rank_by = []
        for i, key in enumerate(end.get("rank_by") or []):
            kpos = end["rank_by"].pos_of(i)
            kscope = Scope([("p", T.PLAYER)])
            fn, typ = self.dyn_expr(key, kpos, kscope, "rank_by")
            if fn is not None and not (T.is_numeric(typ) or isinstance(typ, T.TupleT)):
                self.report.error(kpos, f"a ranking key must be a number, not {T.describe(typ)}", E_TYPE)
            if fn is not None:
                g.rank_by.append(sized(fn, kscope))
        if not g.rank_by:
            g.rank_by = [g.score]
        g.score_direction = str(end.get("better") or "higher")
        g.score_parts = []
        parts = end.get("parts") or {}
        for name, expr in parts.items():
            ppos = parts.pos_of(name)
            pscope = Scope([("p", T.PLAYER)])
            fn, typ = self.dyn_expr(expr, ppos, pscope, f"score part '{name}'")
            if fn is not None and not T.is_numeric(typ):
                self.report.error(ppos, f"a score part must be a number, not {T.describe(typ)}", E_TYPE)
            elif fn is not None:
                g.score_parts.append((str(name), sized(fn, pscope)))
        rest = end.get("rest")
        g.score_rest = str(rest) if rest is not None else None
        self.compile_together(end)

    def compile_together(self, end):
        """``end: together: {win: COND}`` or ``{target: N}``: a cooperative game (GameDef.together)."""
        g = self.game
        together = end.get("together")
        if not isinstance(together, dict):
            return
        if "win" in together:
            scope = Scope()
            fn, _ = self.dyn_expr(together["win"], together.pos_of("win"), scope, "win", cond=True)
            if fn is not None:
                g.together = sized(fn, scope)
        elif "target" in together:
            scope = Scope()
            fn, typ = self.dyn_expr(together["target"], together.pos_of("target"), scope, "target")
            if fn is not None and not T.is_numeric(typ):
                self.report.error(together.pos_of("target"), f"a target must be a number, not {T.describe(typ)}",
                                  E_TYPE)
            elif fn is not None:
                target, score = sized(fn, scope), g.score
                g.together = lambda st, L: score(st, [0]) >= target(st, L)

    def compile_invariants(self, invs: LDict):
        """`invariants:` name -> condition, or {expr: condition, when: always | turn_end |
        round_end | phase_end}: after every decision (GameDef.invariants) or as every such
        scope ends (GameDef.scope_invariants; live_events makes those scopes call State.scope_end)."""
        for name, expr in invs.items():
            scope = Scope([("player", T.PLAYER)])
            pos = invs.pos_of(name)
            when = "always"
            if isinstance(expr, dict):
                when = str(expr.get("when", "always"))
                pos = expr.pos_of("expr") if "expr" in expr else pos
                expr = expr.get("expr", "true")
            node = expr if isinstance(expr, ast.Node) else self.parse(expr, pos)
            if node is None:
                continue
            fn, _ = self.dyn_expr(node, pos, scope, f"invariant {name}", cond=True)
            if fn is None:
                continue
            if when == "always":
                self.game.invariants.append((name, sized(fn, scope), pos))
                # what it keeps number variables within bounds the observations (engine/compile/bounds.py)
                from .bounds import invariant_bounds, merge
                merge(self.game.invariant_bounds, invariant_bounds(self.game, node))
            else:
                kind = when[:-len("_end")]
                self.game.scope_invariants.setdefault(kind, []).append((name, sized(fn, scope), pos))

    def check_deferrals(self):
        """RW206: ``defer: ... until:`` and a trigger's ``at:`` must name a scope that exists."""
        scope_kinds = set(self.scope_names)
        for _, proc in self.all_procs():
            scope_kinds.update(label.name for label in proc.labels.values())
        for until, upos in self.deferrals:
            if until not in scope_kinds:
                self.report.error(upos, f"nothing named '{until}' ever ends: defer to action, turn, phase, round "
                                        f"or a named scope{suggest(str(until), scope_kinds)}", "RW206")


def _key_text(r) -> str:
    lo, hi = r[0], r[1]
    if hi is None:
        return f"'{lo}+'"
    return f"'{lo}'" if lo == hi else f"'{lo}-{hi}'"


def sized(fn, scope: Scope):
    """Give ``fn`` a frame as large as its scope needs; callers pass ``[first]``."""
    n = max(scope.nslots, 1)
    if n == 1:
        return fn

    def call(st, L):
        frame = [None] * n
        frame[0] = L[0]
        return fn(st, frame)
    return call


def compile_source(source: RulebookSource, report: Report, coverage=None) -> GameDef:
    """Compile ``source``; ``coverage`` (an interpreter.coverage recorder) instruments the result."""
    return Compiler(source, report, coverage).run()


__all__ = ["compile_source", "Compiler", "ast", "E_STATIC"]

