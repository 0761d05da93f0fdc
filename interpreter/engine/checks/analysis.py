"""What the semantic checks (checks.py) read: every body of steps scanned once (:class:`Body`:
the steps it holds, the names it uses, the scopes around them, what it calls, emits and
defers; ``scan``), and :class:`Analysis`, the whole rulebook's bodies, callers and
reachability, made once per ``regelwerk validate``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from dsl.diagnostics import Pos
from dsl.loader import RulebookSource
from dsl.yamlload import LDict, LList


SCOPE_STEPS = ("phase", "round", "scope")
#: a setup that runs longer than this is stuck (the trigger-cycle check says why)
SETUP_STEPS = 100_000
ALWAYS = "*"  # a scope kind that every context has (for procedures and triggers we cannot see the callers of)


@dataclass
class Body:
    """What one list of steps (and everything nested in it) does."""

    name: str
    pos: Pos
    calls: list = field(default_factory=list)  # (procedure, pos)
    decides: list = field(default_factory=list)  # (refs, pos, has_otherwise, enclosing scopes)
    inline: list = field(default_factory=list)  # Body of inline actions offered here
    emits: set = field(default_factory=set)
    draws: bool = False
    moves: bool = False
    sets: set = field(default_factory=set)
    ends: bool = False  # contains end_game
    ends_always: bool = False  # an end_game among its own top-level steps
    scopes: set = field(default_factory=set)  # scope kinds/names opened here
    events: set = field(default_factory=set)  # scope events raised here
    defers: list = field(default_factory=list)  # (until, pos, enclosing scopes)
    phases: list = field(default_factory=list)  # (name, pos)
    dead: list = field(default_factory=list)  # (pos, why)


def _target(text) -> str | None:
    m = re.match(r"\s*([A-Za-z_]\w*)", str(text))
    return m.group(1) if m else None


def _literal_bool(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip() in ("true", "false"):
        return value.strip() == "true"
    return None


def scan(name: str, steps, pos: Pos, enclosing=frozenset()) -> Body:
    body = Body(name, pos)
    _scan_list(body, steps, set(enclosing))
    body.ends_always = isinstance(steps, list) and any(isinstance(s, dict) and "end_game" in s for s in steps)
    return body


def _scan_list(body: Body, steps, enclosing: set) -> None:
    if not isinstance(steps, list):
        return
    stopped = None
    for i, step in enumerate(steps):
        spos = steps.pos_of(i) if isinstance(steps, LList) else body.pos
        if not isinstance(step, dict):
            continue
        if stopped is not None:
            body.dead.append((spos, f"it comes after the '{stopped}' above it"))
            stopped = None  # one finding per list is enough
        _scan_step(body, step, spos, enclosing)
        if "end_game" in step or "fail" in step:
            stopped = "end_game" if "end_game" in step else "fail"


def _scan_step(body: Body, step: LDict, pos: Pos, enclosing: set) -> None:
    if "set" in step:
        t = _target(step["set"])
        if t:
            body.sets.add(t)
    if "move" in step:
        body.moves = True
    if "draw" in step:
        body.draws = True
    if "shuffle" in step or "random" in step or "reveal" in step:
        body.moves = True
    if "emit" in step:
        body.emits.add(str(step["emit"]))
    if "end_game" in step:
        body.ends = True
    if "call" in step:
        body.calls.append((str(step["call"]), step.pos_of("call")))
    if "defer" in step:
        body.calls.append((str(step["defer"]), step.pos_of("defer")))
        body.defers.append((str(step.get("until")), step.pos_of("until"), frozenset(enclosing)))
    if "for" in step and isinstance(step.get("for"), str):
        t = _target(step["for"])
        if t:
            body.sets.add(t)
    if "random" in step:
        t = _target(step["random"])
        if t:
            body.sets.add(t)
    if "decide" in step and isinstance(step["decide"], list):
        refs = []
        for j, ref in enumerate(step["decide"]):
            if isinstance(ref, str):
                refs.append(ref)
            elif isinstance(ref, dict) and "name" in ref:
                rpos = step["decide"].pos_of(j)
                inner = scan(f"{body.name}/{ref['name']}", ref.get("do") or [], rpos, enclosing | {"action"})
                inner.is_inline = True
                inner.always = not ref.get("params") and "where" not in ref
                body.inline.append(inner)
                refs.append(inner)
        # a decision taken together needs no otherwise: a seat with nothing legal takes no part
        body.decides.append((refs, pos, "otherwise" in step or "together" in step, frozenset(enclosing)))
        _scan_list(body, step.get("otherwise"), enclosing)
    if "if" in step:
        lit = _literal_bool(step["if"])
        if lit is False and step.get("then"):
            body.dead.append((step.pos_of("then"), "its condition is always false"))
        if lit is True and step.get("else"):
            body.dead.append((step.pos_of("else"), "its condition is always true"))
        _scan_list(body, step.get("then"), enclosing)
        _scan_list(body, step.get("else"), enclosing)
    if "while" in step and "turns" not in step:
        if _literal_bool(step["while"]) is False and step.get("do"):
            body.dead.append((step.pos_of("do"), "the loop's condition is always false"))
        _scan_list(body, step.get("do"), enclosing)
    if "for" in step or "repeat" in step:
        _scan_list(body, step.get("do"), enclosing)
    if "turns" in step:
        body.scopes.add("turn")
        body.events.update(("turn_start", "turn_end"))
        _scan_list(body, step.get("do"), enclosing | {"turn"})
    for kind in SCOPE_STEPS:
        if kind in step and "do" in step:
            name = step[kind]
            name = kind if name in (True, None, False) else str(name)
            scope_kind = name if kind == "scope" else kind
            body.scopes.update((scope_kind, name))
            body.events.update((f"{scope_kind}_start", f"{scope_kind}_end"))
            if kind == "phase":
                body.phases.append((name, pos))
            _scan_list(body, step.get("do"), enclosing | {scope_kind, name})
            break


class Analysis:
    """Everything the checks need, gathered once."""

    def __init__(self, source: RulebookSource, game):
        self.src = source
        self.game = game
        s = source
        self.bodies: dict[str, Body] = {}
        self.roots = []
        for name in ("setup", "flow"):
            if name in s.sections:
                b = scan(name, s.steps(name), s.section_pos.get(name, Pos("?")))
                self.bodies[name] = b
                self.roots.append(name)
        end = s.sections.get("end")
        if isinstance(end, dict) and end.get("scoring"):
            self.bodies["scoring"] = scan("scoring", end["scoring"], end.pos_of("scoring"))
            self.roots.append("scoring")
        procs = s.mapping("procedures")
        for name, spec in procs.items():
            steps = spec.get("do") if isinstance(spec, dict) else spec
            self.bodies[f"proc:{name}"] = scan(f"proc:{name}", steps, procs.key_pos[name], {ALWAYS})
        actions = s.mapping("actions")
        for name, spec in actions.items():
            if isinstance(spec, dict):
                self.bodies[f"action:{name}"] = scan(f"action:{name}", spec.get("do"), actions.key_pos[name],
                                                     {"action"})
        triggers = s.mapping("triggers")
        for name, spec in triggers.items():
            if isinstance(spec, dict):
                self.bodies[f"trigger:{name}"] = scan(f"trigger:{name}", spec.get("do"), triggers.key_pos[name],
                                                      {ALWAYS})
        self.reach()

    def body_events(self, body: Body) -> set:
        ev = set(body.emits) | set(body.events)
        if body.draws:
            ev |= {"drawn", "moved"}
        if body.moves:
            ev.add("moved")
        return ev

    def reach(self):
        reached = set(self.roots)
        inline_reached = []
        changed = True
        events = set()
        while changed:
            changed = False
            todo = [self.bodies[n] for n in reached] + inline_reached
            for body in todo:
                new_events = self.body_events(body)
                if not new_events <= events:
                    events |= new_events
                    changed = True
                for proc, _ in body.calls:
                    key = f"proc:{proc}"
                    if key in self.bodies and key not in reached:
                        reached.add(key)
                        changed = True
                for refs, _, _, _ in body.decides:
                    for ref in refs:
                        if isinstance(ref, Body):
                            if ref not in inline_reached:
                                inline_reached.append(ref)
                                changed = True
                            continue
                        key = f"action:{ref}"
                        if key in self.bodies and key not in reached:
                            reached.add(key)
                            changed = True
                            events |= {"action_start", "action_end"}
            for trig in self.game.triggers:
                key = f"trigger:{trig.name}"
                if key in reached:
                    continue
                if trig.event is None or trig.event in events:
                    reached.add(key)
                    changed = True
        self.reached = reached
        self.inline_reached = inline_reached
        self.events = events

    def all_bodies(self):
        yield from self.bodies.values()
        for body in list(self.bodies.values()):
            yield from self._inline(body)

    def _inline(self, body):
        for b in body.inline:
            yield b
            yield from self._inline(b)

    def decl_pos(self, section: str, name: str) -> Pos:
        m = self.src.mapping(section)
        return m.key_pos.get(name, m.pos)
