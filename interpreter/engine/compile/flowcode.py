"""Procedures as generated code: what each step does and the order the steps run in, as Python.

:mod:`interpreter.steps` compiles every step into one or more *instructions*,
each an :class:`Ins` at a program counter (pc) of the procedure: the Python
statements of what it does (the rulebook's expressions written in, as
:mod:`interpreter.exprs` writes them) and what it is to the flow — a plain
statement, a branch, a loop's head or tail, a scope's start or end, a
decision, a call.  Beside them it records the steps' structure as a small
tree (:class:`Leaf`, :class:`If`, :class:`Loop`, :class:`Scope`,
:class:`Decide`).  This module writes them out as Python functions; nothing
here decides what a step means.

A frame can stop anywhere a game may suspend or another frame must run first:
a decision, a ``call`` of a procedure that may suspend, a trigger or a
deferred effect pushed by a move, a set or the end of a scope.  The generated
code then stores the pc where the frame goes on and returns; the frame resumes
there later (after the other frame, the decision, a ``clone``,
``to_json``/``from_json``).  Every pc of a procedure therefore has an *entry*:
a function ``entry(st, fr)``, generated on first use, for the rest of the
procedure from that pc — the rest of the steps around it, then each
enclosing loop from its head, out to the end of the procedure.
``Procedure.entries[pc]`` holds it; the run loop calls ``entries[fr.pc]``.

Which effects can start another frame is known when the code is written
(``GameDef.live``): a move only where some trigger listens for ``moved`` or a
condition trigger exists, a scope's end only where something is deferred.
A game without triggers never looks.  A procedure that can neither suspend
nor start a frame (no decision, no such effect, no ``end_game``, and only
calls of procedures like it) is also written as a plain function
``proc(st, *locals)``, its locals Python locals (:func:`direct_function`): a
``call`` of it is a Python call with the new locals as arguments, not a frame
for the run loop.

Every pc also has its instruction alone, ``ins(st, fr)`` (:func:`instruction`):
the same text as a function of its own, following the run loop's protocol —
the loop sets ``fr.pc = pc + 1`` first; a branch or a loop head goes elsewhere
by setting ``fr.pc``; a decision returns True.  The run loop calls these when
coverage is measured (``interpreter.coverage`` counts each one), and an entry
Python cannot compile (loops nested deeper than Python nests blocks) falls
back to them.

A loop counts its iterations against the steps limit (``LIMITS.steps``, or
the limit given to ``run``): an endless loop is the same located RW910 error.
A failure inside generated code is a rule error at the rulebook position of
the innermost expression part around the failing operation (the columns of
every part that can fail are recorded, see ``interpreter/codegen.py``), else
at the step the failing line belongs to (:func:`rule_error`).
"""
from __future__ import annotations

import re

from dsl.diagnostics import RuleRuntimeError

from .codegen import BUILTINS, Gen, Info, as_rule_error, finder, in_frame, local, option_function, python_local, strip

# --- what an instruction is to the flow --------------------------------------------
STMT = "stmt"              # statements; may start a frame when its `pushes` are live
BRANCH = "branch"          # lines[0] is the condition; false: go to `target` (the else, or past the if)
JUMP = "jump"              # the end of an if's then-block: go to `target` (past the else)
LOOP_INIT = "loop_init"    # statements before a loop's first round
LOOP_HEAD = "loop_head"    # statements; LEAVE leaves the loop (to `target`)
LOOP_TAIL = "loop_tail"    # statements at the end of a round; then back to the head (`target`)
SCOPE_BEGIN = "scope_begin"
SCOPE_END = "scope_end"
DECIDE = "decide"          # `call` is its DecideSpec: a decision pending, or on into the otherwise steps
CALL = "call"              # `call` is (procedure, [(slot, text)]): a frame, or a direct call
BREAK = "break"            # leave the innermost loop (to `target`)
END_TURN = "end_turn"      # statements that set the pcs themselves: stop
END_GAME = "end_game"      # statements that end the game (the frames are gone): stop

#: the statement that leaves a loop from its head's text
LEAVE = "\x00LEAVE"

#: tokens of what an instruction may set off (``Ins.pushes``), live when the game has a listener
#: (``GameDef.live``): event names, CHANGED (condition triggers), DEFERRED (effects at a scope's end)
CHANGED = "\x00changed"
DEFERRED = "\x00deferred"
#: the actions of a decision taken together, run when every seat has chosen (steps.step_together)
TOGETHER = "\x00together"


class Ins:
    """The instruction at ``pc``: ``kind`` (above), the Python ``lines`` of what it does
    (statements over ``st``, ``fr``, ``L``; a leading four spaces per level of nesting; the
    expressions' failure spans still marked, see codegen), the statements ``pre`` that
    compute parts of its expressions first (exprs: statement context), what it may set off
    (``pushes``), where it goes (``target``), and for a call or decision what it calls
    (``call``)."""

    __slots__ = ("pc", "kind", "lines", "pre", "pushes", "target", "call", "each")

    def __init__(self, pc: int, kind: str, lines=(), pushes=(), call=None, pre=()):
        self.pc = pc
        self.kind = kind
        self.lines = list(lines)
        self.pre = list(pre)
        self.pushes = tuple(pushes)
        self.target = None
        self.call = call
        #: a `for` loop's head: (the list it runs over, the statements that bind the element
        #: ``_w_x``), for writing the loop as a Python ``for`` where nothing in it can stop
        self.each = None


class DecideSpec:
    """What a decide step needs written: who decides (text, or None: the frame's seat), the
    actions offered, where the chosen action's name goes (``as_slot``), the bound names of
    its position, its `simultaneous` group and of ``cannot(st, who, nothing_legal)`` (which
    raises the located error of a decision nobody can take), whether it has an
    ``otherwise``, and the pc it goes on at once decided (``after``)."""

    __slots__ = ("who", "actions", "as_slot", "pos", "group", "cannot", "otherwise", "after", "together")

    def __init__(self, who, actions, as_slot, pos, group, cannot, otherwise):
        self.who, self.actions, self.as_slot, self.pos, self.group = who, actions, as_slot, pos, group
        self.cannot, self.otherwise, self.after = cannot, otherwise, None
        #: a decision taken together: (the local holding the chosen options, the local of the seats)
        self.together = None


def decide_lines(unit: "Unit", ins: Ins, d: int) -> None:
    """A decision: the seat, the options every action offers (each action's generated
    option function, codegen.option_function), then the pending decision and a stop — or,
    with nothing legal, on into the otherwise steps (or the located error).

    A replay that knows the option this decision will take (``st.rec.want``: (seat, action
    name, id parts), knowledge/worlds.replay_world; a seat that is not told the options)
    looks for that one only (:func:`option_finder`); found, it is the decision's one option
    listed (``want`` is then None: the replay takes it by index 0); else the options are
    listed as always."""
    spec: DecideSpec = ins.call
    pc = ins.pc
    put = unit.put
    unit.text(ins, d, lines=[])                     # what computes parts of `who`
    put(d, f"_w_who = {spec.who if spec.who is not None else local(0)}", pc)
    put(d, "if _w_who is None or _w_who in st.lay.automata:", pc)
    put(d + 1, f"{spec.cannot}(st, _w_who, False)", pc)
    if spec.together is None:       # a replay that knows this decision's option: that one only
        put(d, "_w_e = st.rec", pc)
        put(d, "if _w_e is not None and (_w_e := _w_e.want) is not None and _w_e[0] == _w_who:", pc)
        put(d + 1, f"_w_f = _rw_f{pc}(st, _w_who, L, _w_e[1], _w_e[2])", pc)
        put(d + 1, "if _w_f is not None:", pc)
        put(d + 2, "st.rec.want = None", pc)
        put(d + 2, f"st.pending = _rw_Decision(_w_who, [_w_f], {spec.as_slot}, {spec.pos}, {spec.group})", pc)
        put(d + 2, f"fr.pc = {spec.after}", pc)
        put(d + 2, "return True", pc)
    put(d, "_w_o = []", pc)
    seen = "None"
    plain = plain_offers(spec.actions)
    if any(i not in plain and (not a.params or not a.distinct_options) for i, a in enumerate(spec.actions)):
        put(d, "_w_seen = _rw_set()", pc)
        seen = "_w_seen"
    for i, _ in enumerate(spec.actions):
        if i in plain:          # its one option, always there: no call
            put(d, f"_w_o.append((_rw_a{pc}_{i}, ()))", pc)
        else:
            put(d, f"_rw_o{pc}_{i}(st, _w_who, L, {seen}, _w_o)", pc)
    put(d, "if _w_o:", pc)
    if spec.together is not None:       # the seats still to choose: this one and the ones after it
        held, seats = spec.together
        put(d + 1, f"st.pending = _rw_Decision(_w_who, _w_o, None, {spec.pos}, {spec.group}, {held}, "
                   f"{local(seats)}[len({local(held)}):])", pc)
    else:
        put(d + 1, f"st.pending = _rw_Decision(_w_who, _w_o, {spec.as_slot}, {spec.pos}, {spec.group})", pc)
    put(d + 1, f"fr.pc = {spec.after}", pc)
    put(d + 1, "return True", pc)
    if spec.together is not None:       # a seat with nothing legal takes no part
        held = local(spec.together[0])
        put(d, f"{held} = {held} + ((_w_who, None, ()),)", pc)
    elif not spec.otherwise:
        put(d, f"{spec.cannot}(st, _w_who, True)", pc)


def option_finder(actions: tuple):
    """``find(st, who, L, name, key)`` for a decide step offering ``actions``: the option named
    ``name`` with the id parts ``key`` that listing the step's options would give, or None —
    each action of that name asked in the step's order (the listing keeps the first option of
    each id), through its generated finder (codegen.option_finder, made when first asked)."""
    def find(st, who, L, name, key):
        for action in actions:
            if action.name == name:
                got = (action.find or finder(action))(st, who, L, key)
                if got is not None:
                    return got
        return None
    return find


def plain_offers(actions) -> frozenset:
    """The positions in a decide step's ``actions`` of those whose one option is always
    there: no parameters, no ``where``, offered once by the step (its option function would
    only check that its name is not offered twice, codegen.option_function)."""
    names = [a.name for a in actions]
    return frozenset(i for i, a in enumerate(actions)
                     if not a.params and a.where is None and names.count(a.name) == 1)


# --- the structure of the steps --------------------------------------------------------
class Leaf:
    __slots__ = ("pc", "start", "stop")

    def __init__(self, pc: int):
        self.pc = pc
        self.start = pc
        self.stop = pc + 1


class Decide:
    """A decide step at ``pc``; its ``otherwise`` steps follow it."""
    __slots__ = ("pc", "otherwise", "start", "stop")

    def __init__(self, pc: int, otherwise: list, stop: int):
        self.pc, self.otherwise, self.start, self.stop = pc, otherwise, pc, stop


class If:
    """The branch at ``pc`` goes to ``then`` (pc + 1 …) or to ``orelse``;
    ``jump`` is the pc of the jump over the else (None without one)."""
    __slots__ = ("pc", "then", "orelse", "jump", "start", "stop")

    def __init__(self, pc: int, then: list, orelse: list | None, jump: int | None, stop: int):
        self.pc, self.then, self.orelse, self.jump, self.start, self.stop = pc, then, orelse, jump, pc, stop


class Loop:
    """``init`` (or None) once; then the ``head``, which may leave the loop, then the
    ``body``, then the ``tail`` at ``tail`` (statements of its own only when ``tail_runs``:
    a turn's end; else it only goes back to the head)."""
    __slots__ = ("init", "head", "body", "tail", "tail_runs", "start", "stop")

    def __init__(self, init: int | None, head: int, body: list, tail: int, tail_runs: bool):
        self.init, self.head, self.body, self.tail, self.tail_runs = init, head, body, tail, tail_runs
        self.start = head if init is None else init
        self.stop = tail + 1


class Scope:
    """A phase, round, scope or action: its start at ``begin``, the body, its end at ``end``."""
    __slots__ = ("begin", "body", "end", "start", "stop")

    def __init__(self, begin: int, body: list, end: int):
        self.begin, self.body, self.end, self.start, self.stop = begin, body, end, begin, end + 1


# --- the context code is written in ----------------------------------------------------
class Unit:
    """One generated function being written: its lines, the pc each line runs (for
    locating a failure), and the procedure's shared names."""

    def __init__(self, proc, live: frozenset, direct_ok: bool):
        self.proc = proc
        self.live = live
        self.direct_ok = direct_ok      # may a call of a direct procedure be a Python call?
        self.lines: list[str] = []
        self.pcs: list[int] = []

    def put(self, depth: int, text: str, pc: int = -1) -> None:
        self.lines.append("    " * depth + text)
        self.pcs.append(pc)

    def ins(self, pc: int) -> Ins:
        return self.proc.ops[pc]

    def pushes(self, ins: Ins) -> bool:
        """May ``ins`` start another frame in this game?"""
        live = self.live
        return any(p in live for p in ins.pushes)

    def text(self, ins: Ins, d: int, leave=None, lines=None) -> None:
        """``ins``'s statements at depth ``d``: ``pre``, then its lines (or ``lines``; LEAVE
        written as ``leave``'s lines)."""
        for line in ins.pre + (ins.lines if lines is None else lines):
            body = line.lstrip(" ")
            extra = (len(line) - len(body)) // 4
            if body == LEAVE:
                for text in leave:
                    self.put(d + extra, text, ins.pc)
            else:
                self.put(d + extra, body, ins.pc)


_LOCAL_MARK = re.compile("\x05\\d+\x06\\Z")


def call_lines(unit: Unit, ins: Ins, d: int, direct: bool) -> None:
    """A call: the new locals in the order the arguments are written (of two failing
    arguments the first one written is reported), then a Python call of a direct
    procedure (every local an argument), or a frame pushed for the run loop."""
    callee, args = ins.call
    slots = ["None"] * max(callee.nslots, 1)
    for i, (slot, text) in enumerate(args):
        if text.isidentifier() or _LOCAL_MARK.match(text):
            slots[slot] = text
        else:
            unit.put(d, f"_w_a{i} = {text}", ins.pc)
            slots[slot] = f"_w_a{i}"
    if direct:
        unit.put(d, f"_rw_d{ins.pc}(st, {', '.join(slots)})", ins.pc)
    else:
        unit.put(d, f"frames.append(_rw_Frame(_rw_p{ins.pc}, [{', '.join(slots)}]))", ins.pc)


# --- an entry: the rest of the procedure from a pc -----------------------------------
class _Writer:
    """Writes the steps from a pc on as the body of ``entry(st, fr)`` or, for a direct
    procedure, of ``proc(st, *locals)`` (nothing in it ever stops)."""

    def __init__(self, unit: Unit, direct: bool):
        self.u = unit
        self.direct = direct

    def put(self, d, text, pc=-1):
        self.u.put(d, text, pc)

    def stop(self, d: int, pc: int) -> None:
        """Go on at ``pc`` later: store it and return to the run loop."""
        assert not self.direct, "a direct procedure never stops"
        self.put(d, f"fr.pc = {pc}", pc)
        self.put(d, "return", pc)

    def after(self, ins: Ins, d: int, resume: int | None = None) -> None:
        """After an instruction that may have started another frame: run that one first,
        then go on at ``resume`` (the next pc)."""
        if self.u.pushes(ins):
            self.put(d, "if frames[-1] is not fr:", ins.pc)
            self.stop(d + 1, ins.pc + 1 if resume is None else resume)

    # Each method returns True when control never goes on to the next statement
    # (a stop, a jump, the game's end, a break): the rest is not written.
    def seq(self, nodes: list, d: int) -> bool:
        for node in nodes:
            if self.node(node, d):
                return True
        return False

    def node(self, n, d: int) -> bool:
        u = self.u
        if isinstance(n, Leaf):
            return self.leaf(u.ins(n.pc), d)
        if isinstance(n, If):
            ins = u.ins(n.pc)
            u.text(ins, d, lines=[])
            self.put(d, f"if {ins.lines[0]}:", n.pc)
            ends = self.block(n.then, d + 1)
            if not n.orelse:
                return False
            self.put(d, "else:", n.pc)
            return self.block(n.orelse, d + 1) and ends
        if isinstance(n, Loop):
            head = u.ins(n.head)
            if head.each is not None and not self.can_stop(n.body) and not u.pushes(head):
                self.for_each(n, head, d)
                return False
            if n.init is not None:
                u.text(u.ins(n.init), d)
            self.loop(n, d)
            return False
        if isinstance(n, Scope):
            begin = u.ins(n.begin)
            u.text(begin, d)
            self.after(begin, d)
            if self.seq(n.body, d):
                return True
            end = u.ins(n.end)
            u.text(end, d)
            self.after(end, d)
            return False
        if isinstance(n, Decide):
            decide_lines(u, u.ins(n.pc), d)
            return self.seq(n.otherwise, d)
        raise TypeError(f"not a step node: {n!r}")  # pragma: no cover

    def block(self, nodes: list, d: int) -> bool:
        before = len(self.u.lines)
        ends = self.seq(nodes, d)
        if len(self.u.lines) == before:
            self.put(d, "pass")
        return ends

    def leaf(self, ins: Ins, d: int) -> bool:
        u = self.u
        kind = ins.kind
        pc = ins.pc
        if kind == BREAK:
            self.put(d, "break", pc)
            return True
        if kind == STMT:
            u.text(ins, d)
            self.after(ins, d)
            return False
        if kind == CALL:
            u.text(ins, d, lines=[])
            if u.direct_ok and direct_function(ins.call[0], u.live) is not None:
                call_lines(u, ins, d, True)
                return False
            call_lines(u, ins, d, False)
            self.stop(d, pc + 1)
            return True
        if kind in (END_TURN, END_GAME):
            assert not self.direct
            if ins.target is not None:          # end_turn in a turn: to the turn's end
                self.put(d, f"fr.pc = {ins.target}", pc)
            u.text(ins, d)
            self.put(d, "return", pc)
            return True
        raise ValueError(f"unknown instruction kind {kind!r}")  # pragma: no cover

    def loop(self, n: Loop, d: int) -> None:
        """The loop from its head (its state is in the frame's locals)."""
        u = self.u
        h = n.head
        head = u.ins(h)
        position = _for_position(head)
        # its list and position in Python locals (read once per entry into the loop) where a
        # round stops only in a branch: where nearly every round stops, the entry is made again
        # for each round and reading them once would cost more than reading them each round
        if position is None or u.pushes(head) or any(
                self.can_stop([node]) for node in n.body if not isinstance(node, If)):
            self.put(d, "while True:", h)
            u.text(head, d + 1, leave=("break",))
        else:
            ix, it, rest = position
            self.put(d, f"_w_xs{h} = {it}", h)
            self.put(d, f"_w_n{h} = len(_w_xs{h})", h)
            self.put(d, f"_w_i{h} = {ix}", h)
            self.put(d, "while True:", h)
            self.put(d + 1, f"if _w_i{h} >= _w_n{h}:", h)
            self.put(d + 2, "break", h)
            self.put(d + 1, f"_w_x = _w_xs{h}[_w_i{h}]", h)
            self.put(d + 1, f"_w_i{h} += 1", h)
            self.put(d + 1, f"{ix} = _w_i{h}", h)      # the frame's copy: a decision in the body stops with it
            u.text(head, d + 1, lines=rest)
        self.after(head, d + 1)
        self.put(d + 1, f"_n += {n.stop - h}", h)
        self.put(d + 1, "if _n > _lim:", h)
        self.put(d + 2, f"_rw_endless(_rw_proc, {h}, st.step_limit)", h)
        if not self.seq(n.body, d + 1) and n.tail_runs:
            self.tail(n, d + 1)

    def for_each(self, n: Loop, head: Ins, d: int) -> None:
        """A `for` loop in which nothing can stop, from its start: a Python ``for`` over the
        same list (its position need not be kept in the frame's locals)."""
        u = self.u
        its, bind = head.each
        u.text(u.ins(n.init), d, lines=[])             # what computes parts of the list
        self.put(d, f"for _w_x in tuple({its}):", n.head)
        for line in bind:
            self.put(d + 1, line, n.head)
        self.put(d + 1, f"_n += {n.stop - n.head}", n.head)
        self.put(d + 1, "if _n > _lim:", n.head)
        self.put(d + 2, f"_rw_endless(_rw_proc, {n.head}, st.step_limit)", n.head)
        self.seq(n.body, d + 1)

    def can_stop(self, nodes: list) -> bool:
        """Can anything in ``nodes`` stop the frame (a decision, a call of a procedure
        that is not direct, an effect that may start a frame, the end of the game or turn)?"""
        u = self.u
        for n in nodes:
            if isinstance(n, Leaf):
                ins = u.ins(n.pc)
                if ins.kind in (END_TURN, END_GAME) or u.pushes(ins):
                    return True
                if ins.kind == CALL and not (u.direct_ok and direct_function(ins.call[0], u.live) is not None):
                    return True
            elif isinstance(n, Decide):
                return True
            elif isinstance(n, If):
                if self.can_stop(n.then) or (n.orelse and self.can_stop(n.orelse)):
                    return True
            elif isinstance(n, Loop):
                if (u.pushes(u.ins(n.head)) or u.pushes(u.ins(n.tail)) or self.can_stop(n.body)
                        or (n.init is not None and u.pushes(u.ins(n.init)))):
                    return True
            elif isinstance(n, Scope):
                if u.pushes(u.ins(n.begin)) or u.pushes(u.ins(n.end)) or self.can_stop(n.body):
                    return True
        return False

    def tail(self, n: Loop, d: int) -> None:
        tail = self.u.ins(n.tail)
        self.u.text(tail, d)
        self.after(tail, d, n.head)         # the next round

    # --- the rest of a node from a pc inside it ------------------------------------
    def seq_from(self, nodes: list, pc: int, d: int) -> bool:
        """The nodes from ``pc`` on (``pc`` may lie inside one of them, or past them all)."""
        for i, node in enumerate(nodes):
            if node.start <= pc < node.stop:
                ends = self.node(node, d) if pc == node.start else self.resume(node, pc, d)
                return ends or self.seq(nodes[i + 1:], d)
        return False

    def resume(self, n, pc: int, d: int) -> bool:
        u = self.u
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
            end = u.ins(n.end)
            u.text(end, d)
            self.after(end, d)
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
                before = len(u.lines)
                ends = self.seq_from(n.body, pc, d + 1)
                if not ends and n.tail_runs:
                    self.tail(n, d + 1)
                if len(u.lines) == before:
                    self.put(d + 1, "pass")
                if not ends:        # the next round: the entry at the head has the loop
                    self.put(d, "else:", n.head)
                    self.stop(d + 1, n.head)
            # after the loop, go on with the entry there: writing the loop and the loops
            # around it out again in every entry inside them would make the code quadratic
            self.stop(d, n.stop)
            return True
        raise TypeError(f"not a step node: {n!r}")  # pragma: no cover


def _for_position(head: Ins):
    """For the head of a `for` loop as control.step_for writes it (its position and list in
    the frame's locals, read anew every round): ``(position local, list local, the lines
    after taking the element)``; None for any other loop head."""
    lines = head.lines
    if head.each is None or head.pre or len(lines) < 6:
        return None
    ix = re.fullmatch(r"_w_i = (\x05\d+\x06)", lines[0])
    it = re.fullmatch(r"_w_xs = (\x05\d+\x06)", lines[1])
    if (ix is None or it is None or lines[2] != "if _w_i >= len(_w_xs):" or lines[3] != "    " + LEAVE
            or lines[4] != f"{ix.group(1)} = _w_i + 1" or lines[5] != "_w_x = _w_xs[_w_i]"):
        return None
    rest = lines[6:]
    if any("_w_i" in line or "_w_xs" in line for line in rest):
        return None
    return ix.group(1), it.group(1), rest


# --- compiling -------------------------------------------------------------------------
_counter = [0]


def _endless(proc, pc: int, limit: int):
    raise RuleRuntimeError(f"the rules ran {limit:,} steps without reaching a decision (an endless loop? "
                           f"limit 'steps')", proc.pos_at(pc), "RW910")


def _compile(unit: Unit, head: str, name: str, kind: str, locals_as=in_frame):
    """Compile ``head`` + the unit's lines (the procedure's locals written as
    ``locals_as(slot)``); the function, or None when Python cannot (a rulebook nesting
    loops deeper than Python nests blocks)."""
    proc = unit.proc
    gen: Gen = proc.gen
    marked = head + "\n".join(unit.lines) + "\n"
    text, spans = strip(marked, gen.guards, locals_as=locals_as)
    _counter[0] += 1
    filename = f"<{kind} of {proc.name} #{_counter[0]}>"
    ns = dict(gen.ns)
    from ..run.frames import Decision, Frame, id_part
    ns.update(__builtins__=BUILTINS, _rw_once=(None,), _rw_endless=_endless, _rw_proc=proc, _rw_Frame=Frame,
              _rw_Decision=Decision, _rw_set=set,
              _rw_pcs=[-1] * head.count("\n") + unit.pcs, _rw_info=Info(filename, spans))
    for ins in proc.ops:
        if ins.kind == DECIDE:
            ns[f"_rw_f{ins.pc}"] = option_finder(tuple(ins.call.actions))
            plain = plain_offers(ins.call.actions)
            for i, action in enumerate(ins.call.actions):
                if i in plain:
                    ns[f"_rw_a{ins.pc}_{i}"] = action
                    continue
                if action.enumerate is None:
                    action.enumerate = option_function(action, id_part)
                ns[f"_rw_o{ins.pc}_{i}"] = action.enumerate
        if ins.kind == CALL:
            callee = ins.call[0]
            ns[f"_rw_p{ins.pc}"] = callee
            if unit.direct_ok:
                fn = direct_function(callee, unit.live)
                if fn is not None:
                    ns[f"_rw_d{ins.pc}"] = fn
    try:
        code = compile(text, filename, "exec")
    except (SyntaxError, RecursionError, MemoryError):
        return None
    exec(code, ns)  # noqa: S102 - our own generated text, no user data
    fn = ns[name]
    fn.__doc__ = text
    return fn


def make_entry(proc, pc: int, live: frozenset | None = None):
    """Generate and compile the entry of ``proc`` at ``pc``; the instruction itself where
    Python cannot compile the text."""
    live = proc.live if live is None else live
    unit = Unit(proc, live, True)
    w = _Writer(unit, direct=False)
    unit.put(1, "L = fr.L")
    unit.put(1, "frames = st.frames")
    unit.put(1, "_n, _lim = 0, st.step_limit")
    w.seq_from(proc.tree, pc, 1)
    unit.put(1, f"fr.pc = {len(proc.ops)}")
    fn = _compile(unit, "def _rw_entry(st, fr):\n", "_rw_entry", "steps")
    return fn if fn is not None else proc.code[pc]


def direct_function(proc, live: frozenset, _seen=None):
    """``proc`` as ``f(st, *locals)`` that runs it to its end, when nothing in it can stop (no
    decision, no effect that may start a frame in this game, no ``end_game`` or
    ``end_turn``, only calls of such procedures); else None.  Made once per procedure."""
    cached = proc.direct
    if cached is not None:
        return cached or None
    seen = _seen if _seen is not None else set()
    if id(proc) in seen:                 # a procedure that calls itself: the run loop's frames
        return None
    seen.add(id(proc))
    unit = Unit(proc, live, True)
    ok = True
    for ins in proc.ops:
        kind = ins.kind
        if kind in (DECIDE, END_TURN, END_GAME) or any(p in live for p in ins.pushes):
            ok = False
        elif kind == CALL and direct_function(ins.call[0], live, seen) is None:
            ok = False
        if not ok:
            break
    seen.discard(id(proc))
    fn = None
    if ok:
        # every local a Python local, each an argument (the caller's new locals, in order)
        unit.put(1, "_n, _lim = 0, st.step_limit")
        _Writer(unit, direct=True).seq(proc.tree, 1)
        params = "".join(f", _l{i}" for i in range(max(proc.nslots, 1)))
        fn = _compile(unit, f"def _rw_direct(st{params}):\n", "_rw_direct", "procedure", python_local)
    proc.direct = fn or False
    return fn


def instruction(proc, pc: int):
    """The instruction at ``pc`` alone, as the run loop calls it one at a time (its
    protocol: the pc is already ``pc + 1``; go elsewhere by setting it; True: a decision)."""
    ins = proc.ops[pc]
    unit = Unit(proc, proc.live, False)
    unit.put(1, "L = fr.L")
    unit.put(1, "frames = st.frames")
    kind = ins.kind
    if kind == BRANCH:
        unit.text(ins, 1, lines=[])
        unit.put(1, f"if not {ins.lines[0]}:", pc)
        unit.put(2, f"fr.pc = {ins.target}", pc)
    elif kind in (JUMP, BREAK) or (kind == END_TURN and ins.target is not None):
        unit.put(1, f"fr.pc = {ins.target}", pc)
    elif kind == LOOP_HEAD:
        unit.text(ins, 1, leave=(f"fr.pc = {ins.target}", "return"))
    elif kind == LOOP_TAIL:
        unit.text(ins, 1)
        unit.put(1, f"fr.pc = {ins.target}", pc)
    elif kind == DECIDE:
        decide_lines(unit, ins, 1)
    elif kind == CALL:
        unit.text(ins, 1, lines=[])
        call_lines(unit, ins, 1, False)
    else:
        unit.text(ins, 1)
    unit.put(1, "pass")
    fn = _compile(unit, "def _rw_ins(st, fr):\n", "_rw_ins", "step")
    if fn is None:  # pragma: no cover - one instruction nests only a few blocks
        raise RuntimeError(f"cannot compile the instruction at {pc} of {proc.name}")
    return fn


def _lazy(make, size: int) -> list:
    """A list of ``size`` functions, each made by ``make(i)`` on its first call."""
    made = []

    def stub_for(i):
        fn = None

        def stub(st, fr):
            nonlocal fn
            if fn is None:
                fn = make(i)
                if made[i] is stub:     # not when a wrapper (coverage) holds the stub
                    made[i] = fn
            return fn(st, fr)
        return stub
    made.extend(stub_for(i) for i in range(size))
    return made


def lazy_instructions(proc) -> list:
    """``proc``'s instructions, each compiled on its first call."""
    return _lazy(lambda pc: instruction(proc, pc), len(proc.ops))


def lazy_entries(proc) -> list:
    """``proc``'s entries, each generated on its first call."""
    return _lazy(lambda pc: make_entry(proc, pc), len(proc.ops))


# --- failures --------------------------------------------------------------------------
def rule_error(exc: BaseException, proc, pc: int):
    """The rule error for ``exc``, raised while the run loop ran ``proc`` at ``pc``: at the
    innermost part of a rulebook expression around the failing operation in generated
    code, else at the step of the failing line ("internal error"), else at ``pc``."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        if "_rw_info" in tb.tb_frame.f_globals:
            found = tb
        tb = tb.tb_next
    at = pc
    if found is not None:
        g = found.tb_frame.f_globals
        err = g["_rw_info"].locate(exc, found)
        if err is not None:
            return err
        pcs = g.get("_rw_pcs")
        line = found.tb_lineno - 1
        if pcs is not None and 0 <= line < len(pcs) and pcs[line] >= 0:
            proc, at = g["_rw_proc"], pcs[line]
    return RuleRuntimeError(f"internal error while running this step: {type(exc).__name__}: {exc}",
                            proc.pos_at(at))


__all__ = ["Ins", "Leaf", "If", "Loop", "Scope", "Decide", "make_entry", "instruction", "direct_function",
           "lazy_entries", "lazy_instructions", "rule_error", "as_rule_error"]
