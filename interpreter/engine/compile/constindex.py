"""A step-code ``for`` over a constant list whose body runs only for the elements that hold a
value: run over those elements alone, found in an index made once per list.

    for: "b in structures"
    do:
      - if: "(s, k) in b.spaces and ..."      # or  b.kind == x,  x == b.kind
        then: [...]

Every element whose ``spaces`` does not hold ``(s, k)`` skips the body, so the loop may run over
the elements that hold it, in their order, instead (``items_with``); the condition is still
tested in each round, so the index only has to be a superset.  The compiler writes the loop
so (:func:`indexed_iterable`) only when that is certainly the same: the body is that one
``if`` without ``else``; the loop variable is a local; the list is a declared constant (the
same value all game long: a per-layout constant is one list per layout, whose index the
layout keeps); the value looked
for (``(s, k)``) is made of literals and locals that nothing in the body assigns (no
``set``, ``let``, ``for`` or ``random`` in it names them), so it is the same in every round.
The value is computed once, where the loop starts.  What can differ is only the count of
rounds against the step limit (``steps``), which is lower.
"""
from __future__ import annotations

import re

from dsl import ast
from dsl.yamlload import LDict

from ..run.values import Record

#: the step keys that may assign a name
_ASSIGNING = ("set", "let", "for", "random")

def items_with(indexes: dict, xs, field: str, member: bool, x):
    """The elements of the constant list ``xs`` (in its order) whose field ``field`` holds
    ``x`` (``member``) or equals it; all of ``xs`` when it cannot tell (an element that is not
    a record with the field, a field that is not a list or tuple, a value that cannot be hashed).
    ``indexes``: the layout's ``const_index``, where each list's index is kept."""
    key = (id(xs), field, member)
    hit = indexes.get(key)
    if hit is None or hit[0] is not xs:
        hit = indexes[key] = (xs, _index(xs, field, member))     # keeps xs alive: its id stays its own
    index = hit[1]
    if index is None:
        return xs
    try:
        return index.get(x, ())
    except TypeError:               # x cannot be hashed: no shortcut
        return xs


def _index(xs, field: str, member: bool):
    index: dict = {}
    try:
        for item in xs:
            if not isinstance(item, Record) or field not in item._fields:
                return None
            value = item._fields[field]
            if member:
                if not isinstance(value, (tuple, list)):
                    return None          # a string's `in` is a substring test
                values = value
            else:
                values = (value,)
            for v in values:
                got = index.setdefault(v, [])
                if not got or got[-1] is not item:
                    got.append(item)
    except TypeError:                    # a value that cannot be hashed
        return None
    return {k: tuple(v) for k, v in index.items()}


def _guard(cond: ast.Node, var: str):
    """``(value node, field, member)`` of the condition's first test ``x in var.field``,
    ``var.field == x`` or ``x == var.field``, or None."""
    if isinstance(cond, ast.BoolOp) and cond.op == "and" and cond.values:
        cond = cond.values[0]
    if not isinstance(cond, ast.Compare):
        return None

    def field_of(n):
        if isinstance(n, ast.Attr) and isinstance(n.obj, ast.Name) and n.obj.id == var:
            return n.name
        return None

    if cond.op == "in" and field_of(cond.right) is not None:
        return cond.left, field_of(cond.right), True
    if cond.op == "==":
        if field_of(cond.left) is not None:
            return cond.right, field_of(cond.left), False
        if field_of(cond.right) is not None:
            return cond.left, field_of(cond.right), False
    return None


def _names(node: ast.Node, out: set) -> bool:
    """Collect the names of ``node`` into ``out``; False if it holds anything but names,
    literals and tuples of them."""
    if isinstance(node, ast.Name):
        out.add(node.id)
        return True
    if isinstance(node, (ast.Number, ast.String, ast.Const)):
        return True
    if isinstance(node, ast.TupleExpr):
        return all(_names(item, out) for item in node.items)
    return False


def _assigned_words(block, out: set) -> None:
    """Every word in a ``set``/``let``/``for``/``random`` of ``block`` (any depth)."""
    if isinstance(block, (dict, LDict)):
        for key, value in block.items():
            if key in _ASSIGNING and isinstance(value, str):
                out.update(re.findall(r"[A-Za-z_]\w*", value))
            else:
                _assigned_words(value, out)
    elif isinstance(block, list):
        for item in block:
            _assigned_words(item, out)


def indexed_iterable(sc, step: LDict, head, its: str) -> str | None:
    """The text of the list the ``for`` ``step`` (head parsed: ``head``, its list's text ``its``)
    may run over instead, or None (see the module's docstring).  ``sc``: the StepCompiler,
    before the loop's scope is pushed."""
    if len(head.names) != 1 or not isinstance(head.iter, ast.Name):
        return None
    var, lst = head.names[0], head.iter.id
    g = sc.g
    if lst not in g.constants or sc.scope.lookup(lst) is not None:
        return None
    if var in g.variables and sc.scope.lookup(var) is None:
        return None                      # a game variable: every round sets it
    body = step.get("do")
    if not isinstance(body, list) or len(body) != 1 or not isinstance(body[0], (dict, LDict)):
        return None
    if_step = body[0]
    if "if" not in if_step or not isinstance(if_step["if"], str) or if_step.get("else"):
        return None
    if set(if_step) - {"if", "then", "else"}:
        return None
    cond = sc.c.parse(if_step["if"], if_step.pos_of("if"))
    found = _guard(cond, var) if cond is not None else None
    if found is None:
        return None
    value, field, member = found
    names: set = set()
    if not _names(value, names) or var in names:
        return None
    if any(sc.scope.lookup(n) is None for n in names):
        return None                      # only locals: a game's name may change in the body
    assigned: set = set()
    _assigned_words(body, assigned)
    if names & assigned:
        return None
    x, _ = sc.text_of(value, "the value looked for")
    return f"{sc.bind(items_with, 'f')}(st.lay.const_index, {its}, {sc.bind(field, 's')}, {member}, {x})"
