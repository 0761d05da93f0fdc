"""The small records a game state is made of: the frames of its call stack, its open
scopes, the pending decision and its options.

They live apart from :mod:`interpreter.runtime` for the native build: Cython compiles
``runtime`` (setup.py), and an ``__init__`` it compiles sets ``__slots__`` fields by
name, more slowly than Python does (Python 3.11 specialises those stores); these
classes are made in the hot loop (a decision, a frame per call), so they stay Python.
:mod:`interpreter.runtime` imports them under their old names.
"""
from __future__ import annotations

from .choices import format_set
from .values import Component, Record, format_value


class Frame:
    __slots__ = ("proc", "code", "pc", "L", "trigger")

    def __init__(self, proc, L, pc=0, trigger=None):
        self.proc = proc
        self.code = proc.entries or proc.code
        self.pc = pc
        self.L = L
        self.trigger = trigger

    def copy(self) -> "Frame":
        return Frame(self.proc, list(self.L), self.pc, self.trigger)


class ScopeRec:
    __slots__ = ("kind", "name", "deferred")

    def __init__(self, kind, name, deferred=None):
        self.kind = kind
        self.name = name
        #: (procedure, locals, trigger) of each effect deferred to this scope's end; None before the first
        #: (most scopes never get one; a record with None may be shared by every run of its scope,
        #: so State.defer puts a record of the scope's own in its place before the first)
        self.deferred = deferred

    def copy(self) -> "ScopeRec":
        return ScopeRec(self.kind, self.name, list(self.deferred) if self.deferred else None)


class Option:
    """One legal action: the action and the parameter values; its id is written
    only when asked for (bots and playouts choose by index and never need it)."""

    __slots__ = ("_id", "action", "values")

    def __init__(self, action, values, oid=None):
        self._id = oid
        self.action = action
        self.values = values

    @property
    def id(self) -> str:
        oid = self._id
        if oid is None:
            oid = self._id = option_id(self.action, self.values)
        return oid

    def record(self) -> Record:
        return Record({"action": self.action.name,
                       **{p.name: v for p, v in zip(self.action.params, self.values)}})


class Decision:
    """A pending decision: who decides and the legal options, as ``(action, values)``
    pairs (``raw``, what the option enumerators list); :class:`Option` objects are made
    only when asked for (``options``) — a playout choosing by index never needs them."""

    __slots__ = ("who", "raw", "_options", "_by_id", "as_slot", "pos", "group", "held", "seats")

    def __init__(self, who, raw, as_slot, pos, group=None, held=None, seats=None):
        self.who = who
        self.raw = raw
        self._options = None
        self._by_id = None
        self.as_slot = as_slot
        self.pos = pos
        #: the `simultaneous:` group of the decide step, or None
        self.group = group
        #: a decision taken together (`together:`): the local of the deciding frame that holds
        #: the options chosen so far, and every seat still to choose (``who`` first, then the
        #: others in seat order); None for a decision of one seat
        self.held = held
        self.seats = seats

    @property
    def options(self) -> list:
        """The legal options as :class:`Option` objects, in order (made when first asked for)."""
        opts = self._options
        if opts is None:
            opts = self._options = [Option(action, values) for action, values in self.raw]
        return opts

    @property
    def by_id(self) -> dict:
        """The options by id (built when first asked for)."""
        m = self._by_id
        if m is None:
            m = self._by_id = {o.id: o for o in self.options}
        return m


def option_id(action, values) -> str:
    """The id of the option ``(action, values)``: ``name(param=value,…)``; kept by the values
    for an action whose values key their ids (``ActionDecl.ids``, up to ``_IDS_KEPT``)."""
    if not action.params:
        return action.name
    ids = action.ids if type(values) is tuple else None
    if ids is not None and (oid := ids.get(values)) is not None:
        return oid
    if action.has_sets:             # a set parameter's part is written in braces
        inner = ",".join(f"{p.name}={format_set(v) if p.choose else format_value(v)}"
                         for p, v in zip(action.params, values))
    else:
        inner = ",".join(f"{p.name}={format_value(v)}" for p, v in zip(action.params, values))
    oid = f"{action.name}({inner})"
    if ids is not None and len(ids) < _IDS_KEPT:
        ids[values] = oid
    return oid


#: ids kept per action (ActionDecl.ids): an action space is finite, a number without bounds is not
_IDS_KEPT = 4096


def id_part(v):
    """What of a parameter value its action id shows (a component: its label;
    components with one label are interchangeable), without writing the id."""
    t = type(v)
    if t is int or t is str:
        return v
    if isinstance(v, Component):        # (of its layout's class: run/values.py component_class)
        return v.label
    return format_value(v)


