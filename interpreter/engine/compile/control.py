"""The steps that direct the flow, written as jumps between program counters with their
structure beside them: ``if``, ``for``, ``while``, ``repeat``, ``random``, ``turns``, the scopes
(``phase``, ``round``, ``scope``), ``break``, ``end_turn``, ``call``.  A part of
:class:`~interpreter.engine.compile.steps.StepCompiler` (steps.py composes it).
"""
from __future__ import annotations

import re

from dsl import ast
from dsl.diagnostics import Pos, RuleRuntimeError
from dsl.parser import ParseError, parse_for_head
from dsl.yamlload import LDict

from . import types as T
from .codegen import LazyExpr, local as _l
from .context import contents_of, gen_as_list, suggest, E_NAME, E_TYPE
from .comprehensions import _declare_targets, note_range
from .constindex import indexed_iterable
from .names import _family_key
from . import flowcode as F
from .model import Label, LoopInfo, Procedure, ScopeInfo
from ..run.values import bounded
from .effects import _clamp, _no_entry, _sub


class ControlSteps:
    """The flow steps of :class:`StepCompiler`."""

    __slots__ = ()

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
        its = indexed_iterable(self, step, head, its) or its      # only the elements the body runs for
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
        self.loop_body(step, pos, info, head, tail, self.scope_end_pushes("turn", "turn"), init_pc=init.pc)
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
        end = self.emit(F.SCOPE_END, [self.scope_end(kind, name)], pos, self.scope_end_pushes(kind, name), leaf=False)
        self.cur.append(F.Scope(begin.pc, body, end.pc))

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


SCOPE_KINDS = ("phase", "round", "scope")


def bind_slots(old: tuple, value) -> tuple:
    """Several loop names at once, ``for a, b in pairs``: the names' new values (the first
    ones from ``value``, as far as it goes; the others keep ``old``)."""
    value = tuple(value)
    return value[:len(old)] + old[len(value):]
