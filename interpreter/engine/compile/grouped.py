"""A rulebook function that counts the items of a list whose key equals a parameter, answered
for every value of that parameter at once.

    held: {params: {p: player, c: color}, value: "count(hand[p], t -> t.color == c)"}

``held(p, red)``, ``held(p, blue)``, … each look at every item of the hand for one colour; once
the hand changed (which forgets them all), a game asks for several colours again.  When one is
asked and not remembered, the list is looked at once and the count of every colour is
remembered (``State.memo``, under the keys the other calls would use): the keys of the items
that pass the other conditions, ``[t.color for t in hand[p] if ...]`` (compiled as a
comprehension of the body's own parts, so it evaluates what the body evaluates, item by item,
in the same order), counted (:func:`grouped`).

The body must be ``count(L, t -> K == c)`` (or ``c == K``), or ``count(L, t -> A and … and
K == c)`` (the test of ``c`` last, so that no item is looked at further than the body looks at
it); ``c`` one of the parameters, read nowhere else in the body (``L``, ``K``, ``A``), of a type
whose values are known when compiling and equal exactly when their keys in a dictionary are
(an enum's symbols, truth values).  The counts remembered for the other values are what the
body would compute for them: a function's results depend only on its arguments and the state,
which is the same, and they are forgotten together (``State.forget_results``).  A key that is
none of those values, or a failure while counting, runs the body as written instead, which
answers or fails as it always did.  Not for ``filter`` (tried: a list of items is mostly asked
for one value per change: docs/performance.md, fifth round).
"""
from __future__ import annotations

from dsl import ast

from . import types as T



def _names(node) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def grouped_parts(node, params: list, enums: dict):
    """``(the keys' comprehension, the grouped parameter's index, the values
    to answer for)`` of a function body ``node`` of the form above, or None.  ``params``:
    ``[(name, type)]``; ``enums``: the game's enums (their symbols are the values)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "count"
            and len(node.args) == 2 and isinstance(node.args[1], ast.Lambda)):
        return None
    items, lam = node.args
    body = lam.body
    conds = list(body.values) if isinstance(body, ast.BoolOp) and body.op == "and" else [body]
    last = conds[-1]
    if not (isinstance(last, ast.Compare) and last.op == "=="):
        return None
    names = [p for p, _ in params]
    for key, other in ((last.left, last.right), (last.right, last.left)):
        if isinstance(other, ast.Name) and other.id in names and other.id != lam.param:
            c = other.id
            break
    else:
        return None
    j = names.index(c)
    typ = params[j][1]
    if not (typ == T.BOOL or isinstance(typ, T.Sym)):
        return None             # values known when compiling, equal exactly when their hashes are
    rest = conds[:-1]
    if any(c in _names(n) for n in [items, key, *rest]) or c == lam.param:
        return None
    pos = node.pos
    cond = None if not rest else rest[0] if len(rest) == 1 else ast.BoolOp("and", rest, pos=body.pos)
    comp = ast.ListComp(key, [ast.CompFor([lam.param], items, pos=items.pos)], cond, pos=pos)
    if isinstance(typ, T.Sym):
        decl = enums.get(typ.enum)
        values = tuple(decl.symbols) if decl is not None else ()
    else:
        values = (False, True)
    if not values:
        return None
    return comp, j, values


def grouped(body, keys, slot: int, j: int, nparams: int, values: tuple):
    """``(looking, fill)`` in place of a remembered function's two variants
    (codegen.Gen.memo_function), written for its parameters: ``fill(st, *args)`` counts the
    keys ``keys(st, *args)`` gives and remembers the count of every value of parameter ``j``
    (those of ``values``; a key outside them: ``body``, the function's own ``_rw_fill``,
    instead, as when counting fails); ``looking`` looks the result up first."""
    params = [f"_p{i}" for i in range(nparams)]
    args = ", ".join(params)
    key = params[0] if nparams == 1 else f"({args},)"
    each = "_c" if nparams == 1 else "(" + ", ".join("_c" if i == j else p for i, p in enumerate(params)) + ",)"
    text = (f"def fill(st, {args}):\n"
            f"    _memo = st.memo[{int(slot)}]\n"
            "    if _memo is None:\n"
            f"        _memo = st.memo[{int(slot)}] = {{}}\n"
            "    _n = _zero.copy()\n"
            "    try:\n"
            f"        for _k in _keys(st, {args}):\n"
            "            _n[_k] += 1\n"
            "    except Exception:\n"
            f"        return _body(st, {args})\n"
            "    for _c, _v in _n.items():\n"
            f"        _memo[{each}] = _v\n"
            f"    _v = _n.get({params[j]})\n"
            "    if _v is None:\n"
            f"        _v = _memo[{key}] = 0\n"
            "    return _v\n"
            f"def looking(st, {args}):\n"
            f"    _memo = st.memo[{int(slot)}]\n"
            "    if _memo is not None:\n"
            f"        _v = _memo.get({key}, _missing)\n"
            "        if _v is not _missing:\n"
            "            return _v\n"
            f"    return fill(st, {args})\n")
    ns = {"_zero": dict.fromkeys(values, 0), "_keys": keys, "_body": body, "_missing": _MISSING}
    exec(compile(text, f"<grouped count, slot {int(slot)}>", "exec"), ns)  # noqa: S102 - our own text
    return ns["looking"], ns["fill"]


_MISSING = object()
