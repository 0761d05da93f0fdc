"""Compile step lists (effects, flow) into instructions written as Python text.

Each step of the YAML becomes one or more instructions (:class:`flowcode.Ins`)
of a :class:`model.Procedure`: the Python statements of what the step does,
with the rulebook's expressions written in (``exprs.py``, one
:class:`codegen.Gen` per procedure holding the names they refer to), and
what the instruction is to the flow (a branch, a loop's head, a call, a
decision…).  Loops and branches become jumps between program counters, and
the steps' structure is recorded beside them (``Procedure.tree``);
``flowcode.py`` writes the statements out as the functions the
run loop calls.  Where a rule's step *means* something — what a ``turns``
loop does, when a deferred effect runs — is decided here (the compile side)
and in :mod:`interpreter.runtime` (the run side: ``State.move``,
``State.draw``, ``State.scope_end``, …, which the statements call).

:class:`StepCompiler` holds what every step needs (emitting an instruction, writing an
expression in, scopes); its steps are in its parts, by family: effects.py (what changes the
state or tells the seats), control.py (branches, loops, turns, scopes, calls), decisions.py
(``decide``, alone or together).
"""
from __future__ import annotations

from functools import partial

from dsl.diagnostics import Pos, RuleRuntimeError
from dsl.yamlload import LList

from . import types as T
from .codegen import Gen
from .context import Cx, Scope, gen_cond, guard, E_TYPE
from .exprs import compile_expr, gen_text
from . import flowcode as F
from .model import Procedure
from ..run.frames import ScopeRec
from .effects import EffectSteps
from .control import ControlSteps
from .decisions import DecisionSteps


class StepCompiler(EffectSteps, ControlSteps, DecisionSteps):
    """Compiles the steps of one procedure: the helpers every step uses, here; the steps
    themselves in its parts (effects.py, control.py, decisions.py), one ``step_*`` method each."""

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
        if F.CHANGED in self.g.live:        # unless no condition reads it (dependencies.plan_conditions)
            flags = self.g.condition_flags
            flag = flags.get(variable)
            if flag is None:                # before plan_conditions (None then): True, set by it
                reads = self.g.condition_reads
                flag = flags[variable] = [reads is None or variable in reads]
            lines.append(f"if {self.bind(flag, 'cc')}[0]:")
            lines.append("    st.changed(())")
        return lines

    def scope_start(self, kind: str, name: str) -> str:
        """The start of a scope: ``State.scope_start``, or only the record of the open
        scope when no trigger listens for its start (GameDef.live)."""
        args = f"{self.bind(kind, 's')}, {self.bind(name, 's')}"
        if f"{kind}_start" in self.g.live:
            return f"st.scope_start({args})"
        # one record serves every run of the scope: nothing changes it (State.defer gives the open
        # scope a record of its own before it defers anything to it)
        return f"st.scopes.append({self.bind(ScopeRec(kind, name), 'R')})"

    def scope_end(self, kind: str, name: str) -> str:
        """The end of a scope: ``State.scope_end`` where a trigger listens for it (or an invariant
        is checked then); else forgetting the open scope, and running what was deferred to it
        where the game defers anything (``State.push_deferred``, only for a scope that got some)."""
        if f"{kind}_end" in self.g.live:
            return f"st.scope_end({self.bind(kind, 's')}, {self.bind(name, 's')})"
        if F.DEFERRED in self.g.live and self.g.deferred_to(kind, name):    # only what was deferred to it
            return "(_rw_sc := st.scopes.pop()).deferred and st.push_deferred(_rw_sc)"
        return "st.scopes.pop()"

    def scope_end_pushes(self, kind: str, name: str) -> tuple:
        """What the end of a scope may set off (Ins.pushes): its event, and the effects deferred to
        it where anything may be (GameDef.deferred_to); a scope's end that sets off nothing live
        leaves a procedure that cannot stop (flowcode.direct_function)."""
        return (f"{kind}_end",) + ((F.DEFERRED,) if self.g.deferred_to(kind, name) else ())

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
