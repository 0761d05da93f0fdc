"""Compile a loaded rulebook into a :class:`model.GameDef`.

Declarations are collected first (enums, kinds, zones, variables, actions,
procedures, triggers), so that every name is known before any expression is
compiled; then every expression and step list is compiled into closures.
All problems are reported; a rulebook with errors gives no GameDef.

:class:`Compiler` runs the passes and holds what they share; the passes are in its
parts: declarations.py (enums, options, constants, tables, kinds, zones, variables,
functions), actions.py (actions, their parameters and options), procedures.py
(procedures, triggers, the end and scoring, invariants).
"""
from __future__ import annotations

import re
import sys

from dsl import ast
from dsl.diagnostics import Pos, Report
from dsl.loader import RulebookSource
from dsl.parser import ParseError, parse_expression
from dsl.yamlload import LDict, LList

from . import dependencies
from . import types as T
from .context import E_NAME, E_STATIC, E_TYPE, Cx, Scope, gen_cond, guard, suggest
from .exprs import compile_cond, compile_expr, gen_text
from .calls import leave_unremembered
from .codegen import Gen
from ..display.display import check_images
from .model import GameDef, Procedure
from .flowcode import lazy_entries, lazy_instructions
from ..run.limits import LIMITS
from .declarations import Declarations
from .actions import Actions
from .procedures import Procedures


BUILTIN_SCOPES = ("action", "turn", "phase", "round")


class Compiler(Declarations, Actions, Procedures):
    """Compiles one rulebook: the passes in order (``run``) and the helpers they share, here;
    the passes themselves in its parts (declarations.py, actions.py, procedures.py)."""

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
        #: compiling the domains and ``where`` of an action's parameters, not a function's body
        #: (FuncDecl.called_outside_options)
        self.in_option_domains = False
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
        if g.memo_drop is not None and not self.report.has_errors:
            dependencies.plan_conditions(g)     # which changes look at the condition triggers
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
            self.plan_option_ids()
        if g.memo_drop is not None and not self.report.has_errors:
            for f in dependencies.not_remembered(g):    # nobody would ask for its results again
                leave_unremembered(f)
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


def compile_source(source: RulebookSource, report: Report, coverage=None) -> GameDef:
    """Compile ``source``; ``coverage`` (an interpreter.coverage recorder) instruments the result."""
    return Compiler(source, report, coverage).run()


__all__ = ["compile_source", "Compiler", "ast", "E_STATIC"]
