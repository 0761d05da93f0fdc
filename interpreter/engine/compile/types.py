"""Static types of the expression language.

The compiler gives every expression a type and reports misuse (a number
used as a condition, a zone compared with a number, an unknown attribute)
before a game runs.  ``ANY`` switches checking off for one value; it is
what an erroneous expression gets, so that one mistake is reported once.
"""
from __future__ import annotations

from dataclasses import dataclass


class Type:
    name = "?"

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__


@dataclass(frozen=True, eq=True)
class Basic(Type):
    name: str

    def __str__(self) -> str:
        return self.name


INT = Basic("int")
BOOL = Basic("bool")
STR = Basic("str")
PLAYER = Basic("player")
NONE = Basic("none")
ANY = Basic("any")


@dataclass(frozen=True)
class Sym(Type):
    """A symbol of an enum."""

    enum: str

    def __str__(self) -> str:
        return self.enum


@dataclass(frozen=True)
class Comp(Type):
    """A component of one of ``kinds`` (empty: any kind)."""

    kinds: frozenset = frozenset()

    def __str__(self) -> str:
        return "component" if not self.kinds else "|".join(sorted(self.kinds))


@dataclass(frozen=True)
class ZoneT(Type):
    """A zone holding components of ``holds`` (empty: any kind)."""

    holds: frozenset = frozenset()

    def __str__(self) -> str:
        return "zone" if not self.holds else f"zone of {'|'.join(sorted(self.holds))}"


@dataclass(frozen=True)
class ListT(Type):
    elem: Type = ANY

    def __str__(self) -> str:
        return f"list of {self.elem}"


@dataclass(frozen=True)
class TupleT(Type):
    items: tuple = ()

    def __str__(self) -> str:
        return "(" + ", ".join(str(t) for t in self.items) + ")"


@dataclass(frozen=True)
class RecordT(Type):
    fields: tuple = ()  # ((name, type), ...)

    def field(self, name):
        for n, t in self.fields:
            if n == name:
                return t
        return None

    def __str__(self) -> str:
        return "{" + ", ".join(f"{n}: {t}" for n, t in self.fields) + "}"


@dataclass(frozen=True)
class MapT(Type):
    """A constant map or a table: indexed by ``key``, giving ``value``."""

    key: Type = ANY
    value: Type = ANY

    def __str__(self) -> str:
        return f"map of {self.key} to {self.value}"


def is_any(t: Type) -> bool:
    return t is ANY or t == ANY


def _holds(t: Type, kind) -> bool:
    """Is ``t``, or a type inside it (list element, tuple item, record field, map key or value), ``kind``?"""
    if kind(t):
        return True
    if isinstance(t, ListT):
        return _holds(t.elem, kind)
    if isinstance(t, TupleT):
        return any(_holds(x, kind) for x in t.items)
    if isinstance(t, RecordT):
        return any(_holds(x, kind) for _, x in t.fields)
    if isinstance(t, MapT):
        return _holds(t.key, kind) or _holds(t.value, kind)
    return False


def may_hold_zone(t: Type) -> bool:
    """Could a value of type ``t`` be, or contain, a zone?"""
    return _holds(t, lambda x: isinstance(x, ZoneT) or is_any(x))


def depth_unbounded(t: Type) -> bool:
    """May a value of type ``t`` nest deeper than ``t`` says (it is, or holds, ``any``)?"""
    return _holds(t, is_any)


def is_numeric(t: Type) -> bool:
    return t in (INT, PLAYER) or is_any(t)


def is_listlike(t: Type) -> bool:
    return isinstance(t, (ListT, ZoneT, TupleT)) or is_any(t)


def elem_of(t: Type) -> Type:
    """Element type when ``t`` is iterated (a zone yields its components)."""
    if isinstance(t, ListT):
        return t.elem
    if isinstance(t, ZoneT):
        return Comp(t.holds)
    if isinstance(t, TupleT):
        return join_all(t.items) if t.items else ANY
    return ANY


def join(a: Type, b: Type) -> Type | None:
    """The common type of two values (for if/else, list items), or None."""
    if a == b:
        return a
    if is_any(a) or is_any(b):
        return ANY
    if a == NONE:
        return b
    if b == NONE:
        return a
    if {a, b} <= {INT, PLAYER}:
        return INT
    if isinstance(a, Comp) and isinstance(b, Comp):
        if not a.kinds or not b.kinds:
            return Comp()
        return Comp(a.kinds | b.kinds)
    if isinstance(a, ZoneT) and isinstance(b, ZoneT):
        if not a.holds or not b.holds:
            return ZoneT()
        return ZoneT(a.holds | b.holds)
    if isinstance(a, (ListT, ZoneT, TupleT)) and isinstance(b, (ListT, ZoneT, TupleT)):
        inner = join(elem_of(a), elem_of(b))
        return ListT(inner if inner is not None else ANY)
    if isinstance(a, RecordT) and isinstance(b, RecordT):
        names = [n for n, _ in a.fields]
        if names == [n for n, _ in b.fields]:
            merged = []
            for (n, ta), (_, tb) in zip(a.fields, b.fields):
                j = join(ta, tb)
                if j is None:
                    return None
                merged.append((n, j))
            return RecordT(tuple(merged))
    return None


def join_all(types) -> Type:
    result = None
    for t in types:
        result = t if result is None else (join(result, t) or ANY)
    return result if result is not None else ANY


def compatible(actual: Type, expected: Type) -> bool:
    """Can a value of type ``actual`` be used where ``expected`` is wanted?"""
    if is_any(actual) or is_any(expected) or actual == expected:
        return True
    if actual == NONE:
        return True
    if {actual, expected} <= {INT, PLAYER}:
        return True
    if isinstance(expected, Comp) and isinstance(actual, Comp):
        return not expected.kinds or not actual.kinds or actual.kinds <= expected.kinds
    if isinstance(expected, ZoneT) and isinstance(actual, ZoneT):
        return True
    if isinstance(expected, ListT) and isinstance(actual, (ListT, ZoneT, TupleT)):
        return compatible(elem_of(actual), expected.elem)
    if isinstance(expected, TupleT) and isinstance(actual, TupleT):
        return len(expected.items) == len(actual.items) and all(
            compatible(a, e) for a, e in zip(actual.items, expected.items))
    if isinstance(expected, RecordT) and isinstance(actual, RecordT):
        return all(actual.field(n) is not None and compatible(actual.field(n), t) for n, t in expected.fields)
    return False


def comparable(a: Type, b: Type) -> bool:
    """May ``a == b`` be written?  Values of unrelated types never equal."""
    return join(a, b) is not None


def describe(t: Type) -> str:
    """The type in words, for messages."""
    if t == INT:
        return "a number"
    if t == BOOL:
        return "a boolean"
    if t == STR:
        return "a string"
    if t == PLAYER:
        return "a player"
    if t == NONE:
        return "none"
    if isinstance(t, Sym):
        return f"a {t.enum}"
    if isinstance(t, Comp):
        return f"a component ({t})" if t.kinds else "a component"
    if isinstance(t, ZoneT):
        return "a zone"
    if isinstance(t, (ListT, TupleT)):
        return f"a list ({t})"
    if isinstance(t, RecordT):
        return f"a record {t}"
    if isinstance(t, MapT):
        return "a table"
    return "a value"


def type_from_name(word: str, enums, kinds) -> Type | None:
    """Parse a declared type name (``int``, ``list of tile``, an enum, a kind)."""
    word = word.strip()
    if word.startswith("list of "):
        inner = type_from_name(word[len("list of "):], enums, kinds)
        return ListT(inner) if inner is not None else None
    simple = {"int": INT, "bool": BOOL, "str": STR, "player": PLAYER, "any": ANY,
              "component": Comp(), "zone": ZoneT(), "list": ListT(ANY)}
    if word in simple:
        return simple[word]
    if word in enums:
        return Sym(word)
    if word in kinds:
        return Comp(frozenset([word]))
    if word.startswith("zone of "):
        kind = word[len("zone of "):]
        if kind in kinds:
            return ZoneT(frozenset([kind]))
    return None


#: attributes every component has, read ``c.kind`` and ``c.label``
BUILTIN_ATTRIBUTES = ("kind", "label")
#: a name no component attribute may have (the engine numbers components itself)
RESERVED_ATTRIBUTES = ("id",)


def attribute_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a declared attribute of a component (the same words at the
    declaration, in a label and where it is read), or None."""
    if name in RESERVED_ATTRIBUTES:
        return (f"'{name}' is reserved and is no attribute of a component (the engine numbers components "
                f"itself); declare the attribute under another name, such as 'number'")
    if name in BUILTIN_ATTRIBUTES:
        return (f"'{name}' is a built-in attribute of every component (read it as c.{name}); it cannot be "
                f"declared: give your attribute another name, such as '{'sort' if name == 'kind' else 'title'}'")
    return None
