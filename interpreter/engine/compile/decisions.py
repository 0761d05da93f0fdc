"""The decision steps, written as Python text: ``decide`` (one seat) and ``decide: …
together:`` (several seats at once: the loop over the seats, held choices, what the others are
told; the run side in runtime.py).  A part of
:class:`~interpreter.engine.compile.steps.StepCompiler` (steps.py composes it).
"""
from __future__ import annotations

from dsl.diagnostics import Pos, RuleRuntimeError
from dsl.yamlload import LDict, LList

from . import types as T
from .codegen import local as _l
from .context import suggest, E_NAME, E_TYPE
from . import flowcode as F
from .model import LoopInfo


class DecisionSteps:
    """The decision steps of :class:`StepCompiler`."""

    __slots__ = ()

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
