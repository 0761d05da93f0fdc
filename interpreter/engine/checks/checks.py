"""Semantic checks: rulebooks that are well-formed but wrong.

Run by ``regelwerk validate`` after a rulebook compiles.  Each check is a
generator that yields every finding it can prove (in the manner of
jsonschema's keyword functions); each has its own code, documented with a
bad and a fixed example in ``docs/diagnostics.md``:

======  ========  ==========================================================
code    severity  finding
======  ========  ==========================================================
RW201   warning   a definition is never used
RW202   warning   an action, procedure, phase, trigger or step cannot be reached
RW203   error     setup needs more components than the game has
RW204   error     a move can never fit its destination (kind or capacity)
RW205   error     a table's keys leave gaps or overlap (raised by the compiler)
RW206   error     a deferred effect waits for a scope that never ends there
RW207   error     a table lookup can produce a key the table does not cover
RW208   error     triggers that can fire forever without changing anything
RW209   warning   a decision may have no legal option and says nothing for that case
RW250   error     a ``display:`` hint names something the rulebook does not define
RW258   error     a ``display: boards:`` entry names no family or space, or a point off its picture
RW259   error     a ``display: score_track:`` names nothing a seat's number can be read from
RW261   warning   an action parameter's ids can name a component or value its chooser cannot see
======  ========  ==========================================================
"""
from __future__ import annotations

from typing import Iterator

from dsl import ast
from dsl.diagnostics import Diagnostic, ERROR, Pos, RuleRuntimeError, WARNING
from dsl.loader import RulebookSource

from ..compile.names import builtin_called, static_int
from ..run.layout import GameSetupError, make_layout
from .analysis import ALWAYS, Analysis, Body, SETUP_STEPS


# --- the checks ------------------------------------------------------------------

def unused_definitions(a: Analysis) -> Iterator[Diagnostic]:
    g = a.game
    uses = g.uses
    for name in g.zones:
        if not uses.get(name):
            yield Diagnostic(a.decl_pos("zones", name), f"zone '{name}' is never used", WARNING, "RW201")
    held = set()
    for fam in g.zones.values():
        held |= set(fam.holds)
    open_zones = any(not fam.holds for fam in g.zones.values())
    for name, kind in g.kinds.items():
        placed = kind.home is not None
        if not uses.get(name) and not placed and name not in held and not open_zones:
            yield Diagnostic(a.decl_pos("components", name),
                             f"components '{name}' are never used: no zone holds them and they have no home",
                             WARNING, "RW201")
        elif not placed and not uses.get(name):
            yield Diagnostic(a.decl_pos("components", name),
                             f"components '{name}' have no home: they stay in the box for the whole game",
                             WARNING, "RW201")
    offered = set()
    for body in a.all_bodies():
        for refs, _, _, _ in body.decides:
            offered |= {r for r in refs if isinstance(r, str)}
    for name in g.actions:
        if name not in offered:
            yield Diagnostic(a.decl_pos("actions", name), f"action '{name}' is never offered by a decide step",
                             WARNING, "RW201")
    called = {p for body in a.all_bodies() for p, _ in body.calls}
    for name in a.src.mapping("procedures"):
        if name not in called:
            yield Diagnostic(a.decl_pos("procedures", name), f"procedure '{name}' is never called",
                             WARNING, "RW201")
    shown = g.display.get("spaces") if isinstance(g.display, dict) else None   # display: spaces: calls them
    shown = {str(f) for spec in shown.values() if isinstance(spec, dict) for f in spec.values()} \
        if isinstance(shown, dict) else set()
    for key in ("facts", "parts"):          # display: facts: (function names as keys), parts: (as values)
        hint = g.display.get(key) if isinstance(g.display, dict) else None
        if isinstance(hint, dict):
            shown |= {str(k) for k in hint} if key == "facts" else {str(v) for v in hint.values()}
    # an enum is used where a component attribute, a variable or a parameter has it as type
    typed = {_enum_of(t) for kind in g.kinds.values() for t in kind.attributes.values()}
    typed |= {_enum_of(v.type) for v in g.variables.values()}
    for section, table, what in (("tables", g.tables, "table"), ("functions", g.functions, "function"),
                                 ("constants", g.constants, "constant"), ("enums", g.enums, "enum")):
        for name in table:
            if not uses.get(name) and not (section == "functions" and name in shown) \
                    and not (section == "enums" and name in typed):
                yield Diagnostic(a.decl_pos(section, name), f"{what} '{name}' is never used", WARNING, "RW201")
    for name, var in g.variables.items():
        if not uses.get(name) and not var.shown:
            yield Diagnostic(a.decl_pos("variables", name), f"variable '{name}' is never read", WARNING, "RW201")
    raised_anywhere = set()
    for body in a.all_bodies():
        raised_anywhere |= a.body_events(body)
    raised_anywhere |= {"action_start", "action_end"}
    for trig in g.triggers:
        if trig.event and trig.event not in raised_anywhere:
            from ..compile.context import suggest
            yield Diagnostic(trig.pos, f"trigger '{trig.name}' waits for event '{trig.event}', which nothing "
                                       f"raises{suggest(trig.event, raised_anywhere)}", WARNING, "RW201")


def _enum_of(t):
    """The enum a type is of (a symbol, or a list of symbols), else None."""
    while t is not None:
        name = getattr(t, "enum", None)
        if name is not None:
            return name
        t = getattr(t, "elem", None)
    return None


def unreachable(a: Analysis) -> Iterator[Diagnostic]:
    g = a.game
    offered_reached = set()
    for key in a.reached:
        for refs, _, _, _ in a.bodies[key].decides:
            offered_reached |= {r for r in refs if isinstance(r, str)}
    for body in a.inline_reached:
        for refs, _, _, _ in body.decides:
            offered_reached |= {r for r in refs if isinstance(r, str)}
    offered_anywhere = {r for b in a.all_bodies() for refs, _, _, _ in b.decides for r in refs if isinstance(r, str)}
    for name in g.actions:
        if name in offered_anywhere and name not in offered_reached:
            yield Diagnostic(a.decl_pos("actions", name), f"action '{name}' can never be offered: only "
                                                          "unreachable steps offer it", WARNING, "RW202")
    called_anywhere = {p for b in a.all_bodies() for p, _ in b.calls}
    for name in a.src.mapping("procedures"):
        if name in called_anywhere and f"proc:{name}" not in a.reached:
            yield Diagnostic(a.decl_pos("procedures", name), f"procedure '{name}' is only called from "
                                                             "unreachable steps", WARNING, "RW202")
    for trig in g.triggers:
        key = f"trigger:{trig.name}"
        if key not in a.reached and trig.event:
            raised = any(trig.event in a.body_events(b) for b in a.all_bodies())
            if raised:
                yield Diagnostic(trig.pos, f"trigger '{trig.name}' can never fire: only unreachable steps raise "
                                           f"'{trig.event}'", WARNING, "RW202")
    for key, body in a.bodies.items():
        if key not in a.reached:
            for name, pos in body.phases:
                yield Diagnostic(pos, f"phase '{name}' can never be reached ({body.name} never runs)",
                                 WARNING, "RW202")
    for body in a.all_bodies():
        for pos, why in body.dead:
            yield Diagnostic(pos, f"these steps can never run: {why}", WARNING, "RW202")


def component_accounting(a: Analysis) -> Iterator[Diagnostic]:
    """Run setup for every player count and variant; a short draw or an
    overfull zone there is a rulebook that needs more than the game has."""
    from ..run.start import try_setup
    g = a.game
    layouts: dict = {}
    seen = set()
    variant_sets = [()] + [(v,) for v in sorted(g.variants)]
    for n in range(g.min_players, g.max_players + 1):
        for variants in variant_sets:
            for seed in (1, 2):
                label = f"{n} players" + (f", variant {variants[0]}" if variants else "")
                try:
                    if (n, variants) not in layouts:
                        layouts[n, variants] = make_layout(g, n, None, variants)
                    state, error = try_setup(g, layouts[n, variants], seed, logging=False, limit=SETUP_STEPS)
                except GameSetupError as exc:
                    key = ("layout", str(exc))
                    if key not in seen:
                        seen.add(key)
                        yield Diagnostic(Pos(a.src.files[0]), f"with {label}: {exc}", ERROR, "RW203")
                    continue
                except RuleRuntimeError as exc:  # the layout itself (a count, a domain) fails
                    if (exc.pos, "layout") not in seen:
                        seen.add((exc.pos, "layout"))
                        yield Diagnostic(exc.pos, f"with {label}: {exc.message}", ERROR, "RW203")
                    continue
                # a short draw first: it is the cause of whatever fails after it
                for pos, wanted, got, zone in state.short_draws:
                    key = (pos, "short")
                    if key not in seen:
                        seen.add(key)
                        yield Diagnostic(pos, f"setup with {label} draws {wanted} from {zone} but only {got} "
                                              f"{'is' if got == 1 else 'are'} there", ERROR, "RW203")
                if error is not None and not state.short_draws:
                    code = "RW204" if ("is full" in error.message or "cannot hold" in error.message) else "RW203"
                    key = (error.pos, code)
                    if key not in seen:
                        seen.add(key)
                        yield Diagnostic(error.pos, f"setup with {label}: {error.message}", ERROR, code)
                if error is not None or state.short_draws:
                    break  # another seed would only say it again


def table_coverage(a: Analysis) -> Iterator[Diagnostic]:
    g = a.game
    for name, key, ranges in g.table_lookups:
        table = g.tables.get(name)
        if table is None or not table.ranges:
            continue
        span = interval(key, ranges, g)
        if span is None:
            continue
        lo, hi, lo_known = span
        top = max((r for r in table.ranges), key=lambda r: (r[1] is None, r[1] if r[1] is not None else 0))
        if hi is None and top[1] is not None:
            yield Diagnostic(key.pos, f"table '{name}' stops at {top[1]}, but this key has no upper bound; "
                                      f"add an open row such as '{top[1] + 1}+'", ERROR, "RW207")
            continue
        if hi is None:
            continue
        start = lo if lo_known else max(lo, min(r[0] for r in table.ranges))
        for value in range(start, hi + 1):
            if not any(value >= r[0] and (r[1] is None or value <= r[1]) for r in table.ranges):
                yield Diagnostic(key.pos, f"table '{name}' has no row for {value}, which this key can take",
                                 ERROR, "RW207")
                break


_UNBOUNDED = {"count", "count_nonempty", "sum", "room", "capacity", "max"}


def interval(node, ranges, g):
    """(lo, hi, lo_known) of a whole-number key, hi None for unbounded; None if unknown."""
    if isinstance(node, ast.Name) and node.id in ranges:     # a loop value hides a constant of its name
        lo, hi = ranges[node.id]
        return lo, hi, True
    v = static_int(node, g)
    if v is not None:
        return v, v, True
    if builtin_called(node, g) in _UNBOUNDED:
        if node.func.id == "count" and node.args:
            target = node.args[0].obj if isinstance(node.args[0], ast.Index) else node.args[0]
            fam = g.zones.get(target.id) if isinstance(target, ast.Name) and target.id not in ranges else None
            if fam is not None and fam.capacity_literal is not None:
                return 0, fam.capacity_literal, False   # a zone holds at most its capacity
        return 0, None, False
    if isinstance(node, ast.BinOp) and node.op in ("+", "-"):
        left = interval(node.left, ranges, g)
        c = static_int(node.right, g)
        if left is None or c is None:
            return None
        lo, hi, known = left
        c = c if node.op == "+" else -c
        return lo + c, (hi + c if hi is not None else None), known
    if isinstance(node, ast.IfExp):
        a_, b_ = interval(node.body, ranges, g), interval(node.orelse, ranges, g)
        if a_ is None or b_ is None:
            return None
        hi = None if a_[1] is None or b_[1] is None else max(a_[1], b_[1])
        return min(a_[0], b_[0]), hi, a_[2] and b_[2]
    return None


def deferred_points(a: Analysis) -> Iterator[Diagnostic]:
    """A defer in the flow (or in an action the flow offers) must have its scope open."""
    offered_from: dict = {}
    for name in ("setup", "flow", "scoring"):
        body = a.bodies.get(name)
        if body is None:
            continue
        for until, pos, enclosing in body.defers:
            if until not in enclosing:
                yield Diagnostic(pos, f"nothing named '{until}' is open here, so this deferred effect would "
                                      f"never run (open here: {', '.join(sorted(enclosing)) or 'nothing'})",
                                 ERROR, "RW206")
        for refs, _, _, enclosing in body.decides:
            for ref in refs:
                if isinstance(ref, str):
                    offered_from.setdefault(ref, []).append(enclosing)
    for name, contexts in offered_from.items():
        body = a.bodies.get(f"action:{name}")
        if body is None:
            continue
        offered_elsewhere = any(name in [r for r in refs if isinstance(r, str)]
                                for key, b in a.bodies.items() if key not in ("setup", "flow", "scoring")
                                for refs, _, _, _ in b.decides)
        if offered_elsewhere:
            continue
        for until, pos, enclosing in body.defers:
            if ALWAYS in enclosing:
                continue
            for ctx in contexts:
                if until not in enclosing and until not in ctx:
                    yield Diagnostic(pos, f"action '{name}' is offered where no '{until}' is open, so this "
                                          "deferred effect would never run", ERROR, "RW206")
                    break


def trigger_cycles(a: Analysis) -> Iterator[Diagnostic]:
    g = a.game
    procs = a.src.mapping("procedures")

    def moved_kinds(body: Body) -> list:
        proc = g.all_procs.get(body.name)
        if proc is not None:
            return list(proc.moved_kinds)
        return [None] if (body.moves or body.draws) else []

    def closure(body: Body, seen=None):
        """sets, moved kinds, events of a body and everything it calls."""
        seen = seen if seen is not None else set()
        sets, moves, events = set(body.sets), moved_kinds(body), a.body_events(body)
        for inner in body.inline:
            s2, m2, ev2 = closure(inner, seen)
            sets |= s2
            moves += m2
            events |= ev2
        for proc, _ in body.calls:
            key = f"proc:{proc}"
            if key in a.bodies and key not in seen and proc in procs:
                seen.add(key)
                s2, m2, ev2 = closure(a.bodies[key], seen)
                sets |= s2
                moves += m2
                events |= ev2
        return sets, moves, events

    def can_change(family: str, moves: list) -> bool:
        """May a move of these kinds change the contents of this zone family?"""
        holds = g.zones[family].holds
        return any(k is None or not holds or (k & holds) for k in moves)

    def reads_of(names):
        out = set(names)
        stack = list(names)
        while stack:
            n = stack.pop()
            f = g.functions.get(n)
            if f is not None:
                for r in f.reads - out:
                    out.add(r)
                    stack.append(r)
        return out

    for trig in g.triggers:
        body = a.bodies.get(f"trigger:{trig.name}")
        if body is None:
            continue
        sets, moves, events = closure(body)
        ends = body.ends_always
        if trig.event is None:
            reads = reads_of(trig.reads)
            zones_read = [n for n in reads if n in g.zones]
            if ends or (sets & reads) or any(can_change(z, moves) for z in zones_read):
                continue
            yield Diagnostic(trig.pos, f"trigger '{trig.name}' can fire forever: its effects change nothing its "
                                       f"condition reads ({', '.join(sorted(reads)) or 'nothing'})", ERROR, "RW208")
        elif trig.when is None and trig.event in events and not ends:
            yield Diagnostic(trig.pos, f"trigger '{trig.name}' raises '{trig.event}' again with no condition: it "
                                       "fires forever", ERROR, "RW208")


def empty_decisions(a: Analysis) -> Iterator[Diagnostic]:
    g = a.game
    for body in a.all_bodies():
        for refs, pos, has_otherwise, _ in body.decides:
            if has_otherwise:
                continue
            always = False
            for ref in refs:
                if isinstance(ref, Body):
                    always = always or getattr(ref, "always", False)
                    continue
                action = g.actions.get(ref)
                if action is not None and not action.params and action.where is None:
                    always = True
            if not always:
                yield Diagnostic(pos, "this decision may have no legal option and has no 'otherwise' (add one, "
                                      "or an action that is always legal such as 'pass')", WARNING, "RW209")


def display_hints(a: Analysis) -> Iterator[Diagnostic]:
    """RW250: a `display:` hint names a family, index, symbol, variable or action that does not exist."""
    from ..display.display import check_display
    yield from check_display(a.src, a.game)


def action_sentences(a: Analysis) -> Iterator[Diagnostic]:
    """RW251: an action's `say:` names no parameter or does not parse; RW252: a drawn rulebook's action
    without `say:`."""
    from ..display.say import check_say
    yield from check_say(a.src, a.game)


def rules_document_names(a: Analysis) -> Iterator[Diagnostic]:
    """RW274: a name a rules document (`regelwerk rules`) would print raw, in a drawn rulebook;
    RW254: a `display: names:` entry that names nothing used."""
    from ..display.wording import unnamed
    yield from unnamed(a.src, a.game)


def bounded_parameters(a: Analysis) -> Iterator[Diagnostic]:
    """RW240: a parameter whose values cannot be bounded before the game (no fixed action space).
    A warning: the game plays, tests and is checked without one; only ``Rulebook.action_space``
    and the learning adapters refuse it (with the same message)."""
    from ..run.layout import make_layout
    from ..run.spaces import unbounded_parameters
    g = a.game
    seen = set()
    for n in range(g.min_players, g.max_players + 1):
        try:
            lay = make_layout(g, n)
        except Exception:  # noqa: BLE001 - a layout that cannot be made is reported by other checks
            continue
        for action, param, pos, why in unbounded_parameters(g, lay):
            key = (action.name, param, pos.file, pos.line, pos.col)
            if key not in seen:
                seen.add(key)
                yield Diagnostic(pos, why, WARNING, "RW240")


#: functions whose result names nothing of what they read (a count, a truth value, a sum)
_NAMES_NOTHING = frozenset(("len", "count", "empty", "known", "sum", "any", "all", "exists", "min", "max"))


def _hidden_refs(node, game):
    """The zone and variable families the values of ``node`` come from that a seat may not
    see: (kind, family, index arguments or None for all).  Conditions and counts are not
    sources: ``[q for q in players if not empty(hand[q])]`` names seats, not cards."""
    if isinstance(node, (ast.Index, ast.Name)):
        name = node.obj.id if isinstance(node, ast.Index) and isinstance(node.obj, ast.Name) else \
            getattr(node, "id", None)
        args = node.args if isinstance(node, ast.Index) else None
        if name in game.zones and game.zones[name].visible_const is not True:
            yield "zone", game.zones[name], args
            return
        if name in game.variables and game.variables[name].visible_const is not True:
            yield "variable", game.variables[name], args
            return
        if isinstance(node, ast.Index):
            yield from _hidden_refs(node.obj, game)
        return
    if isinstance(node, ast.ListComp):
        yield from _hidden_refs(node.elt, game)
        for f in node.fors:
            yield from _hidden_refs(f.iter, game)
        return
    if isinstance(node, (ast.Compare, ast.BoolOp, ast.Not)):
        return
    if isinstance(node, ast.Call):
        if builtin_called(node, game) in _NAMES_NOTHING:
            return
        for arg in node.args:
            yield from _hidden_refs(arg, game)
        return
    if isinstance(node, ast.IfExp):
        yield from _hidden_refs(node.body, game)
        yield from _hidden_refs(node.orelse, game)
        return
    for value in vars(node).values():
        if isinstance(value, ast.Node):
            yield from _hidden_refs(value, game)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, ast.Node):
                    yield from _hidden_refs(item, game)


def leaky_parameters(a: Analysis) -> Iterator[Diagnostic]:
    """RW261: an action parameter drawn from a zone (or variable) that its chooser may not see:
    the legal action ids, which the chooser is shown, would name what it may not know.  Judged
    on every layout, for every seat as the chooser, before the game starts (an index written
    ``player`` is the chooser's; any other index may be any)."""
    from ..run.start import fresh_state
    from ..run.layout import make_layout
    from ..knowledge.observe import var_visible, zone_visible
    g = a.game
    actions = [act for act in list(g.actions.values()) + list(g.inline_actions.values())
               if any(p.tree is not None for p in act.params)]
    if not actions:
        return
    reported = set()
    shown = revealed_when_offered(a.src, g)
    for n in range(g.min_players, g.max_players + 1):
        try:
            st = fresh_state(g, make_layout(g, n), 0, False)
        except Exception:  # noqa: BLE001 - a layout that cannot be made is reported by other checks
            continue
        for act in actions:
            for param in act.params:
                if param.tree is None or (act.name, param.name) in reported:
                    continue
                for kind, fam, args in _hidden_refs(param.tree, g):
                    if fam.name in shown.get(act.name, ()):
                        continue            # a reveal: step showed it to the chooser just before
                    what = _hidden_for_a_chooser(st, kind, fam, args, zone_visible, var_visible)
                    if what is not None:
                        reported.add((act.name, param.name))
                        yield Diagnostic(param.pos, f"parameter '{param.name}' of '{act.name}' takes its values "
                                         f"from {kind} '{what}', which the seat choosing "
                                         f"may not see: the legal action ids it is shown would name them (draw "
                                         f"the choice from what the chooser sees, e.g. a position: 1..count(…))",
                                         WARNING, "RW261")
                        break


_STEP_CHANGES = ("move", "draw", "shuffle", "set", "call", "random", "for", "while", "repeat", "turns", "if",
                 "phase", "round", "scope", "bidding")


def revealed_when_offered(src, game) -> dict:
    """action name -> the zone and variable families a ``reveal:`` step showed to the
    chooser (``to:`` left out, ``player`` or ``players``) among the steps right before every
    decide step that offers it (nothing that may change them between: only logs, lets,
    tells and other reveals), so its ids name nothing the chooser does not see then."""
    import re
    families = set(game.zones) | set(game.variables)
    found: dict = {}

    def walk(value):
        if isinstance(value, list):
            shown: set = set()
            for step in value:
                if isinstance(step, dict) and "reveal" in step:
                    to = str(step.get("to", "player")).strip()
                    if to in ("player", "players"):
                        shown |= set(re.findall(r"[A-Za-z_]\w*", str(step["reveal"]))) & families
                    continue
                if isinstance(step, dict) and "decide" in step and "together" not in step:
                    for ref in step.get("decide") or ():
                        name = ref if isinstance(ref, str) else ref.get("name") if isinstance(ref, dict) else None
                        if name is not None:
                            found.setdefault(name, []).append(frozenset(shown))
                elif isinstance(step, dict) and any(k in step for k in _STEP_CHANGES):
                    shown = set()
                walk(step)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
    for section in ("setup", "flow", "procedures", "actions", "triggers"):
        walk(src.sections.get(section))
    return {name: frozenset.intersection(*sets) for name, sets in found.items() if sets}


def _hidden_for_a_chooser(st, kind, fam, args, zone_visible, var_visible):
    """The name of an instance of ``fam`` that some chooser may not see, else None."""
    players = [i for i, arg in enumerate(args or ()) if isinstance(arg, ast.Name) and arg.id == "player"]
    for seat in range(st.lay.num_seats):
        if kind == "zone":
            items = [(z, z.index_values, z.name) for z in st.lay.zones if z.family == fam.name]
        else:
            keys = st.lay.vkeys[fam.family_id] if fam.index else {None: fam.offset}
            items = [(key, key if isinstance(key, tuple) else (key,), f"{fam.name}[{key}]" if fam.index else fam.name)
                     for key in keys]
        for item, values, name in items:
            if any(i < len(values) and values[i] != seat for i in players):
                continue            # an instance the chooser's parameter never reads
            try:
                seen = (zone_visible(st, item, seat) if kind == "zone" else var_visible(st, fam, item, seat))
            except Exception:  # noqa: BLE001 - a rule that cannot be judged before the game: not reported here
                seen = True
            if not seen:
                return name
    return None


CHECKS = (unused_definitions, unreachable, component_accounting, table_coverage, deferred_points,
          trigger_cycles, empty_decisions, display_hints, action_sentences, bounded_parameters,
          leaky_parameters, rules_document_names)


def run_checks(source: RulebookSource, game) -> list[Diagnostic]:
    a = Analysis(source, game)
    out = []
    for check in CHECKS:
        out.extend(check(a))
    return out
