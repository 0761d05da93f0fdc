"""Typed AST of the expression language.

Every node carries ``pos``, the file position of its first character, so
that the compiler can report any problem at the exact YAML column.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .diagnostics import Pos


@dataclass(eq=False)
class Node:
    pos: Pos = field(repr=False, kw_only=True)


@dataclass(eq=False)
class Number(Node):
    value: int


@dataclass(eq=False)
class String(Node):
    value: str


@dataclass(eq=False)
class Const(Node):
    """``true``, ``false`` and ``none``."""

    value: object


@dataclass(eq=False)
class Name(Node):
    id: str


@dataclass(eq=False)
class Attr(Node):
    obj: Node
    name: str


@dataclass(eq=False)
class Index(Node):
    obj: Node
    args: list[Node]


@dataclass(eq=False)
class Call(Node):
    func: Node
    args: list[Node]


@dataclass(eq=False)
class Lambda(Node):
    param: str
    body: Node


@dataclass(eq=False)
class BinOp(Node):
    op: str  # + - * // %
    left: Node
    right: Node


@dataclass(eq=False)
class Neg(Node):
    operand: Node


@dataclass(eq=False)
class Compare(Node):
    op: str  # == != < <= > >= in notin
    left: Node
    right: Node


@dataclass(eq=False)
class BoolOp(Node):
    op: str  # and / or
    values: list[Node]


@dataclass(eq=False)
class Not(Node):
    operand: Node


@dataclass(eq=False)
class IfExp(Node):
    test: Node
    body: Node
    orelse: Node


@dataclass(eq=False)
class Range(Node):
    lo: Node
    hi: Node


@dataclass(eq=False)
class ListExpr(Node):
    items: list[Node]


@dataclass(eq=False)
class TupleExpr(Node):
    items: list[Node]


@dataclass(eq=False)
class RecordExpr(Node):
    fields: list[tuple[str, Node]]


@dataclass(eq=False)
class CompFor(Node):
    names: list[str]
    iter: Node


@dataclass(eq=False)
class ListComp(Node):
    elt: Node
    fors: list[CompFor]
    cond: Node | None


@dataclass(eq=False)
class Assignment(Node):
    """``target op value`` from a ``set:`` or ``let:`` step."""

    name: str
    index: list[Node] | None
    op: str  # = += -= *=
    value: Node


def walk(node: Node):
    """Yield ``node`` and every node below it."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for value in vars(n).values():
            if isinstance(value, Node):
                stack.append(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, Node):
                        stack.append(item)
                    elif isinstance(item, tuple):
                        stack.extend(x for x in item if isinstance(x, Node))


def names_in(node) -> set:
    """The names an expression mentions: the ids of every ``Name`` below ``node`` (a node, or a
    list or tuple of nodes and None) — its own loop variables and parameters among them."""
    roots = node if isinstance(node, (list, tuple)) else (node,)
    return {n.id for root in roots if isinstance(root, Node) for n in walk(root) if isinstance(n, Name)}


def same_tree(a, b) -> bool:
    """Do ``a`` and ``b`` (nodes, or lists and tuples of them and of plain values) write the
    same expression?  Positions aside."""
    if isinstance(a, Node):
        if type(a) is not type(b):
            return False
        va, vb = vars(a), vars(b)
        return all(k == "pos" or same_tree(va[k], vb[k]) for k in va)
    if isinstance(a, (list, tuple)):
        return (isinstance(b, (list, tuple)) and len(a) == len(b)
                and all(same_tree(x, y) for x, y in zip(a, b)))
    return not isinstance(b, Node) and type(a) is type(b) and a == b
