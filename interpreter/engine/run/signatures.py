"""What a standard-library function is: :class:`Builtin` (its signature, which the type
checker reads, and its implementation), its parameters' kinds (:class:`Param`: a list, a zone,
a lambda and how it is typed …), and ``BUILTINS``, the table every function is entered in by
the ``@builtin`` decorator (stdlib.py and grids.py; stdlib.py imports both, so the table is
whole wherever it is imported from there).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..compile import types as T


@dataclass
class Param:
    name: str
    kind: str  # value | list | zone | zones | fn | family | lead
    optional: bool = False
    expect: T.Type | None = None  # for kind == value
    #: for fn: how the lambda's parameter is typed: ("elem", arg) element of arg;
    #: ("same", arg) type of arg; ("pairs", arg, fn) list of (elem arg, elem of fn's result)
    arg_from: tuple = ()
    returns: T.Type | None = None  # expected lambda result type (None: any)


@dataclass
class Builtin:
    name: str
    doc: str
    params: list
    result: Callable  # (types: dict name -> Type, lambda_types: dict) -> Type
    impl: Callable
    variadic_numeric: bool = False  # min/max(a, b, ...)
    examples: list = field(default_factory=list)
    #: for a function whose lambda is a key applied to every item once, in order: the same
    #: function given the items (a tuple) and their keys (a list) — generated code written
    #: as statements computes the keys in a loop and calls this (no call of a lambda per item)
    keyed: Callable | None = None


BUILTINS: dict[str, Builtin] = {}


def builtin(name, doc, params, result, variadic_numeric=False):
    def deco(fn):
        BUILTINS[name] = Builtin(name, doc, params, result, fn, variadic_numeric)
        return fn
    return deco


def L(name, optional=False):
    return Param(name, "list", optional)


def V(name, expect=None, optional=False):
    return Param(name, "value", optional, expect)


def Z(name):
    return Param(name, "zone")


def FAMILY(name):
    """The name of a zone family, written bare (``grid``); the compiler passes its id."""
    return Param(name, "family")


def LEAD(name):
    """Any number (none up to all) of the family's leading index values; passed as one tuple."""
    return Param(name, "lead", optional=True)


def ZS(name):
    """A list of zones (not a zone's contents)."""
    return Param(name, "zones")


def F(name, arg_from, returns=None, optional=False):
    return Param(name, "fn", optional, arg_from=arg_from, returns=returns)


def _elem(types, name):
    return T.elem_of(types[name])


def _list_of_elem(name):
    return lambda ts, fs: T.ListT(_elem(ts, name))


def _elem_result(name):
    return lambda ts, fs: _elem(ts, name)


def _const(t):
    return lambda ts, fs: t
