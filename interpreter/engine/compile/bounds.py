"""Bounds on number variables read from the rulebook's invariants (issue 39, item 4).

An invariant that holds after every decision (``invariants:`` with ``when: always``,
the default; ``regelwerk check`` reports a broken one, RW903) bounds what an
observation can show, since observations are taken at decisions.  This module
reads the simple shapes such an invariant has and returns the bounds it states:

- ``x <= 5``, ``x < 6``, ``x >= 0``, ``0 <= x``, ``x == 3`` and ``x in 0..5`` for a
  number variable ``x``;
- the same of ``v[p]`` inside ``all(players, p -> …)`` for a variable indexed by
  one player (every instance of the family is bounded);
- any number of these joined with ``and``.

Anything else bounds nothing (an ``or``, a sum, a bound that is an expression).
The observation tensors use these where a variable declares no ``min``/``max``
(engine/knowledge/tensors.py); the variable's value is never clipped by them (``min``/``max``
are rules: an invariant only says what the rules keep).
"""
from __future__ import annotations

from dsl import ast

from . import types as T

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "=="}


def invariant_bounds(game, node) -> dict:
    """{variable name: (low or None, high or None)} that the invariant ``node`` states."""
    out: dict = {}
    _walk(game, node, frozenset(), out)
    return out


def merge(into: dict, more: dict) -> None:
    """Intersect the bounds of ``more`` into ``into``."""
    for name, (lo, hi) in more.items():
        a, b = into.get(name, (None, None))
        into[name] = (lo if a is None else a if lo is None else max(a, lo),
                      hi if b is None else b if hi is None else min(b, hi))


def _number(node):
    if isinstance(node, ast.Number) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Neg):
        v = _number(node.operand)
        return None if v is None else -v
    return None


def _variable(game, node, seats):
    """The name of the number variable ``node`` reads as a whole: a scalar by its name, or
    a family indexed by one player at a seat bound by an enclosing ``all(players, p -> …)``."""
    if isinstance(node, ast.Name):
        var = game.variables.get(node.id)
        if var is not None and var.type == T.INT and not var.index:
            return node.id
        return None
    if isinstance(node, ast.Index) and isinstance(node.obj, ast.Name) and len(node.args) == 1:
        var = game.variables.get(node.obj.id)
        arg = node.args[0]
        if (var is not None and var.type == T.INT and len(var.index) == 1 and var.index[0].type == T.PLAYER
                and isinstance(arg, ast.Name) and arg.id in seats):
            return node.obj.id
    return None


def _walk(game, node, seats, out) -> None:
    if isinstance(node, ast.BoolOp) and node.op == "and":
        for part in node.values:
            _walk(game, part, seats, out)
        return
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "all"
            and len(node.args) == 2 and isinstance(node.args[0], ast.Name) and node.args[0].id == "players"
            and isinstance(node.args[1], ast.Lambda)):
        lam = node.args[1]
        _walk(game, lam.body, seats | {lam.param}, out)
        return
    if not isinstance(node, ast.Compare):
        return
    op, left, right = node.op, node.left, node.right
    if op == "in":
        name = _variable(game, left, seats)
        if name is not None and isinstance(right, ast.Range):
            lo, hi = _number(right.lo), _number(right.hi)
            if lo is not None and hi is not None:
                merge(out, {name: (lo, hi)})
        return
    if op not in _FLIP:
        return
    name, bound = _variable(game, left, seats), _number(right)
    if name is None:
        name, bound, op = _variable(game, right, seats), _number(left), _FLIP[op]
    if name is None or bound is None:
        return
    merge(out, {name: {"<=": (None, bound), "<": (None, bound - 1), ">=": (bound, None),
                       ">": (bound + 1, None), "==": (bound, bound)}[op]})
