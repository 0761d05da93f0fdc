"""The steps that change the state or tell the seats, written as Python text: ``set``/``let``
(and what a drawn or secret value taints, RW260), ``move``, ``draw``, ``shuffle``, ``emit``,
``defer``, ``end_game``, ``log``, ``reveal``, ``tell``, ``fail``.  A part of
:class:`~interpreter.engine.compile.steps.StepCompiler` (steps.py composes it).
"""
from __future__ import annotations

import re

from dsl import ast
from dsl.diagnostics import Pos, RuleRuntimeError
from dsl.parser import ParseError, parse_assignment
from dsl.yamlload import LDict

from . import types as T
from .codegen import local as _l
from .context import suggest, E_NAME, E_TYPE
from .names import _family_key
from . import flowcode as F
from ..run.limits import LIMITS, kept
from ..run.values import Record, Zone, bounded, format_value


class EffectSteps:
    """The state-changing and telling steps of :class:`StepCompiler`."""

    __slots__ = ()

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
        else:   # a list's value is most often a tuple already, and of one component or none (State.move alike)
            lines = [f"_w_mv = {ws}",
                     "if _w_mv.__class__ is not tuple:",
                     f"    _w_mv = {self.bind(_components, 'f')}(st, _w_mv, {self.bind(step.pos_of('move'), 'pos')})",
                     "if len(_w_mv) == 1:",
                     f"    st.move_component(_w_mv[0], {ds}, {bottom}, {where})",
                     "elif _w_mv:",
                     f"    st.move(_w_mv, {ds}, {bottom}, {where})"]
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
