"""Compile step lists (effects, flow) into instructions written as Python text.

Each step of the YAML becomes one or more instructions (:class:`flowcode.Ins`)
of a :class:`model.Procedure`: the Python statements of what the step does,
with the rulebook's expressions written in (``interpreter/exprs.py``, one
:class:`codegen.Gen` per procedure holding the names they refer to), and
what the instruction is to the flow (a branch, a loop's head, a call, a
decision…).  Loops and branches become jumps between program counters, and
the steps' structure is recorded beside them (``Procedure.tree``);
``interpreter/flowcode.py`` writes the statements out as the functions the
run loop calls.  Where a rule's step *means* something — what a ``turns``
loop does, when a deferred effect runs — is decided here (the compile side)
and in :mod:`interpreter.runtime` (the run side: ``State.move``,
``State.draw``, ``State.scope_end``, …, which the statements call).
"""
from __future__ import annotations

import re
from functools import partial

from dsl import ast
from dsl.diagnostics import Pos, RuleRuntimeError
from dsl.parser import ParseError, parse_assignment, parse_for_head
from dsl.yamlload import LDict, LList

from . import types as T
from .codegen import Gen, LazyExpr, local as _l
from .context import Cx, Scope, contents_of, gen_as_list, gen_cond, guard, suggest, E_NAME, E_TYPE
from .comprehensions import _declare_targets, note_range
from .names import _family_key
from .exprs import compile_expr, gen_text
from . import flowcode as F
from ..run.limits import LIMITS, kept
from .model import Label, LoopInfo, Procedure, ScopeInfo
from ..run.frames import ScopeRec
from ..run.values import Record, Zone, bounded, format_value

SCOPE_KINDS = ("phase", "round", "scope")


class StepCompiler:
    """Compiles the steps of one procedure."""

    def __init__(self, compiler, proc: Procedure, scope: Scope):
        self.c = compiler
        self.g = compiler.game
        self.report = compiler.report
        self.proc = proc
        self.scope = scope
        if proc.gen is None:
            proc.gen = Gen()
        self.gen: Gen = proc.gen
        self.loops: list = []  # LoopInfo / ScopeInfo stack for labels
        self.cur: list = proc.tree  # the structure of the steps being compiled (interpreter/flowcode.py)
        #: statements that compute parts of the expressions written so far for the next instruction
        self.pre: list = []
        #: local slot bound by a `random` step -> the slot of the generator's state before the draw
        self.chance_locals: dict = {}
        #: local slots computed from a drawn value (their copies into hidden variables are RW260)
        self.tainted: set = set()
        #: the drawn locals that the conditions (if, while, for, repeat) around the steps being
        #: compiled depend on: what is set there depends on chance through control flow (RW260)
        self.chance_conds: list = []
        #: in an action's steps: its parameters' local slots -> names (set by the compiler), the
        #: locals computed from them -> the parameter names, and the parameter names the
        #: conditions around depend on (a hidden variable set from a secret one: GameDef.secret_kept)
        self.action_name = None
        self.params: dict = {}
        self.param_locals: dict = {}
        self.param_conds: list = []

    # --- helpers ---------------------------------------------------------------
    def emit(self, kind: str, lines, pos: Pos, pushes=(), call=None, leaf: bool = True) -> F.Ins:
        """Append an instruction (the statements its expressions need first, ``self.pre``,
        run before it); ``leaf``: a node of its own in the steps' structure (else a part of a
        branch, loop or scope, whose node records it)."""
        pc = len(self.proc.ops)
        ins = F.Ins(pc, kind, lines, pushes, call, self.take_pre())
        self.proc.ops.append(ins)
        self.proc.positions.append(pos)
        if leaf:
            self.cur.append(F.Leaf(pc))
        return ins

    def block(self, steps, pos: Pos) -> list:
        """Compile ``steps`` as a block of their own; return the block's structure."""
        saved = self.cur
        self.cur = []
        try:
            self.steps(steps, pos)
            return self.cur
        finally:
            self.cur = saved

    def here(self) -> int:
        return len(self.proc.ops)

    def cx(self, gen=None, stmts=None) -> Cx:
        return Cx(self.g, self.report, self.scope, False, {}, self.c, gen, stmts)

    def take_pre(self) -> list:
        """The statements collected for the next instruction (and none after)."""
        pre, self.pre = self.pre, []
        return pre

    def bind(self, obj, hint: str = "k") -> str:
        """A name in the procedure's generated code that stands for ``obj`` (never user data in the text)."""
        return self.gen.bind(obj, hint)

    def error(self, message: str, pos: Pos) -> str:
        """The name of a function that makes the rule error ``message`` at ``pos`` (raised by the text)."""
        return self.bind(partial(RuleRuntimeError, message, pos), "err")

    def memo_drop(self, variable: str):
        """The remembered function results a change of ``variable`` makes stale
        (dependencies.py); None (forget all) when the rulebook has errors."""
        drop = self.g.memo_drop
        return None if drop is None else drop.get(variable)

    def changed_lines(self, variable: str) -> list:
        """What follows a change of ``variable``: forget the results it makes stale
        (``State.changed(drop)`` written out), then look at the condition triggers (if any)."""
        drop = self.memo_drop(variable)
        if drop is None:
            lines = ["st.forget_all()"]
        elif drop:
            lines = ["_w_m = st.memo"] + [f"_w_m[{int(slot)}] = None" for slot in drop]
        else:
            lines = []
        if F.CHANGED in self.g.live:
            lines.append("st.changed(())")
        return lines

    def scope_start(self, kind: str, name: str) -> str:
        """The start of a scope: ``State.scope_start``, or only the record of the open
        scope when no trigger listens for its start (GameDef.live)."""
        args = f"{self.bind(kind, 's')}, {self.bind(name, 's')}"
        if f"{kind}_start" in self.g.live:
            return f"st.scope_start({args})"
        if F.DEFERRED not in self.g.live:       # nothing ever waits on it: one record serves all
            return f"st.scopes.append({self.bind(ScopeRec(kind, name), 'R')})"
        return f"st.scopes.append({self.bind(ScopeRec, 'R')}({args}))"

    def scope_end(self, kind: str, name: str) -> str:
        """The end of a scope: ``State.scope_end``, or only forgetting the open scope when
        no trigger listens for its end and nothing in the game is ever deferred."""
        if f"{kind}_end" in self.g.live or F.DEFERRED in self.g.live:
            return f"st.scope_end({self.bind(kind, 's')}, {self.bind(name, 's')})"
        return "st.scopes.pop()"

    def text_of(self, node, what: str, cond: bool = False, cond_what: str = "a condition", how=None):
        """``node`` written as Python text in this procedure's code, a failure anywhere in
        it a rule error at its position ("``what``: …"); ``(text, type)``.  The statements
        that compute parts of it first go to ``self.pre``."""
        if cond:
            how = lambda n, c: gen_cond(n, c, cond_what)  # noqa: E731
        text, typ, pre = gen_text(node, self.cx(self.gen), what, how)
        self.pre.extend(pre)
        return text, typ

    def text(self, value, pos: Pos, what: str = "expression"):
        """Parse ``value`` and write it as text: ``(text, type)`` or ``(None, ANY)``."""
        node = self.c.parse(value, pos)
        if node is None:
            return None, T.ANY
        return self.text_of(node, what)

    def cond_text(self, value, pos: Pos, what="a condition"):
        node = self.c.parse(value, pos)
        if node is None:
            return None
        return self.text_of(node, what, cond=True, cond_what=what)[0]

    def zone_text(self, value, pos: Pos, what: str):
        src, typ = self.text(value, pos, what)
        if src is not None and not isinstance(typ, T.ZoneT) and not T.is_any(typ):
            self.report.error(getattr(value, "pos", pos), f"{what} must be a zone, but this is {T.describe(typ)}",
                              E_TYPE)
        return src, typ

    def expr(self, value, pos: Pos, what: str = "expression"):
        """Parse and compile an expression into a function of its own; ``(fn, type)`` or ``(None, ANY)``."""
        node = self.c.parse(value, pos)
        if node is None:
            return None, T.ANY
        fn, typ = compile_expr(node, self.cx())
        return guard(fn, node.pos, what), typ

    # --- step lists --------------------------------------------------------------
    def steps(self, steps, pos: Pos) -> None:
        if steps is None:
            return
        if not isinstance(steps, list):
            self.report.error(pos, "expected a list of steps", "RW010")
            return
        self.scope.push()
        try:
            for i, step in enumerate(steps):
                spos = steps.pos_of(i) if isinstance(steps, LList) else pos
                if not isinstance(step, dict) or not step:
                    continue  # the schema reports it
                kind = next((k for k in step if k in _STEPS), None)
                if kind is None:
                    continue  # the schema reports it
                _STEPS[kind](self, step, spos)
        finally:
            self.scope.pop()

    # --- the steps ------------------------------------------------------------------
    def step_set(self, step: LDict, pos: Pos):
        self._assign(step["set"], step.pos_of("set"), declare=False)

    def step_let(self, step: LDict, pos: Pos):
        self._assign(step["let"], step.pos_of("let"), declare=True)

    def _assign(self, text, pos, declare: bool):
        try:
            node = parse_assignment(text, pos)
        except ParseError as exc:
            self.report.error(exc.pos, exc.message, "RW100")
            return
        vs, vt = self.text_of(node.value, "value")
        if vs is not None and T.depth_unbounded(vt):     # a loop of x = [x]: limit 'depth'
            vs = self.gen.guard(f"{self.bind(bounded, 'f')}({vs})", node.value.pos, "this value")
        op = node.op
        if declare:
            if node.index is not None or op != "=":
                self.report.error(node.pos, "let binds a name: let: \"name = value\"", E_TYPE)
                return
            if node.name in self.g.variables:
                self.report.error(node.pos, f"'{node.name}' is a game variable; use set:, or another name", E_NAME)
            slot = self.scope.declare(node.name, vt)
            if self._chance_names(node.value) or self.chance_conds:
                self.tainted.add(slot)
            if self.params:
                self.param_locals[slot] = self._param_names(node.value)
            self.emit(F.STMT, [f"{_l(int(slot))} = {vs}"], node.pos)
            return
        name = node.name
        local = self.scope.lookup(name)
        if local is not None and node.index is None:
            slot, typ = local
            if not T.compatible(vt, typ):
                self.report.error(node.value.pos, f"'{name}' holds {T.describe(typ)}, not {T.describe(vt)}", E_TYPE)
            self._check_op(op, typ, node)
            value = self._combined(op, f"{_l(int(slot))}", vs, node.pos, name)
            self.chance_locals.pop(slot, None)      # no longer the drawn value
            if self._chance_names(node.value) or self.chance_conds:
                self.tainted.add(slot)
            if self.params:
                self.param_locals[slot] = self.param_locals.get(slot, frozenset()) | self._param_names(node.value)
            self.emit(F.STMT, [f"{_l(int(slot))} = {value}"], node.pos)
            return
        var = self.g.variables.get(name)
        if var is None:
            self.report.error(node.pos, f"unknown variable '{name}'{suggest(name, list(self.g.variables))}"
                              + ("" if local is None else " (a local cannot be indexed)"), E_NAME)
            return
        if not T.compatible(vt, var.type):
            self.report.error(node.value.pos, f"variable '{name}' holds {T.describe(var.type)}, "
                                              f"not {T.describe(vt)}", E_TYPE)
        self._check_op(op, var.type, node)
        if vs is not None and isinstance(vt, (T.ListT, T.TupleT)) and not T.depth_unbounded(vt):
            # a list kept: its elements count towards the next look at the memory (limit 'memory')
            vs = self.gen.guard(f"{self.bind(kept, 'f')}({vs})", node.value.pos, "this value")
        if var.index:
            if node.index is None:
                self.report.error(node.pos, f"variable '{name}' needs an index", E_NAME)
                return
            idx = ast.Index(ast.Name(name, pos=node.pos), node.index, pos=node.pos)
            # the expression compiler writes the key (and checks arity and types)
            key = _family_key(idx, var.index, f"variable '{name}'", self.cx(self.gen, self.pre))
            at = self.gen.guard(f"st.vk[{int(var.family_id)}][_w_k]", node.pos, "variable",
                                _no_entry(name, node.pos))
            lines = [f"_w_k = {key}", f"_w_at = {at}",
                     f"_w_x = {self._combined(op, 'st.v[_w_at]', vs, node.pos, name)}"]
            target = "st.v[_w_at]"
        else:
            if node.index is not None:
                self.report.error(node.pos, f"variable '{name}' has no index", E_NAME)
                return
            target = f"st.v[{int(var.offset)}]"
            lines = [f"_w_x = {self._combined(op, target, vs, node.pos, name)}"]
        if var.min is not None or var.max is not None:      # the layout's bounds (lay.clamp)
            clamped = self.gen.guard(f"{self.bind(_clamp, 'f')}(_w_x, st.lay.clamp[{self.bind(name, 's')}])",
                                     node.pos, f"set {name}")
            lines.append(f"_w_x = {clamped}")
        lines.append(f"{target} = _w_x")
        if var.visible_const is not True:       # a variable some seat may not see: is its value chance?
            lines.extend(self._chance_lines(var, node, "_w_at" if var.index else str(int(var.offset))))
        lines.extend(self.changed_lines(name))
        self.emit(F.STMT, lines, node.pos, (F.CHANGED,))

    def _chance_names(self, node) -> list:
        """The locals in ``node`` that hold a value drawn by a `random` step, or computed from one."""
        found = []
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                local = self.scope.lookup(n.id)
                if local is not None and (local[0] in self.chance_locals or local[0] in self.tainted):
                    found.append(n)
        return found

    def _param_names(self, node) -> frozenset:
        """The action parameters ``node`` depends on: directly, through locals computed from
        them, or through the conditions around (``param_conds``)."""
        if not self.params:
            return frozenset()
        found = set()
        for cond in self.param_conds:
            found |= cond
        if node is not None:
            for n in ast.walk(node):
                if isinstance(n, ast.Name):
                    local = self.scope.lookup(n.id)
                    if local is not None:
                        if local[0] in self.params:
                            found.add(self.params[local[0]])
                        found |= self.param_locals.get(local[0], frozenset())
        return frozenset(found)

    def _chance_lines(self, var, node, at: str) -> list:
        """After a `set` of a variable that may be hidden: a local drawn by `random` and copied
        unchanged stays chance (``State.drew``); any other value is not (``State.undrew``).
        A value computed from a drawn one cannot be drawn anew by resample: RW260."""
        value = node.value
        if self.params:
            used = self._param_names(value)
            if used:
                self.c.param_sets.append((var.name, node.pos, self.action_name, used))
        if node.op != "=":          # the old value is part of the new one: is it ever drawn? (Compiler.drawn_into)
            self.c.compound_sets.append((var.name, node.pos))
        if self.chance_conds:
            cond = self.chance_conds[-1]
            self.report.warning(node.pos, f"'{var.name}' may be hidden from a seat, and this sets it under a "
                                f"condition on the random value '{cond.id}' (line {cond.pos.line}): resample "
                                f"cannot draw it anew, so a search that resamples would see it; draw into a "
                                f"variable first (random: \"v[…] in …\") and decide on that", "RW260")
            return ["if st.drawn or st.known:", f"    st.undrew({at})"]
        if node.op == "=" and isinstance(value, ast.Name):
            local = self.scope.lookup(value.id)
            if local is not None and local[0] in self.chance_locals:
                self.c.drawn_into.add(var.name)
                return [f"st.drew({at}, {_l(int(self.chance_locals[local[0]]))})"]
        used = self._chance_names(value)
        if used:
            self.report.warning(used[0].pos, f"'{var.name}' may be hidden from a seat, and this sets it from the "
                                f"random value '{used[0].id}' through a computation: resample cannot draw it anew, "
                                f"so a search that resamples would see it; draw it directly (random: "
                                f"\"{var.name}{'[…]' if var.index else ''} in …\") or copy the drawn value unchanged",
                                "RW260")
        return ["if st.drawn or st.known:", f"    st.undrew({at})"]

    def _combined(self, op: str, old: str, new: str, pos: Pos, name: str) -> str:
        """``old op= new`` as text; a failure of the operation is "set NAME: …" at ``pos``."""
        if op == "=":
            return new
        sign = {"+=": "+", "-=": "-"}.get(op, "*")
        return self.gen.guard(f"{old} {sign} {new}", pos, f"set {name}")

    def _check_op(self, op, typ, node):
        if op != "=" and not T.is_numeric(typ):
            if op == "+=" and isinstance(typ, T.ListT):
                return
            self.report.error(node.pos, f"'{op}' needs a number, but '{node.name}' holds {T.describe(typ)}", E_TYPE)

    def step_move(self, step: LDict, pos: Pos):
        ws, wt = self.text(step["move"], step.pos_of("move"), "what to move")
        ds, _ = self.zone_text(step.get("to"), step.pos_of("to"), "'to'")
        if ws is None or ds is None:
            return
        if not (isinstance(wt, (T.Comp, T.ZoneT)) or T.is_any(wt) or
                (T.is_listlike(wt) and isinstance(T.elem_of(wt), T.Comp)) or
                (T.is_listlike(wt) and T.is_any(T.elem_of(wt)))):
            self.report.error(step.pos_of("move"), f"only components can be moved, but this is {T.describe(wt)}",
                              E_TYPE)
        self._check_fits(wt, step.get("to"), step.pos_of("to"))
        if "cells" in step:
            self._move_onto_grid(step, pos, ws, wt, ds)
            return
        fam = self._family_of(step.get("to"))
        if fam is not None and fam.cells is not None:
            self.report.error(step.pos_of("to"), f"zone '{fam.name}' is a grid: say which cells the piece covers "
                                                 f"(cells: …)", "RW272")
        bottom = bool(step.get("bottom", False))
        where = self.bind(pos, "pos")
        if "at" in step:
            self._move_to_place(step, pos, ws, wt, ds, where)
            return
        if isinstance(wt, T.ZoneT):
            lines = [f"st.move_zone({ws}, {ds}, {bottom}, {where})"]
        elif isinstance(wt, T.Comp):
            none = self.error("nothing to move (none)", step.pos_of("move"))
            lines = [f"_w_c = {ws}",
                     "if _w_c is None:",
                     f"    raise {none}()",
                     f"st.move_component(_w_c, {ds}, {bottom}, {where})"]
        else:
            lines = [f"st.move({self.bind(_components, 'f')}(st, {ws}, {self.bind(step.pos_of('move'), 'pos')}), "
                     f"{ds}, {bottom}, {where})"]
        self.emit(F.STMT, lines, pos, ("moved", F.CHANGED))

    def _move_to_place(self, step: LDict, pos: Pos, ws: str, wt, ds: str, where: str):
        """``move: …, to: ZONE, at: N``: into a place of the zone's order, N components of it
        under them (0 the bottom), also within the zone they are in (State.move_to_place)."""
        apos = step.pos_of("at")
        ps, pt = self.text(step["at"], apos, "at")
        if ps is None:
            return
        if not T.is_numeric(pt) and not T.is_any(pt):
            self.report.error(apos, f"at: is a place in the zone's order (a number, 0 the bottom), "
                                    f"not {T.describe(pt)}", E_TYPE)
        if step.get("bottom"):
            self.report.error(step.pos_of("bottom"), "say either bottom: true or at: (at: 0 is the bottom)",
                              "RW271")
        lines = []
        if isinstance(wt, T.ZoneT):
            what = f"tuple(st.contents({ws}))"
        elif isinstance(wt, T.Comp):
            none = self.error("nothing to move (none)", step.pos_of("move"))
            lines = [f"_w_c = {ws}", "if _w_c is None:", f"    raise {none}()"]
            what = "(_w_c,)"
        else:
            what = f"{self.bind(_components, 'f')}(st, {ws}, {self.bind(step.pos_of('move'), 'pos')})"
        lines.append(f"st.move_to_place({what}, {ds}, {ps}, {where})")
        self.emit(F.STMT, lines, pos, ("moved", F.CHANGED))

    def _move_onto_grid(self, step: LDict, pos: Pos, ws: str, wt, ds: str):
        """``move: t, to: GRID, cells: CELLS``: one component onto a grid zone, covering the
        cells listed (State.cover)."""
        cpos = step.pos_of("cells")
        cs, ct = self.text(step["cells"], cpos, "cells")
        if cs is None:
            return
        if not (isinstance(wt, T.Comp) or T.is_any(wt)):
            self.report.error(step.pos_of("move"), f"a move with cells: moves one component (a piece), "
                                                   f"not {T.describe(wt)}", "RW271")
        if not T.is_listlike(ct) and not T.is_any(ct):
            self.report.error(cpos, f"cells must be a list of cells, not {T.describe(ct)}", E_TYPE)
        fam = self._family_of(step.get("to"))
        if fam is not None and fam.cells is None:
            self.report.error(cpos, f"zone '{fam.name}' is not a grid (it has no cells:): nothing there "
                                    f"covers cells", "RW271")
        if step.get("bottom"):
            self.report.error(step.pos_of("bottom"), "a piece on a grid lies on cells, not at the bottom", "RW271")
        self.emit(F.STMT, [f"st.cover({ws}, {ds}, {cs}, {self.bind(pos, 'pos')})"], pos, ("moved", F.CHANGED))

    def step_draw(self, step: LDict, pos: Pos):
        count = step.get("draw", 1) if step.get("draw") is not None else 1
        ns, nt = self.text(count, step.pos_of("draw"), "count")
        if ns is not None and not T.is_numeric(nt):
            self.report.error(step.pos_of("draw"), f"how many to draw must be a number, not {T.describe(nt)}", E_TYPE)
        ss, stype = self.zone_text(step.get("from"), step.pos_of("from"), "'from'")
        ds, _ = self.zone_text(step.get("to"), step.pos_of("to"), "'to'")
        if ns is None or ss is None or ds is None:
            return
        self._check_fits(stype, step.get("to"), step.pos_of("to"), count=step.get("draw", 1))
        fam = self._family_of(step.get("to"))
        if fam is not None and fam.cells is not None:
            self.report.error(step.pos_of("to"), f"zone '{fam.name}' is a grid: a piece goes onto it with a move "
                                                 f"that says which cells it covers (cells: …)", "RW272")
        call = f"st.draw({ss}, {ns}, {ds}, {self.bind(pos, 'pos')})"
        if step.get("as"):
            holds = stype.holds if isinstance(stype, T.ZoneT) else frozenset()
            slot = self.scope.declare(step["as"], T.ListT(T.Comp(holds)))
            call = f"{_l(int(slot))} = {call}"
        self.emit(F.STMT, [call], pos, ("moved", "drawn", F.CHANGED))

    def _check_fits(self, what_type, dest, pos: Pos, count=None):
        """RW204: a move whose components can never go where it sends them.
        Also records the kinds this procedure moves (for the trigger-cycle check)."""
        kinds = None
        if isinstance(what_type, T.ZoneT):
            kinds = what_type.holds
        elif isinstance(what_type, T.Comp):
            kinds = what_type.kinds
        elif isinstance(what_type, (T.ListT, T.TupleT)) and isinstance(T.elem_of(what_type), T.Comp):
            kinds = T.elem_of(what_type).kinds
        self.proc.moved_kinds.append(frozenset(kinds) if kinds else None)
        fam = self._family_of(dest)
        if fam is None:
            return
        if kinds and fam.holds and not (kinds & fam.holds):
            self.report.error(pos, f"zone '{fam.name}' holds only {', '.join(sorted(fam.holds))}; "
                                   f"{', '.join(sorted(kinds))} can never go there", "RW204")
        cap = getattr(fam, "capacity_literal", None)
        if isinstance(count, int) and not isinstance(count, bool) and cap is not None and count > cap:
            self.report.error(pos, f"zone '{fam.name}' holds at most {cap}, but {count} are drawn into it", "RW204")

    def _family_of(self, dest):
        """The zone family a destination expression names, when it is written plainly."""
        if not isinstance(dest, str):
            return None
        m = re.match(r"\s*([A-Za-z_]\w*)\s*(\[|$)", dest)
        if not m or self.scope.lookup(m.group(1)) is not None:
            return None
        return self.g.zones.get(m.group(1))

    def step_shuffle(self, step: LDict, pos: Pos):
        zs, zt = self.zone_text(step["shuffle"], step.pos_of("shuffle"), "what to shuffle")
        if zs is None:
            return
        self.proc.moved_kinds.append(frozenset(zt.holds) if isinstance(zt, T.ZoneT) and zt.holds else None)
        self.emit(F.STMT, [f"st.shuffle({zs})"], pos)       # forgets, sets nothing off
        self.g.random_steps = True

    def _chance_cond(self, value, pos: Pos) -> int:
        """Push the drawn locals a condition (or loop head) ``value`` depends on onto
        ``chance_conds``; return how many were pushed (for :meth:`_pop_cond`)."""
        node = self.c.parse(value, pos) if isinstance(value, str) else None
        used = self._chance_names(node) if node is not None else []
        params = self._param_names(node) if node is not None and self.params else frozenset()
        if params:
            self.param_conds.append(params)
        if used:
            self.chance_conds.append(used[0])
        return (1 if used else 0) + (2 if params else 0)

    def _pop_cond(self, n: int) -> None:
        if n & 1:
            self.chance_conds.pop()
        if n & 2:
            self.param_conds.pop()

    def step_if(self, step: LDict, pos: Pos):
        cs = self.cond_text(step["if"], step.pos_of("if"))
        if cs is None:
            return
        pushed = self._chance_cond(step["if"], step.pos_of("if"))
        try:
            branch = self.emit(F.BRANCH, [cs], pos, leaf=False)
            then = self.block(step.get("then"), step.pos_of("then"))
            orelse = jump = None
            if "else" in step:
                jump = self.emit(F.JUMP, [], pos, leaf=False)
                branch.target = self.here()
                orelse = self.block(step.get("else"), step.pos_of("else"))
                jump.target = self.here()
                jump = jump.pc
            else:
                branch.target = self.here()
            self.cur.append(F.If(branch.pc, then, orelse, jump, self.here()))
        finally:
            self._pop_cond(pushed)

    def step_for(self, step: LDict, pos: Pos):
        parsed = self.loop_head(step, "for", "what a 'for' runs over")
        if parsed is None:
            return
        head, its, elem = parsed
        self.scope.push()
        it_slot = self.scope.declare(f".it{self.here()}", T.ANY)
        ix_slot = self.scope.declare(f".ix{self.here()}", T.INT)
        var_global = None
        slots = []
        if len(head.names) == 1 and head.names[0] in self.g.variables and self.scope.lookup(head.names[0]) is None:
            var = self.g.variables[head.names[0]]
            if var.index:
                self.report.error(head.pos, f"variable '{var.name}' has an index; it cannot be a loop variable", E_NAME)
            elif not T.compatible(elem, var.type):
                self.report.error(head.pos, f"variable '{var.name}' holds {T.describe(var.type)}, "
                                            f"not {T.describe(elem)}", E_TYPE)
            var_global = var.offset
        else:
            slots = _declare_targets(head, elem, self.cx())
            note_range(head, slots, self.cx())
        info = LoopInfo("for", var_slot=slots[0] if len(slots) == 1 else None, var_global=var_global,
                        iter_slot=it_slot, index_slot=ix_slot,
                        iterable=LazyExpr(self.gen, its, head.iter.pos, self.pre))
        info.extra["names"] = head.names
        init = self.emit(F.LOOP_INIT, [f"{_l(it_slot)} = tuple({its})", f"{_l(ix_slot)} = 0"], pos, leaf=False)
        lines = [f"_w_i = {_l(ix_slot)}",
                 f"_w_xs = {_l(it_slot)}",
                 "if _w_i >= len(_w_xs):",
                 "    " + F.LEAVE,
                 f"{_l(ix_slot)} = _w_i + 1"]
        pushes = ()
        if var_global is not None:
            bind = [f"st.v[{int(var_global)}] = _w_x", *self.changed_lines(head.names[0])]
            pushes = (F.CHANGED,)
        elif len(slots) == 1:
            bind = [f"{_l(int(slots[0]))} = _w_x"]
        else:
            names = "(" + "".join(f"{_l(slot)}, " for slot in slots) + ")"
            bind = [f"{names} = {self.bind(bind_slots, 'f')}({names}, _w_x)"]
        lines += ["_w_x = _w_xs[_w_i]", *bind]
        head_ins = self.emit(F.LOOP_HEAD, lines, pos, pushes, leaf=False)
        head_ins.each = (its, bind)
        used = self._chance_names(head.iter)        # a loop over what chance drew: its body depends on it
        if used:
            self.tainted.update(slots)
            self.chance_conds.append(used[0])
        params = self._param_names(head.iter) if self.params else frozenset()
        if params:
            self.param_locals.update((slot, params) for slot in slots)
            self.param_conds.append(params)
        try:
            self.loop_body(step, pos, info, head_ins, init_pc=init.pc)
        finally:
            if used:
                self.chance_conds.pop()
            if params:
                self.param_conds.pop()
        self.scope.pop()

    def loop_body(self, step: LDict, pos: Pos, info, head: F.Ins, tail_lines=None, tail_pushes=(),
                  init_pc: int | None = None) -> None:
        """The body of a loop, then its tail (``tail_lines``, or nothing), which goes back to
        the head; the head and a ``break`` in the body leave to the first instruction after it."""
        exits: list = [head]
        info.extra["exits"] = exits          # a `break` in the body adds itself
        self.loops.append(info)
        body = self.block(step.get("do"), step.pos_of("do"))
        self.loops.pop()
        tail = self.emit(F.LOOP_TAIL, tail_lines or [], pos, tail_pushes, leaf=False)
        tail.target = head.pc
        for ins in exits:
            ins.target = self.here()
        for ins in info.extra.get("ends", ()):      # end_turn: to the tail
            ins.target = tail.pc
        info.extra["end"] = self.here()
        self.cur.append(F.Loop(init_pc, head.pc, body, tail.pc, tail_lines is not None))

    def loop_head(self, step: LDict, key: str, what: str):
        """Parse ``x in xs`` of a for/random step: (head, iterable text, element type) or None."""
        try:
            head = parse_for_head(step[key], step.pos_of(key))
        except ParseError as exc:
            self.report.error(exc.pos, exc.message, "RW100")
            return None
        its, itt = self.text_of(head.iter, key, how=lambda n, c: gen_as_list(n, c, what))
        return head, its, T.elem_of(itt)

    def step_random(self, step: LDict, pos: Pos):
        """``random: "x in xs"``: bind x to an element of xs drawn with the game's generator.
        x may be a local, a variable or an element of one (``die[p, i]``).  A value drawn into
        a variable that can be hidden (its ``visible`` is not always true) is recorded as
        chance (``State.drew``): ``resample`` may draw it anew for a seat that does not see
        it; so is a local drawn here and copied unchanged into such a variable (``step_set``)."""
        target = self._element_head(step)
        if target is not None:
            self._random_into_element(step, pos, *target)
            return
        parsed = self.loop_head(step, "random", "what 'random' picks from")
        if parsed is None:
            return
        head, its, elem = parsed
        if len(head.names) != 1:
            self.report.error(head.pos, "random picks one value: random: \"x in xs\"", E_TYPE)
            return
        name = head.names[0]
        self.g.random_steps = True
        var = self.g.variables.get(name)
        lines = self._draw_lines(its, head.iter.pos)
        if var is not None and self.scope.lookup(name) is None:
            if var.index:
                self.report.error(head.pos, f"variable '{name}' has an index: random: \"{name}[…] in …\"", E_NAME)
                return
            lines.append(f"st.v[{int(var.offset)}] = _w_x")
            if var.visible_const is not True:
                lines.append(f"st.drew({int(var.offset)}, _w_key)")
                self.c.drawn_into.add(name)
            lines.extend(self.changed_lines(name))
            self.emit(F.STMT, lines, pos, (F.CHANGED,))
        else:
            slot = self.scope.declare(name, elem)
            key = self.scope.declare(f".key{slot}", T.ANY)
            self.chance_locals[slot] = key
            lines += [f"{_l(int(slot))} = _w_x", f"{_l(int(key))} = _w_key"]
            self.emit(F.STMT, lines, pos)

    def _draw_lines(self, its: str, ipos_: Pos) -> list:
        """The statements that draw ``_w_x`` from ``its`` (``_w_key``: the generator before it)."""
        ipos = self.bind(ipos_, "pos")
        nothing = self.error("random: nothing to pick from", ipos_)
        return [f"_w_xs = tuple({its})",
                "if not _w_xs:",
                f"    raise {nothing}()",
                "_w_key = st.rng if st.chance is None else st.draw_key()",
                "if st.forced:                       # a scenario's `draws:` rigs the value (a die's face)",
                f"    _w_x = st.forced_value(_w_xs, {ipos})",
                "else:",
                "    _w_x = _w_xs[st.below(len(_w_xs))]"]

    def _element_head(self, step: LDict):
        """``random: "v[i, j] in xs"``: (the element's node, the iterable's node), else None."""
        text = step["random"]
        if not isinstance(text, str):
            return None
        m = re.match(r"\s*([A-Za-z_][A-Za-z_0-9]*)\s*\[", text)
        if m is None or m.group(1) not in self.g.variables or self.scope.lookup(m.group(1)) is not None:
            return None
        depth, at = 0, None
        for i, ch in enumerate(text):
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            elif depth == 0 and text.startswith(" in ", i):
                at = i
                break
        if at is None:
            self.report.error(step.pos_of("random"), "random: write \"v[i] in xs\"", "RW100")
            return None
        left = self.c.parse(_sub(text, 0, at), step.pos_of("random"))
        right = self.c.parse(_sub(text, at + 4, len(text)), step.pos_of("random"))
        if left is None or right is None:
            return ()
        if not isinstance(left, ast.Index) or not isinstance(left.obj, ast.Name):
            self.report.error(left.pos, "random: write \"v[i] in xs\" (an element of a variable)", "RW100")
            return ()
        return left, right

    def _random_into_element(self, step: LDict, pos: Pos, node=None, it=None):
        if node is None:
            return
        name = node.obj.id
        var = self.g.variables[name]
        self.g.random_steps = True          # the game draws at random (Rulebook.info, OpenSpiel's chance mode)
        if not var.index:
            self.report.error(node.pos, f"variable '{name}' has no index", E_NAME)
            return
        its, itt = self.text_of(it, "random", how=lambda n, c: gen_as_list(n, c, "what 'random' picks from"))
        elem = T.elem_of(itt)
        if not T.compatible(elem, var.type):
            self.report.error(node.pos, f"variable '{name}' holds {T.describe(var.type)}, not {T.describe(elem)}",
                              E_TYPE)
        key = _family_key(node, var.index, f"variable '{name}'", self.cx(self.gen, self.pre))
        at = self.gen.guard(f"st.vk[{int(var.family_id)}][_w_k]", node.pos, "variable", _no_entry(name, node.pos))
        lines = self._draw_lines(its, it.pos) + [f"_w_k = {key}", f"_w_at = {at}"]
        if var.min is not None or var.max is not None:
            clamped = self.gen.guard(f"{self.bind(_clamp, 'f')}(_w_x, st.lay.clamp[{self.bind(name, 's')}])",
                                     node.pos, f"random {name}")
            lines.append(f"_w_x = {clamped}")
        lines.append("st.v[_w_at] = _w_x")
        if var.visible_const is not True:
            lines.append("st.drew(_w_at, _w_key)")
            self.c.drawn_into.add(name)
        lines.extend(self.changed_lines(name))
        self.emit(F.STMT, lines, pos, (F.CHANGED,))

    def step_while(self, step: LDict, pos: Pos):
        cs = self.cond_text(step["while"], step.pos_of("while"))
        if cs is None:
            return
        head = self.emit(F.LOOP_HEAD, [f"if not {cs}:", "    " + F.LEAVE], pos, leaf=False)
        pushed = self._chance_cond(step["while"], step.pos_of("while"))
        try:
            self.loop_body(step, pos, LoopInfo("while"), head)
        finally:
            self._pop_cond(pushed)

    def step_repeat(self, step: LDict, pos: Pos):
        ns, nt = self.text(step["repeat"], step.pos_of("repeat"), "repeat count")
        if ns is None:
            return
        if not T.is_numeric(nt):
            self.report.error(step.pos_of("repeat"), f"repeat needs a number, not {T.describe(nt)}", E_TYPE)
        self.scope.push()
        cnt = self.scope.declare(f".n{self.here()}", T.INT)
        init = self.emit(F.LOOP_INIT, [f"{_l(cnt)} = {ns}"], pos, leaf=False)
        head = self.emit(F.LOOP_HEAD, [f"if {_l(cnt)} <= 0:", "    " + F.LEAVE, f"{_l(cnt)} -= 1"], pos, leaf=False)
        pushed = self._chance_cond(step["repeat"], step.pos_of("repeat"))
        try:
            self.loop_body(step, pos, LoopInfo("repeat", index_slot=cnt), head, init_pc=init.pc)
        finally:
            self._pop_cond(pushed)
        self.scope.pop()

    def step_turns(self, step: LDict, pos: Pos):
        ss, stt = self.text(step["turns"], step.pos_of("turns"), "first seat")
        if ss is None:
            return
        if not T.compatible(stt, T.PLAYER):
            self.report.error(step.pos_of("turns"), f"turns start at a seat, not {T.describe(stt)}", E_TYPE)
        as_name = step.get("as", "player")
        self.scope.push()
        cur = self.scope.declare(f".cur{self.here()}", T.PLAYER)
        skipped = self.scope.declare(f".skip{self.here()}", T.INT)
        taken = self.scope.declare(f".taken{self.here()}", T.INT)
        if as_name == "player":
            pslot = 0
        else:
            pslot = self.scope.declare(as_name, T.PLAYER)
        init = self.emit(F.LOOP_INIT, [f"{_l(cur)} = {ss}", f"{_l(skipped)} = 0", f"{_l(taken)} = 0"], pos, leaf=False)
        ws = self.cond_text(step["while"], step.pos_of("while")) if "while" in step else None
        ws_pre = self.take_pre()
        ks = self.cond_text(step["skip"], step.pos_of("skip"), "skip") if "skip" in step else None
        ks_pre = self.take_pre()
        once = bool(step.get("once", False))
        # the next seat to take a turn: skipped seats pass (once each round of seats); left
        # when `while` fails, when every seat has had its turn (`once`) or everyone is skipped
        lines = ["_w_n = st.lay.num_seats",
                 "_w_leave = False",
                 "while True:"]
        if once:
            lines += [f"    if {_l(taken)} >= _w_n:", "        _w_leave = True", "        break"]
        if ws is not None:
            lines += [*("    " + line for line in ws_pre),
                      f"    if not {ws}:", "        _w_leave = True", "        break"]
        lines += [f"    _w_p = {_l(cur)}", f"    {_l(pslot)} = _w_p"]
        if ks is not None:
            lines += [*("    " + line for line in ks_pre),
                      f"    if {ks}:",
                      f"        {_l(skipped)} += 1",
                      f"        {_l(cur)} = (_w_p + 1) % _w_n"]
            if once:
                lines += [f"        {_l(taken)} += 1"]
            lines += [f"        if {_l(skipped)} >= _w_n:", "            _w_leave = True", "            break",
                      "        continue"]
        lines += [f"    {_l(skipped)} = 0",
                  "    " + self.scope_start("turn", "turn"),
                  "    break",
                  "if _w_leave:",
                  "    " + F.LEAVE]
        head = self.emit(F.LOOP_HEAD, lines, pos, ("turn_start",), leaf=False)
        tail = [self.scope_end("turn", "turn"),
                f"{_l(cur)} = ({_l(cur)} + 1) % st.lay.num_seats",
                f"{_l(taken)} += 1"]
        info = LoopInfo("turns", var_slot=pslot, index_slot=cur, extra={"taken": taken, "skipped": skipped, "as": as_name})
        self.loop_body(step, pos, info, head, tail, ("turn_end", F.DEFERRED), init_pc=init.pc)
        self.scope.pop()

    def step_scope(self, step: LDict, pos: Pos):
        kind = next(k for k in SCOPE_KINDS if k in step)
        name = step[kind]
        if name is True or name is None or name is False:
            name = kind
        name = str(name)
        if kind == "scope":
            kind = name
        lines = [self.scope_start(kind, name)]
        if kind in ("phase", "round"):
            # where the log stood when a round or phase began: the story puts its header there
            lines += ["if st.logging:", "    st.log_marks.append(len(st.log))"]
        begin = self.emit(F.SCOPE_BEGIN, lines, pos, (f"{kind}_start",), leaf=False)
        label = Label(name, begin.pc, list(self.loops))
        if name in self.proc.labels:
            self.report.warning(pos, f"label '{name}' is used twice in {self.proc.name}; scenarios start at the first",
                                "RW150")
        else:
            self.proc.labels[name] = label
        self.loops.append(ScopeInfo(kind, name))
        body = self.block(step.get("do"), step.pos_of("do"))
        self.loops.pop()
        end = self.emit(F.SCOPE_END, [self.scope_end(kind, name)], pos, (f"{kind}_end", F.DEFERRED), leaf=False)
        self.cur.append(F.Scope(begin.pc, body, end.pc))

    def step_decide(self, step: LDict, pos: Pos):
        refs = step.get("decide") or []
        actions = []
        for i, ref in enumerate(refs):
            rpos = refs.pos_of(i) if isinstance(refs, LList) else pos
            if isinstance(ref, str):
                action = self.g.actions.get(ref)
                if action is None:
                    self.report.error(rpos, f"unknown action '{ref}'{suggest(ref, self.g.actions)}", E_NAME)
                    continue
                actions.append(action)
            elif isinstance(ref, dict) and "name" in ref:
                actions.append(self.c.compile_inline_action(ref, rpos, self.proc, self.scope))
        who = None
        if "who" not in step and "together" not in step and self.proc.kind in ("flow", "setup", "scoring"):
            turns = [i for i in self.loops if isinstance(i, LoopInfo) and i.kind == "turns"]
            if turns and all(i.var_slot != 0 for i in turns):     # every turns loop binds another name
                bound = turns[-1].extra.get("as", "another name")
                self.report.error(pos, f"nobody decides here: the turns loop around binds '{bound}' (as:), not "
                                       f"'player'; give who:", "RW311")
            elif not turns:             # a new check (language version 1): a warning
                self.report.warning(pos, f"nobody decides here: this decide is in the {self.proc.kind} outside "
                                         f"every turns loop, where 'player' is not set, so every game stops here "
                                         f"(RW900); give who:", "RW312")
        if "who" in step:
            who, wt = self.text(step["who"], step.pos_of("who"), "who decides")
            if who is not None and not T.compatible(wt, T.PLAYER):
                self.report.error(step.pos_of("who"), f"who decides must be a seat, not {T.describe(wt)}", E_TYPE)
        if "together" in step:
            self.step_together(step, pos, actions)
            return
        self.g.single_decides = True
        as_slot = self.scope.declare(step["as"], T.STR) if step.get("as") else None
        group = str(step["simultaneous"]) if step.get("simultaneous") is not None else None
        if group is not None:
            self.g.simultaneous = True
        names = ", ".join(a.name for a in actions)

        def cannot(st, who, nothing_legal):
            """The located error of a decision nobody can take."""
            if nothing_legal:
                raise RuleRuntimeError(f"no legal action for {st.lay.seat_names[who]} ({names}) "
                                       "and no 'otherwise' for this decision", pos)
            if who is None:
                raise RuleRuntimeError("nobody to decide: 'player' is not set here (give 'who:')", pos)
            raise RuleRuntimeError(f"{st.lay.seat_names[who]} is an automaton and takes no decisions; "
                                   "the rules must act for it", pos)
        spec = F.DecideSpec(who, actions, as_slot, self.bind(pos, "pos"), self.bind(group, "s"),
                            self.bind(cannot, "err"), "otherwise" in step)
        ins = self.emit(F.DECIDE, [], pos, call=spec, leaf=False)
        otherwise = self.block(step.get("otherwise"), step.pos_of("otherwise")) if "otherwise" in step else []
        spec.after = self.here()
        self.cur.append(F.Decide(ins.pc, otherwise, self.here()))
        turn = self._enclosing_turn()
        if turn is not None:                   # an action's end_turn jumps from here to the turn's end
            self.proc.turn_exits[spec.after] = turn.extra
        self.c.offers.extend((a, turn is not None, pos) for a in actions)

    def step_together(self, step: LDict, pos: Pos, actions: list):
        """``decide: [...]`` with ``together:``: the seats named (``true``: every seat that
        decides) each take the decision without learning anything of the others' choices.

        Internally the seats choose one after the other in seat order: a loop whose head
        picks the next seat still to choose (``State.pending.seats`` names them all) and
        whose body is the decision.  A chosen option is not run: it is held in the frame's
        locals (``State._apply``) and the history records it as an ordinary decision of that
        seat, told to every other seat as ``…`` (GameDef.sealed: not its action, not its
        parameters).  When every seat has chosen, the held actions run one after the other
        in seat order (``State.run_together``), each as its own frame."""
        for key in ("who", "otherwise"):
            if key in step:
                self.report.error(step.pos_of(key), f"a decision taken together has no '{key}:' (every seat "
                                                    f"named by together: decides for itself)", E_NAME)
        together = step["together"]
        tpos = step.pos_of("together")
        if together is True:
            seats = f"{self.bind(together_seats, 'f')}(st, None)"
        elif together is False or together is None:
            self.report.error(tpos, "together: is true (every seat) or an expression of the seats that decide",
                              E_TYPE)
            return
        else:
            ts, tt = self.text(together, tpos, "the seats that decide together")
            if ts is None:
                return
            if not (isinstance(tt, (T.ListT, T.ZoneT)) or T.compatible(tt, T.ListT(T.PLAYER))) or \
                    not T.compatible(T.elem_of(tt), T.PLAYER):
                self.report.error(tpos, f"together: names seats (a list of seats), not {T.describe(tt)}", E_TYPE)
                return
            seats = f"{self.bind(together_seats, 'f')}(st, {ts})"
        # as: the chosen action's name of every seat (none: it took no part), indexed by seat
        as_slot = self.scope.declare(step["as"], T.ListT(T.STR)) if step.get("as") else None
        group = str(step["simultaneous"]) if step.get("simultaneous") is not None else "together"
        self.g.simultaneous = True
        for a in actions:
            self.g.sealed = self.g.sealed | {a.name}
        self.g.live = self.g.live | {F.TOGETHER}
        self.scope.push()
        here = self.here()
        seats_slot = self.scope.declare(f".tseats{here}", T.ListT(T.PLAYER))
        held = self.scope.declare(f".theld{here}", T.ANY)
        cur = self.scope.declare(f".tcur{here}", T.PLAYER)
        init = self.emit(F.LOOP_INIT, [f"{_l(seats_slot)} = {seats}", f"{_l(held)} = ()"], tpos, leaf=False)
        head = self.emit(F.LOOP_HEAD, [f"if len({_l(held)}) >= len({_l(seats_slot)}):", "    " + F.LEAVE,
                                       f"{_l(cur)} = {_l(seats_slot)}[len({_l(held)})]"], pos, leaf=False)
        names = ", ".join(a.name for a in actions)

        def cannot(st, who, nothing_legal):
            """The located error of a seat that cannot take its part of the decision."""
            if nothing_legal:
                raise RuleRuntimeError(f"no legal action for {st.lay.seat_names[who]} ({names}) in a decision "
                                       "taken together", pos)
            raise RuleRuntimeError(f"{st.lay.seat_names[who]} is an automaton and takes no decisions; "
                                   "the rules must act for it", pos)
        spec = F.DecideSpec(_l(cur), actions, None, self.bind(pos, "pos"), self.bind(group, "s"),
                            self.bind(cannot, "err"), False)
        spec.together = (held, seats_slot)
        ins = self.emit(F.DECIDE, [], pos, call=spec, leaf=False)
        spec.after = self.here()
        tail = self.emit(F.LOOP_TAIL, [], pos, leaf=False)
        tail.target = head.pc
        head.target = self.here()
        self.cur.append(F.Loop(init.pc, head.pc, [F.Decide(ins.pc, [], spec.after)], tail.pc, False))
        first = None
        if "first" in step:             # the chosen actions run clockwise from this seat
            first, ft = self.text(step["first"], step.pos_of("first"), "the seat whose choice runs first")
            if first is not None and not T.compatible(ft, T.PLAYER):
                self.report.error(step.pos_of("first"), f"first: is a seat, not {T.describe(ft)}", E_TYPE)
        lines = []
        if as_slot is not None:
            lines.append(f"{_l(as_slot)} = {self.bind(together_names, 'f')}(st, {_l(held)})")
        lines += [f"st.run_together({_l(held)}, {first if first is not None else 'None'})", f"{_l(held)} = ()"]
        self.emit(F.STMT, lines, pos, (F.TOGETHER,))
        self.scope.pop()
        # an action that ends the turn cannot be run from here (RW153 says so)
        self.c.offers.extend((a, False, pos) for a in actions)

    def step_call(self, step: LDict, pos: Pos):
        name = step["call"]
        proc_decl = self.c.procedures.get(name)
        if proc_decl is None:
            self.report.error(step.pos_of("call"), f"unknown procedure '{name}'{suggest(name, self.c.procedures)}",
                              E_NAME)
            return
        args = self._bind_args(proc_decl, step.get("with") or {}, step, f"procedure '{name}'")
        if args is None:
            return
        self.emit(F.CALL, [], pos, call=(proc_decl, args))

    def _bind_args(self, proc: Procedure, args, step, what):
        """The new locals of a call as ``[(slot, text)]`` in the order they are written: the
        seat first (the caller's, unless ``player:`` names another), then the arguments."""
        params = {n: (slot, t) for n, slot, t in proc.params}
        out = [(0, _l(0))]
        for key, value in (args.items() if isinstance(args, dict) else []):
            vpos = args.pos_of(key) if isinstance(args, LDict) else step.pos
            if key == "player":
                s, t = self.text(value, vpos, "player")
                if s is not None:
                    out.append((0, s))
                continue
            if key not in params:
                self.report.error(args.key_pos.get(key, vpos) if isinstance(args, LDict) else vpos,
                                  f"{what} has no parameter '{key}'{suggest(key, params)}", E_NAME)
                continue
            slot, ptype = params[key]
            s, t = self.text(value, vpos, key)
            if s is None:
                continue
            if isinstance(ptype, T.ListT) and isinstance(t, T.ZoneT):
                s = f"tuple({contents_of(s, self.cx(self.gen))})"
                t = T.ListT(T.elem_of(t))
            if not T.compatible(t, ptype):
                self.report.error(vpos, f"parameter '{key}' of {what} is {T.describe(ptype)}, not {T.describe(t)}",
                                  E_TYPE)
            if T.depth_unbounded(t):
                s = self.gen.guard(f"{self.bind(bounded, 'f')}({s})", vpos, f"parameter '{key}'")
            out.append((slot, s))
        missing = [n for n in params if n not in (args or {})]
        if missing:
            self.report.error(step.pos, f"{what} needs {', '.join(missing)} (with: ...)", E_NAME)
            return None
        return out

    def _new_locals(self, proc: Procedure, args: list) -> list:
        """Lines that fill ``_w_new`` with a frame's locals for ``proc`` (its size is known
        only when it runs: it may be compiled after this step)."""
        lines = [f"_w_new = [None] * ({self.bind(proc, 'proc')}.nslots or 1)"]
        lines += [f"_w_new[{int(slot)}] = {text}" for slot, text in args]
        return lines

    def step_emit(self, step: LDict, pos: Pos):
        name = step["emit"]
        fields = step.get("with") or {}
        parts = []
        for key, value in fields.items():
            s, _ = self.text(value, fields.pos_of(key), key)
            if s is not None:
                parts.append(f"{self.bind(str(key), 's')}: {s}")
        record = f"{self.bind(Record.of, 'R')}({{{', '.join(parts)}}})"
        self.emit(F.STMT, [f"st.emit({self.bind(name, 's')}, {record}, {self.bind(pos, 'pos')})"], pos, (name,))

    def step_defer(self, step: LDict, pos: Pos):
        name = step["defer"]
        proc_decl = self.c.procedures.get(name)
        if proc_decl is None:
            self.report.error(step.pos_of("defer"), f"unknown procedure '{name}'{suggest(name, self.c.procedures)}",
                              E_NAME)
            return
        until = step.get("until")
        self.c.deferrals.append((until, step.pos_of("until")))
        args = self._bind_args(proc_decl, step.get("with") or {}, step, f"procedure '{name}'")
        if args is None:
            return
        once = bool(step.get("once", False))
        lines = self._new_locals(proc_decl, args)
        lines.append(f"st.defer({self.bind(until, 's')}, {self.bind(proc_decl, 'proc')}, _w_new, {once}, "
                     f"{self.bind(pos, 'pos')})")
        self.emit(F.STMT, lines, pos)

    def step_end_game(self, step: LDict, pos: Pos):
        reason = step.get("end_game")
        lines = []
        if isinstance(reason, str):
            text, pre = self.template(reason, step.pos_of("end_game"))
            lines += ["if st.logging:", *("    " + line for line in pre),
                      f"    st.log.append({self.bind('game ends: ', 's')} + {text})"]
        lines.append("st.end_game()")
        self.emit(F.END_GAME, lines, pos)

    def step_log(self, step: LDict, pos: Pos):
        text, pre = self.template(step["log"], step.pos_of("log"))
        self.emit(F.STMT, ["if st.logging:", *("    " + line for line in pre),
                           f"    st.log.append({self.bind(_log_line, 'f')}({text}))"], pos)

    def template(self, text, pos: Pos):
        """A log text with ``{expression}`` parts as Python text that joins them, and the
        statements that compute the parts first (run only when there is a log)."""
        saved = self.take_pre()
        parts = []
        last = 0
        fmt = self.bind(format_value, "f")
        for m in re.finditer(r"\{([^{}]*)\}", text):
            if m.start() > last:
                self.g.log_words.update(str(text[last:m.start()]).split())
                parts.append(self.bind(str(text[last:m.start()]), "s"))
            ipos = text.pos_at(m.start(1)) if hasattr(text, "pos_at") else pos
            s, _ = self.text(_sub(text, m.start(1), m.end(1)), ipos, "log")
            parts.append(f"{fmt}({s})" if s is not None else self.bind("?", "s"))
            last = m.end()
        if last < len(text):
            self.g.log_words.update(str(text[last:]).split())
            parts.append(self.bind(str(text[last:]), "s"))
        pre = self.take_pre()
        self.pre = saved
        if not parts:
            return self.bind("", "s"), pre
        return f"''.join(({', '.join(parts)},))", pre

    def step_break(self, step: LDict, pos: Pos):
        """``break: true`` leaves the innermost for / while / repeat loop around it
        in the same steps (never out of an action, a called procedure, a turn
        or a phase, round or scope, whose end would be skipped)."""
        inner = self.loops[-1] if self.loops else None
        if inner is None or not isinstance(inner, LoopInfo) or inner.kind == "turns":
            where = ("no loop around it in these steps" if inner is None else
                     "the innermost block around it is a turn" if isinstance(inner, LoopInfo) else
                     f"it would leave the {inner.kind} '{inner.name}' without ending it")
            self.report.error(pos, "break leaves a for, while or repeat loop of the same steps; "
                                   f"{where}", "RW151")
            return
        ins = self.emit(F.BREAK, [], pos)
        inner.extra["exits"].append(ins)

    def step_reveal(self, step: LDict, pos: Pos):
        """``reveal: ZONE(S), to: SEAT(S)``: the seats know what the zones hold
        (their observations show it, ``known(p, z)`` is true) until the contents
        change.  ``to`` defaults to ``player``."""
        zpos = step.pos_of("reveal")
        tpos = step.pos_of("to") if "to" in step else pos
        values = self._revealed_values(step["reveal"], zpos)
        if values is not None:
            ts, tt = self.text(step.get("to", "player"), tpos, "'to'")
            if ts is not None and values:
                self.emit(F.STMT, [f"{self.bind(_reveal_values, 'f')}(st, {values[0]}, {values[1]}, {ts}, "
                                   f"{self.bind(tpos, 'pos')})"], pos, (F.CHANGED,))
            return
        zs, zt = self.text(step["reveal"], zpos, "what to reveal")
        ts, tt = self.text(step.get("to", "player"), tpos, "'to'")
        if zs is None or ts is None:
            return
        one_zone = isinstance(zt, T.ZoneT)
        if not (one_zone or T.is_any(zt) or (isinstance(zt, (T.ListT, T.TupleT)) and
                                             (isinstance(T.elem_of(zt), T.ZoneT) or T.is_any(T.elem_of(zt))))):
            self.report.error(zpos, f"reveal shows a zone or a list of zones, but this is {T.describe(zt)}", E_TYPE)
            return
        if not (tt in (T.PLAYER, T.INT) or T.is_any(tt) or (isinstance(tt, (T.ListT, T.TupleT)) and
                                                            T.elem_of(tt) in (T.PLAYER, T.INT, T.ANY))):
            self.report.error(tpos, f"'to' names a seat or a list of seats, but this is {T.describe(tt)}", E_TYPE)
            return
        fam = self._family_of(step["reveal"])
        if fam is not None and fam.visible_const is True:
            self.report.warning(zpos, f"zone '{fam.name}' is visible to everyone: revealing it changes nothing",
                                "RW152")
        self.emit(F.STMT, [f"{self.bind(_reveal, 'f')}(st, {zs}, {ts}, {self.bind(tpos, 'pos')})"], pos,
                  (F.CHANGED,))

    def step_tell(self, step: LDict, pos: Pos):
        """``tell: "c.ATTR == VALUE", about: "c in ZONE", to: SEATS``: the seats are told, for
        each component c, whether c.ATTR equals VALUE (``!=``: the same fact, written the other
        way).  Without ``about:``, ``tell: CONDITION``: the seats are told whether the condition
        holds now (``count([c for c in hand[p] if c.suit == led]) == 0``, a bound, a comparison).
        Facts are data (``State.facts``): kept per seat, shown in its observation (a fact about a
        component while the component is hidden from it), in its record, and honoured by
        ``resample``."""
        tpos = step.pos_of("tell")
        if "about" not in step:         # a condition told as it stands now
            cs = self.cond_text(step["tell"], tpos, "what 'tell' states")
            ts, _tt = self.text(step.get("to", "player"), step.pos_of("to") if "to" in step else pos, "'to'")
            if cs is None or ts is None:
                return
            said = " ".join(str(step["tell"]).split())
            self.emit(F.STMT, [f"{self.bind(_tell_that, 'f')}(st, {self.bind(said, 's')}, {cs}, {ts}, "
                               f"{self.bind(pos, 'pos')})"], pos)
            return
        parsed = self.loop_head(step, "about", "what 'tell' is about")
        if parsed is None:
            return
        head, its, elem = parsed
        if len(head.names) != 1:
            self.report.error(head.pos, "tell is about one name: about: \"c in hand[p]\"", E_TYPE)
            return
        name = head.names[0]
        node = self.c.parse(step["tell"], tpos)
        if node is None:
            return
        shape = "tell states c.ATTRIBUTE == VALUE or c.ATTRIBUTE != VALUE"
        if not isinstance(node, ast.Compare) or node.op not in ("==", "!="):
            self.report.error(node.pos, shape, E_TYPE)
            return
        attr, other = node.left, node.right
        if not (isinstance(attr, ast.Attr) and isinstance(attr.obj, ast.Name) and attr.obj.id == name):
            attr, other = other, attr
        if not (isinstance(attr, ast.Attr) and isinstance(attr.obj, ast.Name) and attr.obj.id == name):
            self.report.error(node.pos, f"{shape} (c: '{name}', the name 'about' binds)", E_TYPE)
            return
        if not (isinstance(elem, T.Comp) or T.is_any(elem)):
            self.report.error(head.iter.pos, f"tell is about components, but these are {T.describe(elem)}", E_TYPE)
            return
        self.scope.push()
        self.scope.declare(name, elem)
        self.text_of(attr, "tell")          # checks that the attribute exists
        self.scope.pop()
        vs, _ = self.text_of(other, "the value told")
        ts, tt = self.text(step.get("to", "player"), step.pos_of("to") if "to" in step else pos, "'to'")
        if vs is None or ts is None:
            return
        self.g.tell_attrs.add(attr.name)
        fact = (attr.name, node.op == "==", f"{attr.name} {node.op} {{}}")
        self.emit(F.STMT, [f"{self.bind(_tell, 'f')}(st, tuple({its}), {self.bind(fact, 'k')}, {vs}, {ts}, "
                           f"{self.bind(pos, 'pos')})"], pos)

    def _revealed_values(self, text, pos: Pos):
        """``reveal: "die"`` or ``"die[q]"`` (the first index values of a variable with more):
        (family id or None for a scalar, the key prefix as text) — or None when ``text``
        names no variable (then it is zones), () after an error."""
        m = re.match(r"\s*([A-Za-z_][A-Za-z_0-9]*)\s*(\[|$)", str(text))
        if m is None or m.group(1) not in self.g.variables or self.scope.lookup(m.group(1)) is not None:
            return None
        var = self.g.variables[m.group(1)]
        node = self.c.parse(text, pos)
        if node is None:
            return ()
        if var.visible_const is True:
            self.report.warning(pos, f"variable '{var.name}' is visible to everyone: revealing it changes nothing",
                                "RW152")
        if isinstance(node, ast.Name):
            return (str(int(var.family_id)), "()") if var.index else ("None", str(int(var.offset)))
        if not isinstance(node, ast.Index) or not var.index or len(node.args) > len(var.index):
            self.report.error(node.pos, f"reveal shows a variable ('{var.name}') or the elements with the first "
                                        f"index values given ('{var.name}[q]')", E_TYPE)
            return ()
        parts = []
        for arg, spec in zip(node.args, var.index):
            s_, t_ = self.text_of(arg, "reveal")
            if not T.compatible(t_, spec.type):
                self.report.error(arg.pos, f"variable '{var.name}': index '{spec.name}' is {T.describe(spec.type)}, "
                                           f"not {T.describe(t_)}", E_TYPE)
            parts.append(s_)
        return str(int(var.family_id)), "(" + "".join(f"{x}, " for x in parts) + ")"

    def _enclosing_turn(self):
        """The innermost `turns` loop around this point in the same steps, if no phase,
        round or scope lies between (its end would be skipped); else None."""
        for info in reversed(self.loops):
            if isinstance(info, ScopeInfo):
                return None
            if info.kind == "turns":
                return info
        return None

    def step_end_turn(self, step: LDict, pos: Pos):
        """``end_turn: true`` ends the current turn at once.  In the steps of a `turns`
        loop: the rest of the turn is skipped.  In an action's own steps: the rest of
        the action is skipped, the action ends, and so does the turn in which it was
        chosen.  Anywhere else (a procedure, a trigger, inside a phase, round or scope
        within the turn or the action) it is RW153."""
        turn = self._enclosing_turn()
        if turn is not None:
            # to the turn's last instruction (its tail: end the turn, next seat), known when the loop is done
            turn.extra.setdefault("ends", []).append(self.emit(F.END_TURN, [], pos))
            return
        action = self.c.game.action_by_proc.get(self.proc.name) if self.proc.kind == "action" else None
        inside_scope = any(isinstance(info, ScopeInfo) for info in self.loops)
        if action is None or inside_scope or self._in_turns_loop():
            where = ("it is inside a phase, round or scope whose end it would skip" if inside_scope or
                     self._in_turns_loop() else "it is neither in a turns loop of the same steps nor in an "
                                                "action's own steps")
            self.report.error(pos, f"end_turn ends the turn around it; {where}", "RW153")
            return
        action.ends_turn.append(pos)

        def end_action_and_turn(st, fr):
            below = st.frames[-2] if len(st.frames) >= 2 else None
            loop = below.proc.turn_exits.get(below.pc) if below is not None else None
            if loop is None:
                raise RuleRuntimeError("end_turn: the decision that chose this action was not taken in a turn",
                                       pos)
            fr.pc = len(fr.code) - 1            # the action's last instruction: the action ends
            below.pc = loop["end"] - 1          # then the turn's: the turn ends
        self.emit(F.END_TURN, [f"{self.bind(end_action_and_turn, 'f')}(st, fr)"], pos)

    def _in_turns_loop(self) -> bool:
        return any(isinstance(info, LoopInfo) and info.kind == "turns" for info in self.loops)

    def step_fail(self, step: LDict, pos: Pos):
        self.emit(F.STMT, [f"raise {self.error(str(step['fail']), pos)}()"], pos)


def _sub(text, start, end):
    """A located substring of a located string."""
    from dsl.yamlload import located_str
    if hasattr(text, "pos_at"):
        return located_str(str(text)[start:end], text.pos_at(start))
    return str(text)[start:end]


def _no_entry(name: str, pos: Pos):
    """A custom span: a missing key of variable family ``name`` is "there is no name[k]"."""
    def convert(exc):
        if isinstance(exc, KeyError):
            return RuleRuntimeError(f"there is no {name}[{format_value(exc.args[0] if exc.args else '?')}]", pos)
        return None
    return convert


def _clamp(value, bounds):
    """``value`` within the layout's bounds of its variable (None: no bounds)."""
    if bounds is None:
        return value
    lo, hi = bounds
    if lo is not None and value < lo:
        return lo
    if hi is not None and value > hi:
        return hi
    return value


def together_names(st, held) -> list:
    """The name of the action each seat chose in a decision taken together (``as:``),
    indexed by seat; none for a seat that took no part."""
    names = [None] * st.lay.num_seats
    by_proc = st.game.action_by_proc
    for who, name, _values in held:
        if name is not None:
            names[who] = by_proc[name].name
    return names


def together_seats(st, seats) -> tuple:
    """The seats of a decision taken together, in seat order: those of ``seats`` (every seat
    when None), automata left out (the rules act for them)."""
    auto = st.lay.automata
    if seats is None:
        return tuple(s for s in range(st.lay.num_seats) if s not in auto)
    return tuple(sorted({s for s in seats if s not in auto}))


def bind_slots(old: tuple, value) -> tuple:
    """Several loop names at once, ``for a, b in pairs``: the names' new values (the first
    ones from ``value``, as far as it goes; the others keep ``old``)."""
    value = tuple(value)
    return value[:len(old)] + old[len(value):]


def _components(st, w, pos):
    """What a move step moves: a zone's contents, a list, or one component."""
    if isinstance(w, Zone):
        return tuple(st.z[w.id])
    if w is None:
        raise RuleRuntimeError("nothing to move (none)", pos)
    if not isinstance(w, (tuple, list)):
        return (w,)
    return tuple(w)


def _log_line(line: str) -> str:
    if len(line) > LIMITS.log_chars:
        line = line[:LIMITS.log_chars] + f"… ({len(line):,} characters, cut)"
    return line


def _reveal(st, zones, seats, to_pos):
    zones = (zones,) if isinstance(zones, Zone) else tuple(zones)
    seats = (seats,) if seats is None or isinstance(seats, int) else tuple(seats)
    if any(p is None for p in seats):
        raise RuleRuntimeError("reveal: 'to' names no seat (none)", to_pos)
    st.reveal(zones, seats)


def _tell(st, comps, fact, value, seats, pos):
    seats = (seats,) if seats is None or isinstance(seats, int) else tuple(seats)
    if any(p is None for p in seats):
        raise RuleRuntimeError("tell: 'to' names no seat (none)", pos)
    attr, equal, _ = fact
    st.tell(seats, [(c.id, attr, value, (c.attribute(attr) == value) == equal) for c in comps], equal)


def _tell_that(st, text, holds, seats, pos):
    seats = (seats,) if seats is None or isinstance(seats, int) else tuple(seats)
    if any(p is None for p in seats):
        raise RuleRuntimeError("tell: 'to' names no seat (none)", pos)
    st.tell_that(seats, text, bool(holds))


def _reveal_values(st, family, prefix, seats, to_pos):
    """``reveal`` of variables: the elements of variable family ``family`` whose first
    index values are ``prefix`` (a scalar: ``family`` None, ``prefix`` its slot)."""
    seats = (seats,) if seats is None or isinstance(seats, int) else tuple(seats)
    if any(p is None for p in seats):
        raise RuleRuntimeError("reveal: 'to' names no seat (none)", to_pos)
    if family is None:
        slots = (prefix,)
    else:
        n = len(prefix)
        slots = tuple(at for key, at in st.vk[family].items()
                      if (key if isinstance(key, tuple) else (key,))[:n] == prefix)
    st.reveal_values(slots, seats)


_STEPS = {
    "set": StepCompiler.step_set,
    "let": StepCompiler.step_let,
    "move": StepCompiler.step_move,
    "draw": StepCompiler.step_draw,
    "shuffle": StepCompiler.step_shuffle,
    "if": StepCompiler.step_if,
    "for": StepCompiler.step_for,
    "while": StepCompiler.step_while,
    "random": StepCompiler.step_random,
    "repeat": StepCompiler.step_repeat,
    "turns": StepCompiler.step_turns,
    "phase": StepCompiler.step_scope,
    "round": StepCompiler.step_scope,
    "scope": StepCompiler.step_scope,
    "decide": StepCompiler.step_decide,
    "call": StepCompiler.step_call,
    "emit": StepCompiler.step_emit,
    "defer": StepCompiler.step_defer,
    "end_game": StepCompiler.step_end_game,
    "log": StepCompiler.step_log,
    "fail": StepCompiler.step_fail,
    "break": StepCompiler.step_break,
    "reveal": StepCompiler.step_reveal,
    "tell": StepCompiler.step_tell,
    "end_turn": StepCompiler.step_end_turn,
}

#: the keys that make a YAML mapping a step (for tools that read rulebooks: coverage, mutation)
STEP_KINDS = tuple(_STEPS) + ("bidding",)      # a bidding step is written out as other steps (engine/compile/bidding.py)
