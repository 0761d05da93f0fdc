"""Compile step lists (effects, flow) into instruction lists.

Each step of the YAML becomes one or more instructions: closures
``ins(state, frame)`` appended to a :class:`model.Procedure`.  Loops and
branches become jumps.  Where a rule's step *means* something — what a
``turns`` loop does, when a deferred effect runs — is decided here (the
compile side) and in :mod:`interpreter.runtime` (the run side).
"""
from __future__ import annotations

import re

from dsl import ast
from dsl.diagnostics import Pos, RuleRuntimeError
from dsl.parser import ParseError, parse_assignment, parse_for_head
from dsl.yamlload import LDict, LList

from . import types as T
from .exprs import Cx, Scope, as_list, bind, compile_cond, compile_expr, guard, suggest, E_NAME, E_TYPE
from . import flowcode as F
from .limits import LIMITS
from .model import Label, LoopInfo, Procedure, ScopeInfo
from .runtime import Decision, Frame
from .values import Record, Zone, format_value

SCOPE_KINDS = ("phase", "round", "scope")


class StepCompiler:
    """Compiles the steps of one procedure."""

    def __init__(self, compiler, proc: Procedure, scope: Scope):
        self.c = compiler
        self.g = compiler.game
        self.report = compiler.report
        self.proc = proc
        self.scope = scope
        self.loops: list = []  # LoopInfo / ScopeInfo stack for labels
        self.cur: list = proc.tree  # the structure of the steps being compiled (interpreter/flowcode.py)

    # --- helpers ---------------------------------------------------------------
    @property
    def code(self):
        return self.proc.code

    def emit(self, ins, pos: Pos, flow: str | None = F.EFFECT) -> int:
        """Append an instruction; ``flow`` is what it is to the generated step code (a
        flowcode leaf kind), None for a part of a branch or loop, whose node says it."""
        self.proc.code.append(ins)
        self.proc.positions.append(pos)
        pc = len(self.proc.code) - 1
        if flow is not None:
            self.cur.append(F.Leaf(pc, flow))
        return pc

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
        return len(self.proc.code)

    def cx(self) -> Cx:
        return Cx(self.g, self.report, self.scope, False, {}, self.c)

    def memo_drop(self, variable: str):
        """The remembered function results a change of ``variable`` makes stale
        (dependencies.py); None (forget all) when the rulebook has errors."""
        drop = self.g.memo_drop
        return None if drop is None else drop.get(variable)

    def expr(self, value, pos: Pos, what: str = "expression"):
        """Parse and compile an expression; ``(fn, type)`` or ``(None, ANY)``."""
        node = self.c.parse(value, pos)
        if node is None:
            return None, T.ANY
        fn, typ = compile_expr(node, self.cx())
        return guard(fn, node.pos, what), typ

    def cond(self, value, pos: Pos, what="a condition"):
        node = self.c.parse(value, pos)
        if node is None:
            return None
        fn, _ = compile_cond(node, self.cx(), what)
        return guard(fn, node.pos, what)

    def zone_expr(self, value, pos: Pos, what: str):
        fn, typ = self.expr(value, pos, what)
        if fn is not None and not isinstance(typ, T.ZoneT) and not T.is_any(typ):
            self.report.error(getattr(value, "pos", pos), f"{what} must be a zone, but this is {T.describe(typ)}",
                              E_TYPE)
        return fn, typ

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
        vf, vt = compile_expr(node.value, self.cx())
        vf = guard(vf, node.value.pos, "value")
        op = node.op
        if declare:
            if node.index is not None or op != "=":
                self.report.error(node.pos, "let binds a name: let: \"name = value\"", E_TYPE)
                return
            if node.name in self.g.variables:
                self.report.error(node.pos, f"'{node.name}' is a game variable; use set:, or another name", E_NAME)
            slot = self.scope.declare(node.name, vt)

            def let(st, fr, slot=slot, vf=vf):
                fr.L[slot] = vf(st, fr.L)
            self.emit(let, node.pos, F.QUIET)
            return
        name = node.name
        local = self.scope.lookup(name)
        if local is not None and node.index is None:
            slot, typ = local
            if not T.compatible(vt, typ):
                self.report.error(node.value.pos, f"'{name}' holds {T.describe(typ)}, not {T.describe(vt)}", E_TYPE)
            self._check_op(op, typ, node)
            combine = _combiner(op)

            def set_local(st, fr, slot=slot):
                fr.L[slot] = combine(fr.L[slot], vf(st, fr.L))
            self.emit(guard_ins(set_local, node.pos, f"set {name}"), node.pos, F.QUIET)
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
        combine = _combiner(op)
        if var.index:
            if node.index is None:
                self.report.error(node.pos, f"variable '{name}' needs an index", E_NAME)
                return
            idx = ast.Index(ast.Name(name, pos=node.pos), node.index, pos=node.pos)
            # reuse the expression compiler for the key (checks arity and types)
            from .exprs import compile_family_key
            key = compile_family_key(idx, var.index, f"variable '{name}'", self.cx())
            vid = var.family_id
            drop = self.memo_drop(name)

            def set_family(st, fr):
                L = fr.L
                k = key(st, L)
                try:
                    at = st.lay.vkeys[vid][k]
                except KeyError:
                    raise RuleRuntimeError(f"there is no {name}[{format_value(k)}]", node.pos) from None
                value = combine(st.v[at], vf(st, L))
                bounds = st.lay.clamp.get(name)
                if bounds is not None:
                    value = _clamp(value, bounds)
                st.v[at] = value
                st.changed(drop)
            self.emit(guard_ins(set_family, node.pos, f"set {name}"), node.pos)
            return
        if node.index is not None:
            self.report.error(node.pos, f"variable '{name}' has no index", E_NAME)
            return
        off = var.offset
        drop = self.memo_drop(name)

        def set_scalar(st, fr):
            value = combine(st.v[off], vf(st, fr.L))
            bounds = st.lay.clamp.get(name)
            if bounds is not None:
                value = _clamp(value, bounds)
            st.v[off] = value
            st.changed(drop)
        self.emit(guard_ins(set_scalar, node.pos, f"set {name}"), node.pos)

    def _check_op(self, op, typ, node):
        if op != "=" and not T.is_numeric(typ):
            if op == "+=" and isinstance(typ, T.ListT):
                return
            self.report.error(node.pos, f"'{op}' needs a number, but '{node.name}' holds {T.describe(typ)}", E_TYPE)

    def step_move(self, step: LDict, pos: Pos):
        wf, wt = self.expr(step["move"], step.pos_of("move"), "what to move")
        df, _ = self.zone_expr(step.get("to"), step.pos_of("to"), "'to'")
        if wf is None or df is None:
            return
        if not (isinstance(wt, (T.Comp, T.ZoneT)) or T.is_any(wt) or
                (T.is_listlike(wt) and isinstance(T.elem_of(wt), T.Comp)) or
                (T.is_listlike(wt) and T.is_any(T.elem_of(wt)))):
            self.report.error(step.pos_of("move"), f"only components can be moved, but this is {T.describe(wt)}",
                              E_TYPE)
        self._check_fits(wt, step.get("to"), step.pos_of("to"))
        bottom = bool(step.get("bottom", False))
        if isinstance(wt, T.ZoneT):
            def move(st, fr):
                st.move(tuple(st.z[wf(st, fr.L).id]), df(st, fr.L), bottom, pos)
        elif isinstance(wt, T.Comp):
            def move(st, fr):
                c = wf(st, fr.L)
                if c is None:
                    raise RuleRuntimeError("nothing to move (none)", step.pos_of("move"))
                st.move_component(c, df(st, fr.L), bottom, pos)
        else:
            def move(st, fr):
                w = wf(st, fr.L)
                if isinstance(w, Zone):
                    w = tuple(st.z[w.id])
                elif w is None:
                    raise RuleRuntimeError("nothing to move (none)", step.pos_of("move"))
                elif not isinstance(w, (tuple, list)):
                    w = (w,)
                st.move(tuple(w), df(st, fr.L), bottom, pos)
        self.emit(move, pos)

    def step_draw(self, step: LDict, pos: Pos):
        nf, nt = self.expr(step.get("draw", 1) if step.get("draw") is not None else 1, step.pos_of("draw"), "count")
        if nf is not None and not T.is_numeric(nt):
            self.report.error(step.pos_of("draw"), f"how many to draw must be a number, not {T.describe(nt)}", E_TYPE)
        sf, stype = self.zone_expr(step.get("from"), step.pos_of("from"), "'from'")
        df, _ = self.zone_expr(step.get("to"), step.pos_of("to"), "'to'")
        if nf is None or sf is None or df is None:
            return
        self._check_fits(stype, step.get("to"), step.pos_of("to"), count=step.get("draw", 1))
        slot = None
        if step.get("as"):
            holds = stype.holds if isinstance(stype, T.ZoneT) else frozenset()
            slot = self.scope.declare(step["as"], T.ListT(T.Comp(holds)))

        def draw(st, fr):
            L = fr.L
            got = st.draw(sf(st, L), nf(st, L), df(st, L), pos)
            if slot is not None:
                L[slot] = got
        self.emit(draw, pos)

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
        zf, zt = self.zone_expr(step["shuffle"], step.pos_of("shuffle"), "what to shuffle")
        if zf is None:
            return
        self.proc.moved_kinds.append(frozenset(zt.holds) if isinstance(zt, T.ZoneT) and zt.holds else None)

        def shuffle(st, fr):
            st.shuffle(zf(st, fr.L))
        self.emit(shuffle, pos)

    def step_if(self, step: LDict, pos: Pos):
        cf = self.cond(step["if"], step.pos_of("if"))
        if cf is None:
            return
        holder = {}

        def branch(st, fr):
            if not cf(st, fr.L):
                fr.pc = holder["else"]
        at = self.emit(branch, pos, None)
        then = self.block(step.get("then"), step.pos_of("then"))
        orelse = jump = None
        if "else" in step:
            holder_end = {}

            def jump_end(st, fr):
                fr.pc = holder_end["end"]
            jump = self.emit(jump_end, pos, None)
            holder["else"] = self.here()
            orelse = self.block(step.get("else"), step.pos_of("else"))
            holder_end["end"] = self.here()
        else:
            holder["else"] = self.here()
        self.cur.append(F.If(at, then, orelse, jump, self.here()))

    def step_for(self, step: LDict, pos: Pos):
        parsed = self.loop_head(step, "for", "what a 'for' runs over")
        if parsed is None:
            return
        head, itf, elem = parsed
        self.scope.push()
        it_slot = self.scope.declare(f".it{self.here()}", T.ANY)
        ix_slot = self.scope.declare(f".ix{self.here()}", T.INT)
        var_global = None
        drop = None
        slots = []
        if len(head.names) == 1 and head.names[0] in self.g.variables and self.scope.lookup(head.names[0]) is None:
            var = self.g.variables[head.names[0]]
            if var.index:
                self.report.error(head.pos, f"variable '{var.name}' has an index; it cannot be a loop variable", E_NAME)
            elif not T.compatible(elem, var.type):
                self.report.error(head.pos, f"variable '{var.name}' holds {T.describe(var.type)}, "
                                            f"not {T.describe(elem)}", E_TYPE)
            var_global = var.offset
            drop = self.memo_drop(var.name)
        else:
            from .exprs import _declare_targets, note_range
            slots = _declare_targets(head, elem, self.cx())
            note_range(head, slots, self.cx())
        info = LoopInfo("for", var_slot=slots[0] if len(slots) == 1 else None, var_global=var_global,
                        iter_slot=it_slot, index_slot=ix_slot, iterable=itf)
        info.extra["names"] = head.names

        def init(st, fr):
            fr.L[it_slot] = tuple(itf(st, fr.L))
            fr.L[ix_slot] = 0
        init_pc = self.emit(init, pos, None)
        head_pc = self.here()
        holder = {}
        if var_global is not None:
            def loop_head(st, fr):
                L = fr.L
                i = L[ix_slot]
                items = L[it_slot]
                if i >= len(items):
                    fr.pc = holder["end"]
                    return
                L[ix_slot] = i + 1
                st.v[var_global] = items[i]
                st.changed(drop)
        else:
            def loop_head(st, fr):
                L = fr.L
                i = L[ix_slot]
                items = L[it_slot]
                if i >= len(items):
                    fr.pc = holder["end"]
                    return
                L[ix_slot] = i + 1
                bind(L, slots, items[i])
        self.emit(loop_head, pos, None)
        self.loop_body(step, pos, info, head_pc, holder, init_pc=init_pc)
        self.scope.pop()

    def loop_body(self, step: LDict, pos: Pos, info, head_pc: int, holder: dict, tail=None,
                  init_pc: int | None = None) -> None:
        """The body of a loop, then the jump back to its head (or ``tail``, which goes
        there itself); ``holder["end"]`` becomes the first instruction after the loop."""
        info.extra["exit"] = holder          # a `break` in the body jumps to holder["end"]
        self.loops.append(info)
        body = self.block(step.get("do"), step.pos_of("do"))
        self.loops.pop()
        tail_runs = tail is not None
        if tail is None:
            def tail(st, fr):
                fr.pc = head_pc
        tail_pc = self.emit(tail, pos, None)
        holder["end"] = self.here()
        self.cur.append(F.Loop(init_pc, head_pc, body, tail_pc, tail_runs))

    def loop_head(self, step: LDict, key: str, what: str):
        """Parse ``x in xs`` of a for/random step: (head, iterable fn, element type) or None."""
        try:
            head = parse_for_head(step[key], step.pos_of(key))
        except ParseError as exc:
            self.report.error(exc.pos, exc.message, "RW100")
            return None
        itf, itt = compile_expr(head.iter, self.cx())
        itf, itt = as_list(itf, itt, head.iter.pos, self.cx(), what)
        return head, guard(itf, head.iter.pos, key), T.elem_of(itt)

    def step_random(self, step: LDict, pos: Pos):
        """``random: "x in xs"``: bind x to an element of xs drawn with the game's generator."""
        parsed = self.loop_head(step, "random", "what 'random' picks from")
        if parsed is None:
            return
        head, itf, elem = parsed
        if len(head.names) != 1:
            self.report.error(head.pos, "random picks one value: random: \"x in xs\"", E_TYPE)
            return
        name = head.names[0]
        var = self.g.variables.get(name)
        if var is not None and self.scope.lookup(name) is None:
            if var.index:
                self.report.error(head.pos, f"variable '{name}' has an index", E_NAME)
                return
            off = var.offset
            drop = self.memo_drop(name)

            def store(st, fr, value):
                st.v[off] = value
                st.changed(drop)
        else:
            slot = self.scope.declare(name, elem)

            def store(st, fr, value):
                fr.L[slot] = value

        def pick(st, fr):
            items = tuple(itf(st, fr.L))
            if not items:
                raise RuleRuntimeError("random: nothing to pick from", head.iter.pos)
            if st.forced:                       # a scenario's `draws:` rigs the value (a die's face)
                store(st, fr, st.forced_value(items, head.iter.pos))
            else:
                store(st, fr, items[st.below(len(items))])
        self.emit(pick, pos)

    def step_while(self, step: LDict, pos: Pos):
        cf = self.cond(step["while"], step.pos_of("while"))
        if cf is None:
            return
        head_pc = self.here()
        holder = {}

        def test(st, fr):
            if not cf(st, fr.L):
                fr.pc = holder["end"]
        self.emit(test, pos, None)
        self.loop_body(step, pos, LoopInfo("while"), head_pc, holder)

    def step_repeat(self, step: LDict, pos: Pos):
        nf, nt = self.expr(step["repeat"], step.pos_of("repeat"), "repeat count")
        if nf is None:
            return
        if not T.is_numeric(nt):
            self.report.error(step.pos_of("repeat"), f"repeat needs a number, not {T.describe(nt)}", E_TYPE)
        self.scope.push()
        cnt = self.scope.declare(f".n{self.here()}", T.INT)

        def init(st, fr):
            fr.L[cnt] = nf(st, fr.L)
        init_pc = self.emit(init, pos, None)
        head_pc = self.here()
        holder = {}

        def test(st, fr):
            L = fr.L
            if L[cnt] <= 0:
                fr.pc = holder["end"]
                return
            L[cnt] -= 1
        self.emit(test, pos, None)
        self.loop_body(step, pos, LoopInfo("repeat", index_slot=cnt), head_pc, holder, init_pc=init_pc)
        self.scope.pop()

    def step_turns(self, step: LDict, pos: Pos):
        sf, stt = self.expr(step["turns"], step.pos_of("turns"), "first seat")
        if sf is None:
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
        wf = self.cond(step["while"], step.pos_of("while")) if "while" in step else None
        kf = self.cond(step["skip"], step.pos_of("skip"), "skip") if "skip" in step else None
        once = bool(step.get("once", False))

        def init(st, fr):
            L = fr.L
            L[cur] = sf(st, L)
            L[skipped] = 0
            L[taken] = 0
        init_pc = self.emit(init, pos, None)
        head_pc = self.here()
        holder = {}

        def head(st, fr):
            L = fr.L
            n = st.lay.num_seats
            while True:
                if once and L[taken] >= n:
                    fr.pc = holder["end"]
                    return
                if wf is not None and not wf(st, L):
                    fr.pc = holder["end"]
                    return
                p = L[cur]
                L[pslot] = p
                if kf is not None and kf(st, L):
                    L[skipped] += 1
                    L[cur] = (p + 1) % n
                    if once:
                        L[taken] += 1
                    if L[skipped] >= n:
                        fr.pc = holder["end"]
                        return
                    continue
                L[skipped] = 0
                st.scope_start("turn", "turn")
                return
        self.emit(head, pos, None)

        def tail(st, fr):
            L = fr.L
            st.scope_end("turn", "turn")
            L[cur] = (L[cur] + 1) % st.lay.num_seats
            L[taken] += 1
            fr.pc = head_pc
        info = LoopInfo("turns", var_slot=pslot, index_slot=cur, extra={"taken": taken, "skipped": skipped})
        self.loop_body(step, pos, info, head_pc, holder, tail, init_pc=init_pc)
        self.scope.pop()

    def step_scope(self, step: LDict, pos: Pos):
        kind = next(k for k in SCOPE_KINDS if k in step)
        name = step[kind]
        if name is True or name is None or name is False:
            name = kind
        name = str(name)
        if kind == "scope":
            kind = name

        def start(st, fr):
            st.scope_start(kind, name)
        label_pc = self.emit(start, pos, None)
        label = Label(name, label_pc, list(self.loops))
        if name in self.proc.labels:
            self.report.warning(pos, f"label '{name}' is used twice in {self.proc.name}; scenarios start at the first",
                                "RW150")
        else:
            self.proc.labels[name] = label
        self.loops.append(ScopeInfo(kind, name))
        body = self.block(step.get("do"), step.pos_of("do"))
        self.loops.pop()

        def end(st, fr):
            st.scope_end(kind, name)
        end_pc = self.emit(end, pos, None)
        self.cur.append(F.Scope(label_pc, body, end_pc))

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
        whof = None
        if "who" in step:
            whof, wt = self.expr(step["who"], step.pos_of("who"), "who decides")
            if whof is not None and not T.compatible(wt, T.PLAYER):
                self.report.error(step.pos_of("who"), f"who decides must be a seat, not {T.describe(wt)}", E_TYPE)
        as_slot = self.scope.declare(step["as"], T.STR) if step.get("as") else None
        group = str(step["simultaneous"]) if step.get("simultaneous") is not None else None
        holder = {}
        decide_pos = pos

        def decide(st, fr):
            L = fr.L
            who = whof(st, L) if whof is not None else L[0]
            if who is None:
                raise RuleRuntimeError("nobody to decide: 'player' is not set here (give 'who:')", decide_pos)
            if who in st.lay.automata:
                raise RuleRuntimeError(f"{st.lay.seat_names[who]} is an automaton and takes no decisions; "
                                       "the rules must act for it", decide_pos)
            opts = st.options_for(actions, who, L)
            if not opts:
                if holder["has_otherwise"]:
                    return None  # fall into the otherwise block
                names = ", ".join(a.name for a in actions)
                raise RuleRuntimeError(f"no legal action for {st.lay.seat_names[who]} ({names}) "
                                       "and no 'otherwise' for this decision", decide_pos)
            st.pending = Decision(who, opts, as_slot, decide_pos, group)
            fr.pc = holder["after"]
            return True
        at = self.emit(decide, pos, None)
        holder["has_otherwise"] = "otherwise" in step
        otherwise = self.block(step.get("otherwise"), step.pos_of("otherwise")) if "otherwise" in step else []
        holder["after"] = self.here()
        self.cur.append(F.Decide(at, otherwise, self.here()))
        turn = self._enclosing_turn()
        if turn is not None:                   # an action's end_turn jumps from here to the turn's end
            self.proc.turn_exits[holder["after"]] = turn.extra["exit"]
        self.c.offers.extend((a, turn is not None, pos) for a in actions)

    def step_call(self, step: LDict, pos: Pos):
        name = step["call"]
        proc_decl = self.c.procedures.get(name)
        if proc_decl is None:
            self.report.error(step.pos_of("call"), f"unknown procedure '{name}'{suggest(name, self.c.procedures)}",
                              E_NAME)
            return
        binder = self._bind_args(proc_decl, step.get("with") or {}, step, f"procedure '{name}'")
        if binder is None:
            return

        def call(st, fr):
            st.frames.append(Frame(proc_decl, binder(st, fr.L)))
        self.emit(call, pos, F.CALL)

    def _bind_args(self, proc: Procedure, args, step, what):
        params = {n: (slot, t) for n, slot, t in proc.params}
        fns = []
        for key, value in (args.items() if isinstance(args, dict) else []):
            vpos = args.pos_of(key) if isinstance(args, LDict) else step.pos
            if key == "player":
                f, t = self.expr(value, vpos, "player")
                if f is not None:
                    fns.append((0, f))
                continue
            if key not in params:
                self.report.error(args.key_pos.get(key, vpos) if isinstance(args, LDict) else vpos,
                                  f"{what} has no parameter '{key}'{suggest(key, params)}", E_NAME)
                continue
            slot, ptype = params[key]
            f, t = self.expr(value, vpos, key)
            if f is None:
                continue
            if isinstance(ptype, T.ListT) and isinstance(t, T.ZoneT):
                f0 = f
                f = lambda st, L, f0=f0: tuple(st.z[f0(st, L).id])  # noqa: E731
                t = T.ListT(T.elem_of(t))
            if not T.compatible(t, ptype):
                self.report.error(vpos, f"parameter '{key}' of {what} is {T.describe(ptype)}, not {T.describe(t)}",
                                  E_TYPE)
            fns.append((slot, f))
        missing = [n for n in params if n not in (args or {})]
        if missing:
            self.report.error(step.pos, f"{what} needs {', '.join(missing)} (with: ...)", E_NAME)
            return None
        def binder(st, L):
            new = [None] * proc.nslots
            new[0] = L[0]
            for slot, f in fns:
                new[slot] = f(st, L)
            return new
        return binder

    def step_emit(self, step: LDict, pos: Pos):
        name = step["emit"]
        fields = step.get("with") or {}
        fns = []
        for key, value in fields.items():
            f, _ = self.expr(value, fields.pos_of(key), key)
            if f is not None:
                fns.append((key, f))

        def emit(st, fr):
            L = fr.L
            st.emit(name, Record({k: f(st, L) for k, f in fns}), pos)
        self.emit(emit, pos)

    def step_defer(self, step: LDict, pos: Pos):
        name = step["defer"]
        proc_decl = self.c.procedures.get(name)
        if proc_decl is None:
            self.report.error(step.pos_of("defer"), f"unknown procedure '{name}'{suggest(name, self.c.procedures)}",
                              E_NAME)
            return
        until = step.get("until")
        self.c.deferrals.append((until, step.pos_of("until")))
        binder = self._bind_args(proc_decl, step.get("with") or {}, step, f"procedure '{name}'")
        if binder is None:
            return
        once = bool(step.get("once", False))

        def defer(st, fr):
            st.defer(until, proc_decl, binder(st, fr.L), once, pos)
        self.emit(defer, pos)

    def step_end_game(self, step: LDict, pos: Pos):
        reason = step.get("end_game")
        parts = self.template(reason, step.pos_of("end_game")) if isinstance(reason, str) else None

        def end(st, fr):
            if st.logging and parts is not None:
                L = fr.L
                st.log.append("game ends: " + "".join(p if isinstance(p, str) else format_value(p(st, L))
                                                      for p in parts))
            st.end_game()
        self.emit(end, pos, F.END_GAME)

    def step_log(self, step: LDict, pos: Pos):
        parts = self.template(step["log"], step.pos_of("log"))

        def log(st, fr):
            if st.logging:
                L = fr.L
                line = "".join(p if isinstance(p, str) else format_value(p(st, L)) for p in parts)
                if len(line) > LIMITS.log_chars:
                    line = line[:LIMITS.log_chars] + f"… ({len(line):,} characters, cut)"
                st.log.append(line)
        self.emit(log, pos, F.QUIET)

    def template(self, text, pos: Pos) -> list:
        parts = []
        last = 0
        for m in re.finditer(r"\{([^{}]*)\}", text):
            parts.append(text[last:m.start()])
            inner = m.group(1)
            ipos = text.pos_at(m.start(1)) if hasattr(text, "pos_at") else pos
            f, _ = self.expr(_sub(text, m.start(1), m.end(1)), ipos, "log")
            parts.append(f if f is not None else "?")
            last = m.end()
            del inner
        parts.append(text[last:])
        return [p for p in parts if p != ""]

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
        exit_to = inner.extra["exit"]

        def leave(st, fr):
            fr.pc = exit_to["end"]
        self.emit(leave, pos, F.BREAK)

    def step_reveal(self, step: LDict, pos: Pos):
        """``reveal: ZONE(S), to: SEAT(S)``: the seats know what the zones hold
        (their observations show it, ``known(p, z)`` is true) until the contents
        change.  ``to`` defaults to ``player``."""
        zpos = step.pos_of("reveal")
        zf, zt = self.expr(step["reveal"], zpos, "what to reveal")
        tpos = step.pos_of("to") if "to" in step else pos
        tf, tt = self.expr(step.get("to", "player"), tpos, "'to'")
        if zf is None or tf is None:
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
        to_pos = tpos

        def reveal(st, fr):
            L = fr.L
            zones = zf(st, L)
            zones = (zones,) if isinstance(zones, Zone) else tuple(zones)
            seats = tf(st, L)
            seats = (seats,) if seats is None or isinstance(seats, int) else tuple(seats)
            if any(p is None for p in seats):
                raise RuleRuntimeError("reveal: 'to' names no seat (none)", to_pos)
            st.reveal(zones, seats)
        self.emit(reveal, pos)

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
            exit_to = turn.extra["exit"]

            def end_turn(st, fr):
                fr.pc = exit_to["end"] - 1       # the turn's last instruction: end the turn, next seat
            self.emit(end_turn, pos, F.JUMP)
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
            exit_to = below.proc.turn_exits.get(below.pc) if below is not None else None
            if exit_to is None:
                raise RuleRuntimeError("end_turn: the decision that chose this action was not taken in a turn",
                                       pos)
            fr.pc = len(fr.code) - 1            # the action's last instruction: the action ends
            below.pc = exit_to["end"] - 1       # then the turn's: the turn ends
        self.emit(end_action_and_turn, pos, F.JUMP)

    def _in_turns_loop(self) -> bool:
        return any(isinstance(info, LoopInfo) and info.kind == "turns" for info in self.loops)

    def step_fail(self, step: LDict, pos: Pos):
        message = str(step["fail"])

        def fail(st, fr):
            raise RuleRuntimeError(message, pos)
        self.emit(fail, pos, F.QUIET)


def _sub(text, start, end):
    """A located substring of a located string."""
    from dsl.yamlload import located_str
    if hasattr(text, "pos_at"):
        return located_str(str(text)[start:end], text.pos_at(start))
    return str(text)[start:end]


def _clamp(value, bounds):
    lo, hi = bounds
    if lo is not None and value < lo:
        return lo
    if hi is not None and value > hi:
        return hi
    return value


def _combiner(op):
    if op == "=":
        return lambda old, new: new
    if op == "+=":
        return lambda old, new: old + new
    if op == "-=":
        return lambda old, new: old - new
    return lambda old, new: old * new


def guard_ins(ins, pos: Pos, what: str):
    def guarded(st, fr):
        try:
            return ins(st, fr)
        except RuleRuntimeError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise RuleRuntimeError(f"{what}: {exc}", pos) from None
    return guarded


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
    "end_turn": StepCompiler.step_end_turn,
}

#: the keys that make a YAML mapping a step (for tools that read rulebooks: coverage, mutation)
STEP_KINDS = tuple(_STEPS)
