"""A new game's first state: a fresh state of a layout, its setup and flow frames, a phase label entered.

Used by :class:`~interpreter.engine.rulebook.Rulebook` (new games, scenarios' starts), by the
semantic checks (setup run for every player count) and by explicit chance (a chance game's start).
"""
from __future__ import annotations

from dsl.diagnostics import RuleRuntimeError

from . import rng as rngmod
from .layout import GameSetupError
from ..compile.model import Procedure
from .runtime import Frame, ScopeRec, State, run


def new_locals(proc) -> list:
    return [None] * max(proc.nslots, 1)


def local_slot(proc, name):
    names = getattr(proc, "slot_names", None) or []
    if name in names:
        return names.index(name)
    raise GameSetupError(f"the flow has no local '{name}' to set")


def fresh_state(game, lay, seed: int, logging: bool) -> State:
    st = State.__new__(State)
    st.game = game
    st.lay = lay
    st.z = list(map(list, lay.start_contents))       # each zone a list of its own, copied at C speed
    st.where = list(lay.start_where)
    st.v = list(lay.init_vars)
    st.rng = rngmod.seed_state(seed)
    st.ahead = rngmod.Ahead()
    st.seed = seed
    st.frames = []
    st.scopes = []
    st.pending = None
    st._history = []
    st.status = "play"
    st.running = frozenset()
    st.forced = []
    st.log = []
    st.log_marks = []
    st.logging = logging
    st.steps = 0
    st.error = None
    st.memo = [None] * st.game.memo_size
    st.short_draws = []
    st.known = {}
    st.drawn = {}
    st.facts = ()
    st.chance = None
    st.broken = []
    st.moved = None
    st.rec = None
    st.zf, st.zi, st.zn, st.vk = lay.zfam, lay.zid, lay.zidn, lay.vkeys
    st.origin = None
    st.script = None
    return st


def enter_label(st: State, frame: Frame, label_name: str, local_values: dict | None) -> None:
    """Position ``frame`` (of the flow) at a phase label, as if play got there."""
    proc = frame.proc
    label = proc.labels.get(label_name)
    if label is None:
        known = ", ".join(sorted(proc.labels)) or "none"
        raise GameSetupError(f"the flow has no phase '{label_name}' to start at (phases: {known})")
    local_values = dict(local_values or {})
    L = frame.L
    names = proc.slot_names
    for name, value in local_values.items():
        if name == "player":
            L[0] = value
        elif name in names:
            L[names.index(name)] = value
    for info in label.enclosing:
        if info.__class__.__name__ == "ScopeInfo":
            st.scopes.append(ScopeRec(info.kind, info.name))
            continue
        if info.kind == "for":
            items = tuple(info.iterable(st, L))
            if info.var_global is not None:
                current = st.v[info.var_global]
            elif info.var_slot is not None:
                current = L[info.var_slot]
            else:
                current = None
            idx = items.index(current) if current in items else 0
            L[info.iter_slot] = items
            L[info.index_slot] = idx + 1
            if items:
                if info.var_global is not None:
                    st.v[info.var_global] = items[idx]
                elif info.var_slot is not None:
                    L[info.var_slot] = items[idx]
        elif info.kind == "turns":
            seat = local_values.get("player", L[info.var_slot] if info.var_slot is not None else 0) or 0
            L[info.index_slot] = seat
            if info.var_slot is not None:
                L[info.var_slot] = seat
            L[info.extra["taken"]] = 0
            L[info.extra["skipped"]] = 0
            st.scopes.append(ScopeRec("turn", "turn"))
        elif info.kind == "repeat":
            L[info.index_slot] = 0
    frame.pc = label.pc


def with_frames(st: State) -> State:
    """``st`` ready to play from the beginning: the flow's frame under the setup's (setup runs first)."""
    game = st.game
    if game.flow is not None:
        st.frames.append(Frame(game.flow, new_locals(game.flow)))
    if game.setup is not None:
        st.frames.append(Frame(game.setup, new_locals(game.setup)))
        st.status = "setup"
    return st


def start_game(game, lay, seed: int, logging: bool = True, chance=None) -> State:
    """A new game run up to its first decision; ``chance``: given the new state, the function
    that answers its random numbers (``State.chance``, kept on the state: a replay's)."""
    st = with_frames(fresh_state(game, lay, seed, logging))
    if chance is not None:
        st.chance = chance(st)
    run(st)
    return st


def try_setup(game, lay, seed: int = 0, logging: bool = True, limit: int | None = None):
    """Run the setup on a fresh state; return (state, None), or (the state as far as it got, the rule error)."""
    st = fresh_state(game, lay, seed, logging)
    halt = Procedure("halt", game.flow.pos if game.flow else None, code=[lambda s, f: True], kind="halt")
    st.frames.append(Frame(halt, [None]))
    if game.setup is not None:
        st.frames.append(Frame(game.setup, new_locals(game.setup)))
    st.status = "setup"
    try:
        run(st) if limit is None else run(st, limit)
    except RuleRuntimeError as exc:
        return st, exc
    st.frames.clear()
    return st, None
