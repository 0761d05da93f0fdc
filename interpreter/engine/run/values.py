"""Run-time values that are not plain Python values.

Integers, booleans, strings, enum symbols (``str``), players (``int``),
``None`` and lists (``tuple``) are plain Python values.  Components and
zones are interned objects made once per game layout and shared by every
state and clone; records are immutable.  All values are immutable, so a
state clone never copies a value, only the containers that hold them.
"""
from __future__ import annotations

import sys

from .limits import LIMITS, LimitError, count_work


class MissingAttribute(KeyError):
    """A component read for an attribute its kind does not have."""

    def __init__(self, label: str, name: str):
        super().__init__(name)
        self.label = label


class Attrs(dict):
    """A component's attributes: a dictionary that names the component when a key is missing."""

    __slots__ = ("label",)

    def __missing__(self, name):
        raise MissingAttribute(self.label, name)


def attribute_slot(name: str) -> str | None:
    """The Python attribute that holds a component's attribute ``name`` (``color``: ``a_color``),
    or None when ``name`` cannot be one (read from ``attrs`` then).  Generated code reads
    ``t.a_color``, a slot of the component's class — a fixed offset, where ``t.attrs["color"]``
    is a dictionary lookup (compile/names.py)."""
    return "a_" + name if isinstance(name, str) and name.isidentifier() else None


_CLASSES: dict = {}


def component_class(names) -> type:
    """The class of a layout's components: :class:`Component` with one slot per attribute
    name of the rulebook's kinds (``attribute_slot``), made once per set of names."""
    key = tuple(sorted({n for n in names if attribute_slot(n) is not None}))
    cls = _CLASSES.get(key)
    if cls is None:
        cls = _CLASSES[key] = type("Component", (Component,), {
            "__slots__": tuple(attribute_slot(n) for n in key), "__module__": __name__,
            "_attribute_names": key, "_slot_of": {n: attribute_slot(n) for n in key},
            "__doc__": Component.__doc__})
    return cls


def _component(names, cid, kind, attrs, label):
    """Unpickle a component (``Component.__reduce__``)."""
    return component_class(names)(cid, kind, attrs, label)


class Component:
    """One physical component: its kind, attributes and label never change.

    ``attrs`` holds the attributes by name; a layout's components are of a subclass
    (``component_class``) that holds each also in a slot of its own (``a_<name>``),
    for the generated code; a kind without an attribute leaves its slot empty."""

    __slots__ = ("id", "kind", "attrs", "label")
    _attribute_names: tuple = ()
    _slot_of: dict = {}

    def __init__(self, cid: int, kind: str, attrs: dict, label: str):
        self.id = cid
        self.kind = sys.intern(str(kind))     # a plain, shared str: compared at full speed
        self.attrs = Attrs(attrs)
        self.attrs.label = label
        self.label = label
        slot_of = self._slot_of
        if slot_of:
            for name, value in attrs.items():
                slot = slot_of.get(name)
                if slot is not None:
                    setattr(self, slot, value)

    def __reduce__(self):
        return _component, (self._attribute_names, self.id, self.kind, dict(self.attrs), self.label)

    def __repr__(self) -> str:
        return self.label

    def attribute(self, name: str):
        """The value of attribute ``name``, the built-in ``label`` and ``kind`` included."""
        if name == "label":
            return self.label
        if name == "kind":
            return self.kind
        return self.attrs.get(name)

    def __lt__(self, other) -> bool:  # a stable order for sorting
        return self.id < other.id


class Zone:
    """One zone instance (``hand[2]``); its contents live in the state."""

    __slots__ = ("id", "family", "key", "name", "type", "capacity", "holds", "owner", "visible", "refill", "index_values")

    def __init__(self, zid, family, key, name, ztype, capacity, holds, owner, index_values):
        self.id = zid
        self.family = family
        self.key = key
        self.name = name
        self.type = ztype
        self.capacity = capacity
        self.holds = holds
        self.owner = owner
        self.index_values = index_values
        self.visible = None
        self.refill = None

    def __repr__(self) -> str:
        return self.name

    def __lt__(self, other) -> bool:
        return self.id < other.id


class Record:
    """An immutable record with attribute access (``o.star``)."""

    __slots__ = ("_fields",)

    def __init__(self, fields: dict):
        object.__setattr__(self, "_fields", dict(fields))

    @classmethod
    def of(cls, fields: dict) -> "Record":
        """A record of ``fields``, a new dictionary nobody else holds (not copied)."""
        r = cls.__new__(cls)
        r._fields = fields
        return r

    def get(self, name, default=None):
        return self._fields.get(name, default)

    def __getitem__(self, name):
        return self._fields[name]

    def items(self):
        return self._fields.items()

    def __eq__(self, other) -> bool:
        return isinstance(other, Record) and self._fields == other._fields

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._fields.items(), key=lambda kv: kv[0])))

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k}: {format_value(v)}" for k, v in self._fields.items()) + "}"


_NESTS = frozenset({tuple, list, dict, frozenset, set, Record})
#: containers of at least _BIG elements that were measured: id -> (value, depth, size), holding the
#: value (its id cannot be reused while it is here); emptied when it holds too many elements
_measured: dict = {}
_measured_size = [0]
_BIG = 64


def _items(value):
    if type(value) is Record:
        return tuple(value._fields.values())
    if type(value) is dict:
        return tuple(value) + tuple(value.values())
    return value


def _too_deep():
    return LimitError(f"a value nested more than {LIMITS.depth:,} levels deep (limit 'depth')")


def _measure(value, room: int, seen: dict) -> tuple:
    """(how deep ``value``, a container, nests: 1 for a flat list; how many elements it holds in all,
    a part that appears twice counted twice); a LimitError past ``room`` levels.  ``seen``: the parts
    measured in this walk (by id; the value holds them), so a part shared many times is walked once."""
    if room <= 0:
        raise _too_deep()
    got = seen.get(id(value))
    if got is not None:
        return got
    items = _items(value)
    n = len(items)
    big = n >= _BIG
    if big:
        known = _measured.get(id(value))
        if known is not None and known[0] is value:
            if known[1] > room:
                raise _too_deep()
            return known[1:]
    count_work(n)
    deepest, size = 0, n
    if not _NESTS.isdisjoint(map(type, items)):     # C speed for a flat list
        for item in items:
            if type(item) in _NESTS:
                d, k = _measure(item, room - 1, seen)
                size += k
                if d > deepest:
                    deepest = d
    result = seen[id(value)] = (deepest + 1, size)
    if big:
        if _measured_size[0] + n > 4 * LIMITS.elements:
            _measured.clear()
            _measured_size[0] = 0
        _measured[id(value)] = (value, *result)
        _measured_size[0] += n
    return result


def bounded(value):
    """``value`` itself, once it nests at most LIMITS.depth levels deep and holds at most
    LIMITS.elements elements in all (parts it shares counted each time: what formatting, hashing and
    the log would walk); else a LimitError.  What a variable keeps or a procedure is given when its
    type does not bound the value (``any``, ``list``)."""
    if type(value) in _NESTS:
        _, size = _measure(value, LIMITS.depth, {})
        if size > LIMITS.elements:
            raise LimitError(f"a value of {size:,} elements in all (its parts counted each time they appear); "
                             f"at most {LIMITS.elements:,} are allowed (limit 'elements')")
    return value


def format_value(value) -> str:
    """A value as it appears in action ids, logs and messages."""
    t = value.__class__
    if t is int:                        # the most frequent, first (a bool's class is bool, not int)
        return str(value)
    if t is str:
        return value
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "none"
    if isinstance(value, (Component, Zone)):
        return repr(value)
    if isinstance(value, tuple):
        return "(" + ",".join(format_value(v) for v in value) + ")"
    if isinstance(value, list):
        return "[" + ",".join(format_value(v) for v in value) + "]"
    return str(value)


def plain(value, key=None):
    """A value as plain data: components by label, zones by name, lists for
    tuples, dicts for records; ``key`` converts dictionary keys (default: the same)."""
    if isinstance(value, (Component, Zone)):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return [plain(v, key) for v in value]
    if isinstance(value, Record):
        return {k: plain(v, key) for k, v in value.items()}
    if isinstance(value, dict):
        return {(key or plain)(k): plain(v, key) for k, v in value.items()}
    return value


def encode(value, comps_by_id=None):
    """A JSON-able form of a value (see :func:`decode`)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, Component):
        return {"c": value.id}
    if isinstance(value, Zone):
        return {"z": value.id}
    if isinstance(value, tuple):
        return {"t": [encode(v) for v in value]}
    if isinstance(value, list):
        return {"l": [encode(v) for v in value]}
    if isinstance(value, Record):
        return {"r": {k: encode(v) for k, v in value.items()}}
    if isinstance(value, dict):
        return {"d": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, (set, frozenset)):
        return {"s": [encode(v) for v in sorted(value, key=repr)]}
    raise TypeError(f"cannot encode {value!r}")


def decode(data, layout):
    if data is None or isinstance(data, (bool, int, str)):
        return data
    (tag, body), = data.items()
    if tag == "c":
        return layout.components[body]
    if tag == "z":
        return layout.zones[body]
    if tag == "t":
        return tuple(decode(v, layout) for v in body)
    if tag == "l":
        return [decode(v, layout) for v in body]
    if tag == "r":
        return Record({k: decode(v, layout) for k, v in body.items()})
    if tag == "d":
        return {decode(k, layout): decode(v, layout) for k, v in body}
    if tag == "s":
        return frozenset(decode(v, layout) for v in body)
    raise ValueError(f"bad encoded value {data!r}")
