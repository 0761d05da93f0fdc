"""Step runs as generated code: the order in which a procedure's instructions run, as Python.

:mod:`interpreter.steps` compiles every step into instructions — closures
``ins(state, frame)`` at a program counter (pc) of the procedure, which say
what a step *means* — and records the steps' structure as a small tree
(:class:`Leaf`, :class:`If`, :class:`Loop`, :class:`Scope`, :class:`Decide`).
This module turns that tree into Python source that calls the same closures
in the same order, with the rulebook's loops and branches as Python
``while`` and ``if``: the run loop (:func:`interpreter.runtime.run`) then
calls one generated function per stretch of steps instead of one closure per
step.  Nothing here decides what a step does; it only replaces the jumps
between instructions.

A frame can stop anywhere a game may suspend or another frame must run first:
a decision, a ``call``, a trigger or a deferred effect pushed by a move, a set
or the end of a scope.  The generated code then stores the pc where the frame
goes on and returns; the frame resumes there later (after the other frame, the
decision, a ``clone``, ``to_json``/``from_json``).  Every pc of a procedure
therefore has an *entry*: a function generated, on first use, for the rest of
the procedure from that pc — the rest of the steps around it, then each
enclosing loop from its head, out to the end of the procedure.
``Procedure.entries[pc]`` holds it; the run loop calls ``entries[fr.pc]``.

The closures keep their protocol: a branch or a loop head says where to go on
by setting ``frame.pc`` (the generated code sets ``frame.pc = pc + 1`` first,
as the run loop did, and compares after); a decision returns True.  The only
instructions not called are a loop's jump back to its head and an ``if``'s
jump over the ``else``, which do nothing else.  When coverage is measured
(``interpreter.coverage``) every entry is the instruction itself, one per pc,
as before.

A loop counts its iterations against the steps limit (``LIMITS.steps``, or
the limit given to ``run``): an endless loop is the same located RW910 error.
A fault inside the generated code is located at the step it ran, from the
line it failed on (:func:`pc_of_failure`).
"""
from __future__ import annotations

from dsl.diagnostics import RuleRuntimeError

#: leaf kinds: what the generated code does after the instruction
QUIET = "quiet"        # never starts another frame (let, log, a local set, fail)
EFFECT = "effect"      # may start a trigger's or a deferred effect's frame: look, and stop if so
CALL = "call"          # starts a frame: stop
DECIDE = "decide"      # True: a decision is pending, stop
JUMP = "jump"          # sets the frame's pc itself (end_turn): stop
END_GAME = "end_game"  # the game's frames are gone: stop
BREAK = "break"        # leave the innermost loop


class Leaf:
    __slots__ = ("pc", "kind", "start", "stop")

    def __init__(self, pc: int, kind: str):
        self.pc = pc
        self.kind = kind
        self.start = pc
        self.stop = pc + 1


class Decide:
    """A decide step at ``pc``; its ``otherwise`` steps follow it."""
    __slots__ = ("pc", "otherwise", "start", "stop")

    def __init__(self, pc: int, otherwise: list, stop: int):
        self.pc, self.otherwise, self.start, self.stop = pc, otherwise, pc, stop


class If:
    """The branch at ``pc`` goes to ``then`` (pc + 1 …) or, having set the pc, to ``orelse``;
    ``jump`` is the pc of the jump over the else (None without one)."""
    __slots__ = ("pc", "then", "orelse", "jump", "start", "stop")

    def __init__(self, pc: int, then: list, orelse: list | None, jump: int | None, stop: int):
        self.pc, self.then, self.orelse, self.jump, self.start, self.stop = pc, then, orelse, jump, pc, stop


class Loop:
    """``init`` (or None) once; then the ``head``, which leaves the loop by setting the pc,
    then the ``body``, then the ``tail`` at ``tail`` (called only when ``tail_runs``: a
    turn's end; else it only jumps back to the head)."""
    __slots__ = ("init", "head", "body", "tail", "tail_runs", "start", "stop")

    def __init__(self, init: int | None, head: int, body: list, tail: int, tail_runs: bool):
        self.init, self.head, self.body, self.tail, self.tail_runs = init, head, body, tail, tail_runs
        self.start = head if init is None else init
        self.stop = tail + 1


class Scope:
    """A phase, round or scope: its start at ``begin``, the body, its end at ``end``."""
    __slots__ = ("begin", "body", "end", "start", "stop")

    def __init__(self, begin: int, body: list, end: int):
        self.begin, self.body, self.end, self.start, self.stop = begin, body, end, begin, end + 1


class _Writer:
    def __init__(self):
        self.lines: list[str] = []
        self.pcs: list[int] = []      # the pc each line runs (for locating a fault)

    def put(self, depth: int, text: str, pc: int = -1) -> None:
        self.lines.append("    " * depth + text)
        self.pcs.append(pc)

    # --- a node from its start ------------------------------------------------
    # Each method returns True when control never goes on to the next statement
    # (a call, a jump, the game's end, a break): the rest is not written.
    def seq(self, nodes: list, d: int) -> bool:
        for node in nodes:
            if self.node(node, d):
                return True
        return False

    def node(self, n, d: int) -> bool:
        if isinstance(n, Leaf):
            return self.leaf(n, d)
        if isinstance(n, If):
            self.put(d, f"fr.pc = {n.pc + 1}", n.pc)
            self.put(d, f"_i{n.pc}(st, fr)", n.pc)
            self.put(d, f"if fr.pc == {n.pc + 1}:", n.pc)
            ends = self.block(n.then, d + 1)
            if not n.orelse:
                return False
            self.put(d, "else:", n.pc)
            return self.block(n.orelse, d + 1) and ends
        if isinstance(n, Loop):
            if n.init is not None:
                self.put(d, f"_i{n.init}(st, fr)", n.init)
            self.loop(n, d)
            return False
        if isinstance(n, Scope):
            self.effect(n.begin, d)
            if self.seq(n.body, d):
                return True
            self.effect(n.end, d)
            return False
        if isinstance(n, Decide):
            self.put(d, f"fr.pc = {n.pc + 1}", n.pc)
            self.put(d, f"if _i{n.pc}(st, fr):", n.pc)
            self.put(d + 1, "return True", n.pc)
            return self.seq(n.otherwise, d)
        raise TypeError(f"not a step node: {n!r}")  # pragma: no cover

    def block(self, nodes: list, d: int) -> bool:
        before = len(self.lines)
        ends = self.seq(nodes, d)
        if len(self.lines) == before:
            self.put(d, "pass")
        return ends

    def leaf(self, n: Leaf, d: int) -> bool:
        pc, kind = n.pc, n.kind
        if kind == BREAK:
            self.put(d, "break", pc)
            return True
        if kind == QUIET:
            self.put(d, f"_i{pc}(st, fr)", pc)
            return False
        if kind == EFFECT:
            self.effect(pc, d)
            return False
        if kind == CALL:
            self.put(d, f"_i{pc}(st, fr)", pc)
            self.put(d, f"fr.pc = {pc + 1}", pc)
        elif kind == JUMP:
            self.put(d, f"fr.pc = {pc + 1}", pc)
            self.put(d, f"_i{pc}(st, fr)", pc)
        elif kind == END_GAME:
            self.put(d, f"_i{pc}(st, fr)", pc)
        else:  # pragma: no cover - the step compiler makes no other kind
            raise ValueError(f"unknown leaf kind {kind!r}")
        self.put(d, "return", pc)
        return True

    def effect(self, pc: int, d: int) -> None:
        self.put(d, f"_i{pc}(st, fr)", pc)
        self.put(d, "if frames[-1] is not fr:", pc)
        self.put(d + 1, f"fr.pc = {pc + 1}", pc)
        self.put(d + 1, "return", pc)

    def loop(self, n: Loop, d: int) -> None:
        """The loop from its head (its state is in the frame's locals)."""
        h = n.head
        self.put(d, "while True:", h)
        self.put(d + 1, f"fr.pc = {h + 1}", h)
        self.put(d + 1, f"_i{h}(st, fr)", h)
        self.put(d + 1, f"if fr.pc != {h + 1}:", h)
        self.put(d + 2, "break", h)
        self.put(d + 1, "if frames[-1] is not fr:", h)
        self.put(d + 2, "return", h)
        self.put(d + 1, f"_n += {n.stop - h}", h)
        self.put(d + 1, "if _n > st.step_limit:", h)
        self.put(d + 2, f"_rw_endless(fr, {h}, st.step_limit)", h)
        if not self.seq(n.body, d + 1) and n.tail_runs:
            self.tail(n, d + 1)

    def tail(self, n: Loop, d: int) -> None:
        self.put(d, f"_i{n.tail}(st, fr)", n.tail)       # sets the pc to the head
        self.put(d, "if frames[-1] is not fr:", n.tail)
        self.put(d + 1, "return", n.tail)

    # --- the rest of a node from a pc inside it ------------------------------------
    def seq_from(self, nodes: list, pc: int, d: int) -> bool:
        """The nodes from ``pc`` on (``pc`` may lie inside one of them, or past them all)."""
        for i, node in enumerate(nodes):
            if node.start <= pc < node.stop:
                ends = self.node(node, d) if pc == node.start else self.resume(node, pc, d)
                return ends or self.seq(nodes[i + 1:], d)
        return False

    def resume(self, n, pc: int, d: int) -> bool:
        if isinstance(n, If):
            if pc < (n.jump if n.jump is not None else n.stop):
                return self.seq_from(n.then, pc, d)
            if n.jump is not None and pc > n.jump:
                return self.seq_from(n.orelse, pc, d)
            return False
        if isinstance(n, Decide):
            return self.seq_from(n.otherwise, pc, d)
        if isinstance(n, Scope):
            if pc < n.end and self.seq_from(n.body, pc, d):
                return True
            self.effect(n.end, d)
            return False
        if isinstance(n, Loop):
            if pc == n.head:
                self.loop(n, d)
            elif pc == n.tail:
                if n.tail_runs:
                    self.tail(n, d)
                self.loop(n, d)
            else:
                # the rest of this round of the loop, then the loop; a `break` in the rest
                # leaves the one-round loop and skips its else
                self.put(d, "for _ in _rw_once:", n.head)
                before = len(self.lines)
                ends = self.seq_from(n.body, pc, d + 1)
                if not ends and n.tail_runs:
                    self.tail(n, d + 1)
                if len(self.lines) == before:
                    self.put(d + 1, "pass")
                if not ends:        # the next round: the entry at the head has the loop
                    self.put(d, "else:", n.head)
                    self.put(d + 1, f"fr.pc = {n.head}", n.head)
                    self.put(d + 1, "return", n.head)
            # after the loop, go on with the entry there: writing the loop and the loops
            # around it out again in every entry inside them would make the code quadratic
            self.put(d, f"fr.pc = {n.stop}", n.tail)
            self.put(d, "return", n.tail)
            return True
        raise TypeError(f"not a step node: {n!r}")  # pragma: no cover


def entry_source(tree: list, pc: int, ncode: int) -> tuple[str, list[int]]:
    """The source of ``entry(st, fr)``, the rest of the procedure from ``pc``, and its line → pc map."""
    w = _Writer()
    w.put(1, "frames = st.frames")
    w.put(1, "_n = 0")
    w.seq_from(tree, pc, 1)
    w.put(1, f"fr.pc = {ncode}")
    return "def _rw_entry(st, fr):\n" + "\n".join(w.lines) + "\n", [-1] + w.pcs


def _endless(fr, pc: int, limit: int):
    raise RuleRuntimeError(f"the rules ran {limit:,} steps without reaching a decision (an endless loop? "
                           f"limit 'steps')", fr.proc.pos_at(pc), "RW910")


_BUILTINS: dict = {}
_counter = [0]


def make_entry(proc, pc: int):
    """Generate and compile the entry of ``proc`` at ``pc``; the instruction itself where
    Python cannot compile the text (a rulebook nesting loops deeper than Python nests blocks)."""
    src, pcs = entry_source(proc.tree, pc, len(proc.code))
    ns = {f"_i{i}": ins for i, ins in enumerate(proc.code)}
    ns.update(__builtins__=_BUILTINS, _rw_once=(None,), _rw_endless=_endless, _rw_pcs=pcs, _rw_proc=proc)
    _counter[0] += 1
    try:
        code = compile(src, f"<steps of {proc.name} from {pc} #{_counter[0]}>", "exec")
    except (SyntaxError, RecursionError, MemoryError):
        return proc.code[pc]
    exec(code, ns)  # noqa: S102 - our own generated text, no user data
    fn = ns["_rw_entry"]
    fn.__doc__ = src
    return fn


def pc_of_failure(exc: BaseException, proc):
    """The pc of ``proc`` whose instruction raised ``exc`` inside generated step code, or None."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        g = tb.tb_frame.f_globals
        if g.get("_rw_proc") is proc:
            pcs = g["_rw_pcs"]
            line = tb.tb_lineno - 1
            if 0 <= line < len(pcs) and pcs[line] >= 0:
                found = pcs[line]
        tb = tb.tb_next
    return found


def lazy_entries(proc) -> list:
    """``proc``'s entries, each generated on its first call."""
    entries = []

    def stub_for(pc):
        def stub(st, fr):
            fn = make_entry(proc, pc)
            entries[pc] = fn
            return fn(st, fr)
        return stub
    entries.extend(stub_for(pc) for pc in range(len(proc.code)))
    return entries
