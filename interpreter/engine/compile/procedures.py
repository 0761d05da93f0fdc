"""The rulebook's procedures, triggers and the end compiled: procedure and trigger bodies
(the events some trigger listens for: ``live_events``), the decision bound, the seats, the
end and its scoring (``compile_end``: score, named parts, tie-breaks; decisions taken
together), invariants, and deferred effects.  A part of
:class:`~interpreter.engine.compile.compiler.Compiler` (compiler.py composes it).
"""
from __future__ import annotations

from dsl import ast
from dsl.diagnostics import Pos
from dsl.yamlload import LDict

from . import types as T
from .context import E_TYPE, Scope, suggest
from .model import Procedure, TriggerDecl
from . import flowcode
from .steps import StepCompiler
from .declarations import sized


#: the ends of scopes an invariant may be checked at (`when:`)
INVARIANT_SCOPES = ("turn_end", "round_end", "phase_end")

EVENT_TYPES = {
    "drawn": T.RecordT((("components", T.ListT(T.Comp())), ("from", T.ZoneT()), ("to", T.ZoneT()),
                        ("count", T.INT), ("short", T.BOOL))),
    "moved": T.RecordT((("components", T.ListT(T.Comp())), ("from", T.ZoneT()), ("to", T.ZoneT()))),
}
SCOPE_EVENT = T.RecordT((("name", T.STR),))


class Procedures:
    """The procedure, trigger and end passes of :class:`Compiler`."""

    __slots__ = ()

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
        targets = []                # what is deferred to (GameDef.defer_targets)
        for spec in triggers.values():
            if not isinstance(spec, dict):
                continue
            if spec.get("on"):
                live.add(str(spec["on"]))
            else:
                live.add(flowcode.CHANGED)
            if spec.get("at"):
                live.add(flowcode.DEFERRED)
                targets.append(spec["at"])
        s = self.src
        invs = s.sections.get("invariants")
        for spec in (invs.values() if isinstance(invs, dict) else ()):
            if isinstance(spec, dict) and spec.get("when") in INVARIANT_SCOPES:
                live.add(str(spec["when"]))           # that scope's end calls State.scope_end
        stack = [s.sections.get(k) for k in ("setup", "flow", "procedures", "actions", "triggers", "end")]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                if "defer" in item:
                    live.add(flowcode.DEFERRED)
                    targets.append(item.get("until"))
                stack.extend(v for v in item.values() if isinstance(v, (dict, list)))
            elif isinstance(item, list):
                stack.extend(v for v in item if isinstance(v, (dict, list)))
        self.game.defer_targets = frozenset(targets) if all(isinstance(t, str) for t in targets) else None
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
                dynamic_before = g.dynamic_reads
                node = self.parse(spec["when"], spec.pos_of("when"))
                fn, _ = (self.dyn_expr(node, spec.pos_of("when"), scope, "when", cond=True) if node is not None
                         else (None, T.ANY))
                trig.when = fn or (lambda st, L: False)
                trig.reads = {n for n, c in g.uses.items() if c > before.get(n, 0)}
                # the frame's seat (or an event) is no part of the state a change reports
                trig.reads_more = (node is None or g.dynamic_reads > dynamic_before
                                   or any(isinstance(n, ast.Name) and n.id in ("player", "event")
                                          for n in ast.walk(node)))
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
