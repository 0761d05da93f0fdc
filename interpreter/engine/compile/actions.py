"""The rulebook's actions compiled: their parameters (domains hoisted out of the loops,
set parameters' sizes, ``bounds:``), the ``where`` filter and steps, inline actions of a
``decide``, secret parameters and what the others are told (redaction), and which actions
need no check that an id is offered twice (``mark_distinct_options``).  A part of
:class:`~interpreter.engine.compile.compiler.Compiler` (compiler.py composes it).
"""
from __future__ import annotations

import re
from collections import Counter

from dsl import ast
from dsl.diagnostics import Pos
from dsl.yamlload import LDict

from . import types as T
from .context import E_NAME, E_TYPE, Scope, suggest
from .calls import yields_distinct
from .codegen import Gen, LazyExpr, id_is_value, id_kept_by_value, local
from .model import ActionDecl, ParamSpec, Procedure
from . import flowcode
from ..run.choices import choose_sets, parse_size
from .steps import StepCompiler


class Actions:
    """The action passes of :class:`Compiler`."""

    __slots__ = ()

    def declare_actions(self, actions: LDict):
        g = self.game
        for name, spec in actions.items():
            if not isinstance(spec, dict):
                continue
            proc = Procedure(f"action:{name}", actions.key_pos[name], kind="action")
            g.actions[name] = ActionDecl(name, actions.key_pos[name], [], None, proc)
            g.action_by_proc[proc.name] = g.actions[name]

    def compile_actions(self, actions: LDict):
        for name, spec in actions.items():
            if name in self.game.actions:
                self._compile_action(self.game.actions[name], spec, Scope([("player", T.PLAYER)]))

    def compile_inline_action(self, spec: LDict, pos: Pos, parent: Procedure, parent_scope: Scope) -> ActionDecl:
        name = spec["name"]
        proc = Procedure(f"action:{name}@{pos.line}:{pos.col}", pos, kind="action")
        action = ActionDecl(name, pos, [], None, proc)
        # the inline action sees the enclosing locals: same slots, copied in
        scope = Scope()
        scope.names = list(parent_scope.names)
        scope.blocks = [dict((k, list(v)) for b in parent_scope.blocks for k, v in b.items())]
        action.inherit = len(parent_scope.names)
        self.game.inline_actions[proc.name] = action
        self.game.action_by_proc[proc.name] = action
        self._compile_action(action, spec, scope)
        return action

    def hoist_domain(self, tree, params: list, scope: Scope, gen: Gen, pos: Pos, pname: str, whole: tuple):
        """A parameter's domain (``whole``: its text, type and statements) that does not read
        the parameter just before it: made once per value of the parameters it reads.  Or a
        domain ``[e for v in L if c1 and c2 and ...]`` whose list ``L`` and
        first conditions ``c1 ...`` do not read the parameter just before it: those parts
        written once per value of the parameters they do read (``ParamSpec.hoist``), the
        rest — ``[e for v in H if ...]`` over that list ``H`` — per combination
        (``ParamSpec.rest``).  Speed only: the values and their order are the same, each part
        is computed where it was first needed (laziness keeps a failure where it was), and
        the compile leaves no trace in the checks' records (uses, table lookups, the report).
        None when the domain is not of that form or nothing can be moved."""
        if self.game.coverage is not None:
            return None
        names = [p.name for p in params]
        last = len(names)

        def level(node) -> int:
            """1 + the position of the last parameter ``node`` reads (0: none)."""
            read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            return max((i + 1 for i, name in enumerate(names) if name in read), default=0)

        whole_at = level(tree)
        if whole_at < last:
            text, typ, pre = whole
            hslot = scope.declare(f"{pname} domain", typ)     # a name no rulebook can write (a space)
            return (whole_at, hslot, text, pre), (local(hslot), [])
        if (not isinstance(tree, ast.ListComp) or len(tree.fors) != 1
                or len(tree.fors[0].names) != 1 or tree.cond is None):
            return None
        var = tree.fors[0].names[0]
        if var in names:
            return None
        conds = tree.cond.values if isinstance(tree.cond, ast.BoolOp) and tree.cond.op == "and" else [tree.cond]
        at = level(tree.fors[0].iter)
        if at >= last:
            return None
        k = 0
        while k < len(conds) and level(conds[k]) < last:
            at = max(at, level(conds[k]))
            k += 1
        if k == 0:
            return None
        g = self.game
        before = (dict(g.uses), len(g.table_lookups), g.dynamic_reads, len(self.report.items))
        try:
            hidden = f"{pname} domain"           # a name no rulebook can write (a space)
            first = ast.ListComp(ast.Name(var, pos=tree.pos), [ast.CompFor([var], tree.fors[0].iter, pos=tree.pos)],
                                 conds[0] if k == 1 else ast.BoolOp("and", conds[:k], pos=tree.cond.pos),
                                 pos=tree.pos)
            htext, htype, hpre = self.text_expr(first, pos, scope, gen, f"parameter {pname}")
            if htext is None or len(self.report.items) != before[3]:
                return None
            hslot = scope.declare(hidden, htype)
            rest = conds[k:]
            second = ast.ListComp(tree.elt, [ast.CompFor([var], ast.Name(hidden, pos=tree.pos), pos=tree.pos)],
                                  None if not rest else rest[0] if len(rest) == 1
                                  else ast.BoolOp("and", rest, pos=rest[0].pos), pos=tree.pos)
            rtext, _, rpre = self.text_expr(second, pos, scope, gen, f"parameter {pname}")
            if rtext is None or len(self.report.items) != before[3]:
                return None
            return (at, hslot, htext, hpre), (rtext, rpre)
        finally:
            uses, lookups, dynamic, items = before
            g.uses.clear()
            g.uses.update(uses)
            del g.table_lookups[lookups:]
            g.dynamic_reads = dynamic
            del self.report.items[items:]

    def _compile_action(self, action: ActionDecl, spec: LDict, scope: Scope):
        proc = action.proc
        gen = proc.gen = Gen()      # the action's generated code: options and steps
        action.player_slot = 0
        self.in_option_domains = True       # calls made here are an option enumerator's
        try:
            self._compile_domains(action, spec, scope, gen)
        finally:
            self.in_option_domains = False
        self._compile_bounds(action, spec, scope)
        self._compile_secret(action, spec)
        sc = StepCompiler(self, proc, scope)
        sc.action_name = action.name        # what its steps keep of its parameters (GameDef.secret_kept)
        sc.params = {p.slot: p.name for p in action.params}
        sc.emit(flowcode.STMT, [sc.scope_start("action", action.name)], proc.pos, ("action_start",))
        sc.steps(spec.get("do"), spec.pos_of("do"))
        sc.emit(flowcode.STMT, [sc.scope_end("action", action.name)], proc.pos, sc.scope_end_pushes("action", action.name))
        proc.nslots = scope.nslots
        proc.slot_names = list(scope.names)

    def _compile_domains(self, action: ActionDecl, spec: LDict, scope: Scope, gen: Gen):
        """The domains of an action's parameters and its ``where``."""
        for pname, domain in (spec.get("params") or {}).items():
            dpos = spec["params"].pos_of(pname)
            if pname == "player":
                self.report.error(spec["params"].key_pos.get(pname, dpos), "'player' is the seat that decides; "
                                                                           "name the parameter differently", E_NAME)
                continue
            choose = None
            sizes = None                            # the size's bounds as Python text, their statements
            if isinstance(domain, dict):            # {set: LIST, size: K}: a set-valued choice
                spos = domain.pos_of("size") if "size" in domain else dpos
                choose = parse_size(domain.get("size"))
                if choose is None:
                    sizes = self._set_size(pname, domain.get("size"), spos, scope, gen)
                    choose = (0, None) if sizes is not None else (0, 0)
                dpos = domain.pos_of("set") if "set" in domain else dpos
                domain = domain.get("set", [])
            tree = None if isinstance(domain, list) else self.parse(domain, dpos)
            if tree is None and not isinstance(domain, list):
                text, typ, pre = None, T.ANY, []     # a syntax error, reported
            else:
                text, typ, pre = self.text_expr(domain if tree is None else tree, dpos, scope, gen,
                                                f"parameter {pname}")
            if text is not None and not T.is_listlike(typ):
                self.report.error(dpos, f"parameter '{pname}' must range over a list (its choices), "
                                        f"not {T.describe(typ)}", E_TYPE)
            elem = T.elem_of(typ)
            if isinstance(typ, T.ZoneT):
                text = f"st.z[{text}.id]"
            text = text or "()"
            if choose is not None:                  # its values: the sets, each a list in the set order
                lo, hi = (str(int(choose[0])), str(int(choose[1]))) if sizes is None else sizes[:2]
                if sizes is not None:
                    pre = [*pre, *sizes[2]]
                text = gen.guard(f"{gen.bind(choose_sets, 'f')}({text}, {lo}, {hi})", dpos,
                                 f"set parameter '{pname}'")
                elem = T.ListT(elem)
                action.has_sets = True
            split = None
            if choose is None and tree is not None and action.params and text != "()":
                split = self.hoist_domain(tree, action.params, scope, gen, dpos, pname, (text, typ, pre))
            slot = scope.declare(pname, elem)
            action.params.append(ParamSpec(pname, LazyExpr(gen, text, dpos, pre), elem, slot, dpos, domain, tree,
                                           text, pre, choose, *(split or (None, None))))
        if "where" in spec:
            wpos = spec.pos_of("where")
            text, _, pre = self.text_expr(spec["where"], wpos, scope, gen, "where", cond=True)
            if text is not None:
                action.where = LazyExpr(gen, text, wpos, pre)
                action.where_text = text
            action.where_pos = wpos

    def _set_size(self, pname: str, size, pos: Pos, scope: Scope, gen: Gen):
        """The ``size:`` of a set parameter that is not a literal number or "lo..hi": an
        expression of the state (``count(hand[player]) - 3``) or a range of two
        (``"0..count(hand[player])"``), as ``(lo_text, hi_text, pre)``; None when it is
        neither (reported)."""
        literal = isinstance(size, str) and re.fullmatch(r"\s*-?\d+\s*(\.\.\s*-?\d+\s*)?", size)
        tree = self.parse(size, pos) if isinstance(size, str) and not literal else None
        if tree is None:
            if not isinstance(size, str) or literal:
                self.report.error(pos, f"the size of set parameter '{pname}' must be a number, \"lo..hi\" or an "
                                       f"expression giving a number, not {size!r}", E_TYPE)
            return None
        ends = (tree.lo, tree.hi) if isinstance(tree, ast.Range) else (tree, tree)
        texts, pre = [], []
        for end in ends:
            text, typ, more = self.text_expr(end, pos, scope, gen, f"the size of set parameter '{pname}'")
            if text is None:
                return None
            if not T.is_numeric(typ):
                self.report.error(pos, f"the size of set parameter '{pname}' must be a number, not "
                                       f"{T.describe(typ)}", E_TYPE)
                return None
            texts.append(text)
            pre.extend(more)
        return texts[0], texts[1], pre

    def _compile_secret(self, action: ActionDecl, spec: LDict):
        """`secret: true` (every parameter), `secret: false` (none), `secret: [names]`, or by
        default: a component parameter the action moves (`move: NAME`) into a zone not everyone
        may see, unless its choices are a zone everyone sees (others saw it leave)."""
        names = [p.name for p in action.params]
        secret = spec.get("secret")
        if secret is True:
            action.secret = True
            action.secret_params = frozenset(names)
            return
        if secret is False:
            return
        if isinstance(secret, list):
            chosen = set()
            for i, name in enumerate(secret):
                if name not in names:
                    where = secret.pos_of(i) if hasattr(secret, "pos_of") else spec.pos_of("secret")
                    self.report.error(where, f"action '{action.name}' has no parameter '{name}'"
                                             f"{suggest(str(name), names)}", E_NAME)
                else:
                    chosen.add(name)
            action.secret_params = frozenset(chosen)
            return
        comps = {p.name for p in action.params
                 if isinstance(p.type, T.Comp) or (T.is_listlike(p.type) and isinstance(T.elem_of(p.type), T.Comp))}
        if not comps:
            return
        zones = self.game.zones

        def family(text):
            m = re.match(r"\s*([A-Za-z_]\w*)\s*(\[|$)", text) if isinstance(text, str) else None
            return zones.get(m.group(1)) if m and m.group(1) not in names else None
        hidden = set()

        def walk(steps):
            for step in steps if isinstance(steps, list) else ():
                if not isinstance(step, dict):
                    continue
                moved = step.get("move")
                if isinstance(moved, str) and moved.strip() in comps:
                    fam = family(step.get("to"))
                    if fam is not None and fam.visible_const is not True:
                        hidden.add(moved.strip())
                for key in ("then", "else", "do", "otherwise"):
                    walk(step.get(key))
        walk(spec.get("do"))
        for p in action.params:
            src = family(p.source) if p.name in hidden else None
            if src is not None and src.visible_const is True:
                hidden.discard(p.name)            # chosen from an open zone: everyone saw it go
        action.secret_params = frozenset(hidden)

    def compile_redaction(self):
        """GameDef.redact: per action name, what another seat is not told of the decision."""
        g = self.game
        display_secret = g.display.get("secret") if isinstance(g.display, dict) else None
        display_secret = {str(n) for n in display_secret} if isinstance(display_secret, list) else set()
        for action in list(g.actions.values()) + list(g.inline_actions.values()):
            names = tuple(p.name for p in action.params)
            hidden = frozenset(names) if action.name in display_secret else action.secret_params
            if hidden and action.name not in g.redact:
                g.redact[action.name] = (names, hidden)

    def mark_distinct_options(self):
        """ActionDecl.distinct_options: which actions' options cannot repeat an id
        (exprs.yields_distinct for every domain, values that are their own id part)."""
        g = self.game
        actions = list(g.actions.values()) + list(g.inline_actions.values())
        names = Counter(a.name for a in actions)
        trees = {name: f.tree for name, f in g.functions.items() if f.tree is not None}
        for action in actions:
            if names[action.name] > 1 or not action.params:
                continue
            ok = True
            for spec in action.params:
                local = frozenset(action.proc.slot_names[:spec.slot])   # what the domain sees: not itself
                if not id_is_value(spec.type):
                    ok = False
                elif isinstance(spec.source, list):
                    try:
                        ok = len(set(spec.source)) == len(spec.source)
                    except TypeError:       # a list of records
                        ok = False
                else:
                    ok = spec.tree is not None and yields_distinct(spec.tree, g, local, trees)
                if not ok:
                    break
            action.distinct_options = ok

    def plan_option_ids(self):
        """ActionDecl.ids: a place to keep the ids written, for the actions whose parameter values
        key their ids (codegen.id_kept_by_value: a replay writes the id of every decision it takes)."""
        g = self.game
        for action in list(g.actions.values()) + list(g.inline_actions.values()):
            if action.params and all(id_kept_by_value(p.type) for p in action.params):
                action.ids = {}

    def _compile_bounds(self, action: ActionDecl, spec: LDict, scope: Scope):
        """`bounds: {param: "lo..hi"}`: every value a parameter can ever take (for the action space)."""
        bounds = spec.get("bounds") or {}
        names = {p.name for p in action.params}
        for pname, text in bounds.items():
            bpos = bounds.pos_of(pname)
            if pname not in names:
                self.report.error(bounds.key_pos.get(pname, bpos), f"bounds: action '{action.name}' has no "
                                  f"parameter '{pname}'{suggest(pname, names)}", E_NAME)
                continue
            fn, typ = self.dyn_expr(text, bpos, scope, f"bounds of {pname}")
            if fn is not None and not T.is_listlike(typ):
                self.report.error(bpos, f"the bounds of '{pname}' must be a list of values, "
                                        f"not {T.describe(typ)}", E_TYPE)
            action.bounds[pname] = (text, bpos)
