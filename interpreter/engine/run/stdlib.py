"""The standard library: general functions any rulebook may call.

Each function is a :class:`Builtin` with a signature the type checker uses
(which arguments are lists, zones or lambdas, and what lambdas receive and
return) and a Python implementation ``impl(state, *args)``.  Lambdas arrive
as one-argument Python callables.  Nothing here knows any game; every
function is documented in ``docs/language.md`` and tested on its own in
``tests/test_stdlib.py``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations
from typing import Callable

from ..compile import types as T
from .limits import LIMITS, check_combinations, check_permutations, check_size
from .values import Record


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


# --------------------------------------------------------------------------
# Counting and aggregates

@builtin("count", "count(xs) — the number of elements; count(xs, pred) — the number satisfying pred.",
         [L("xs"), F("pred", ("elem", "xs"), T.BOOL, optional=True)], _const(T.INT))
def _count(st, xs, pred=None):
    if pred is None:
        return len(xs)
    n = 0
    for x in xs:
        if pred(x):
            n += 1
    return n


@builtin("sum", "sum(xs) — the total of a list of numbers; sum(xs, f) — the total of f(x).",
         [L("xs"), F("f", ("elem", "xs"), T.INT, optional=True)], _const(T.INT))
def _sum(st, xs, f=None):
    if f is None:
        return sum(xs)
    return sum(f(x) for x in xs)


def _extreme(pick, name):
    def impl(st, *args):
        if args and not isinstance(args[0], (tuple, list)):
            return pick(args)
        xs = args[0]
        f = args[1] if len(args) > 1 else None
        values = [f(x) for x in xs] if f is not None else list(xs)
        if not values:
            if len(args) > 2:
                return args[2]
            raise ValueError(f"{name}() of an empty list (give a default: {name}(xs, f, default))")
        return pick(values)
    return impl


BUILTINS["max"] = Builtin(
    "max", "max(xs), max(xs, f), max(xs, f, default) — the largest value; max(a, b, ...) — of numbers.",
    [L("xs"), F("f", ("elem", "xs"), T.INT, optional=True), V("default", T.INT, optional=True)],
    lambda ts, fs: T.INT if "f" in fs else (_elem(ts, "xs") if "xs" in ts else T.INT),
    _extreme(max, "max"), variadic_numeric=True)
BUILTINS["min"] = Builtin(
    "min", "min(xs), min(xs, f), min(xs, f, default) — the smallest value; min(a, b, ...) — of numbers.",
    [L("xs"), F("f", ("elem", "xs"), T.INT, optional=True), V("default", T.INT, optional=True)],
    lambda ts, fs: T.INT if "f" in fs else (_elem(ts, "xs") if "xs" in ts else T.INT),
    _extreme(min, "min"), variadic_numeric=True)


@builtin("any", "any(xs, pred) — true if some element satisfies pred; any(xs) — if some element is true.",
         [L("xs"), F("pred", ("elem", "xs"), T.BOOL, optional=True)], _const(T.BOOL))
def _any(st, xs, pred=None):
    if pred is None:
        return any(xs)
    for x in xs:
        if pred(x):
            return True
    return False


@builtin("all", "all(xs, pred) — true if every element satisfies pred (true for an empty list).",
         [L("xs"), F("pred", ("elem", "xs"), T.BOOL, optional=True)], _const(T.BOOL))
def _all(st, xs, pred=None):
    if pred is None:
        return all(xs)
    for x in xs:
        if not pred(x):
            return False
    return True


@builtin("abs", "abs(n) — the absolute value.", [V("n", T.INT)], _const(T.INT))
def _abs(st, n):
    return abs(n)


# --------------------------------------------------------------------------
# Lists

@builtin("filter", "filter(xs, pred) — the elements satisfying pred, in order.",
         [L("xs"), F("pred", ("elem", "xs"), T.BOOL)], _list_of_elem("xs"))
def _filter(st, xs, pred):
    return tuple(x for x in xs if pred(x))


@builtin("map", "map(xs, f) — f applied to every element.",
         [L("xs"), F("f", ("elem", "xs"))], lambda ts, fs: T.ListT(fs["f"]))
def _map(st, xs, f):
    return tuple(f(x) for x in xs)


@builtin("sorted", "sorted(xs), sorted(xs, key) — ascending order; equal keys keep their order.",
         [L("xs"), F("key", ("elem", "xs"), optional=True)], _list_of_elem("xs"))
def _sorted(st, xs, key=None):
    if key is None:
        return tuple(sorted(xs))
    items = tuple(xs)
    return _sorted_keyed(st, items, [key(x) for x in items])


def _sorted_keyed(st, items, keys):
    # sorting the positions by the keys is stable, as sorted(xs, key) is: equal keys keep their order
    return tuple([items[i] for i in sorted(range(len(items)), key=keys.__getitem__)])


@builtin("reversed", "reversed(xs) — the list backwards.", [L("xs")], _list_of_elem("xs"))
def _reversed(st, xs):
    return tuple(reversed(tuple(xs)))


@builtin("distinct", "distinct(xs) — each value once, in order of first appearance.",
         [L("xs")], _list_of_elem("xs"))
def _distinct(st, xs):
    return tuple(dict.fromkeys(xs))


def _elem_or_default(name):
    """The element type of list ``name``, joined with the type of the default when one is given."""
    def result(ts, fs):
        elem = _elem(ts, name)
        if "default" not in ts:
            return elem
        return T.join(elem, ts["default"]) or T.ANY
    return result


@builtin("first", "first(xs), first(xs, pred) — the first element (satisfying pred), or none; "
                  "first(xs, default), first(xs, pred, default) — or default instead of none.",
         [L("xs"), F("pred", ("elem", "xs"), T.BOOL, optional=True), V("default", optional=True)],
         _elem_or_default("xs"))
def _first(st, xs, pred=None, default=None):
    for x in xs:
        if pred is None or pred(x):
            return x
    return default


@builtin("last", "last(xs), last(xs, pred) — the last element (satisfying pred), or none; "
                 "last(xs, default), last(xs, pred, default) — or default instead of none.",
         [L("xs"), F("pred", ("elem", "xs"), T.BOOL, optional=True), V("default", optional=True)],
         _elem_or_default("xs"))
def _last(st, xs, pred=None, default=None):
    for x in reversed(tuple(xs)):
        if pred is None or pred(x):
            return x
    return default


@builtin("argmax", "argmax(xs, f) — every element whose f value is the largest (empty list: empty).",
         [L("xs"), F("f", ("elem", "xs"), T.INT)], _list_of_elem("xs"))
def _argmax(st, xs, f):
    items = tuple(xs)
    return _argmax_keyed(st, items, [f(x) for x in items])


def _argmax_keyed(st, items, values):
    if not items:
        return ()
    best = max(values)
    return tuple(x for x, v in zip(items, values) if v == best)


@builtin("argmin", "argmin(xs, f) — every element whose f value is the smallest.",
         [L("xs"), F("f", ("elem", "xs"), T.INT)], _list_of_elem("xs"))
def _argmin(st, xs, f):
    items = tuple(xs)
    return _argmin_keyed(st, items, [f(x) for x in items])


def _argmin_keyed(st, items, values):
    if not items:
        return ()
    best = min(values)
    return tuple(x for x, v in zip(items, values) if v == best)


@builtin("index_of", "index_of(xs, x) — the position of x in xs counting from 0, or -1.",
         [L("xs"), V("x")], _const(T.INT))
def _index_of(st, xs, x):
    for i, y in enumerate(xs):
        if y == x:
            return i
    return -1


@builtin("flatten", "flatten(xss) — the lists of a list joined into one.",
         [L("xss")], lambda ts, fs: T.ListT(T.elem_of(_elem(ts, "xss"))))
def _flatten(st, xss):
    return tuple(x for xs in xss for x in xs)


@builtin("repeat_list", "repeat_list(x, n) — a list of n copies of x.",
         [V("x"), V("n", T.INT)], lambda ts, fs: T.ListT(ts["x"]))
def _repeat_list(st, x, n):
    check_size(n, "repeat_list")
    return (x,) * max(0, n)


@builtin("take", "take(xs, n) — the first n elements.", [L("xs"), V("n", T.INT)], _list_of_elem("xs"))
def _take(st, xs, n):
    return tuple(xs)[:max(0, n)]


@builtin("keys", "keys(table) — the keys of a constant map, in order.", [V("m")],
         lambda ts, fs: T.ListT(ts["m"].key if isinstance(ts["m"], T.MapT) else T.ANY))
def _keys(st, m):
    return tuple(m.keys())


# --------------------------------------------------------------------------
# Zones and components

@builtin("empty", "empty(z) — true if the zone (or list) holds nothing.", [L("z")], _const(T.BOOL))
def _empty(st, z):
    return not z


@builtin("full", "full(z) — true if the zone holds as many components as its capacity.",
         [Z("z")], _const(T.BOOL))
def _full(st, z):
    return z.capacity is not None and len(st.z[z.id]) >= z.capacity


@builtin("capacity", "capacity(z) — how many components the zone may hold (a large number if unbounded).",
         [Z("z")], _const(T.INT))
def _capacity(st, z):
    return z.capacity if z.capacity is not None else 10**9


@builtin("room", "room(z) — how many more components the zone may take.", [Z("z")], _const(T.INT))
def _room(st, z):
    return (z.capacity if z.capacity is not None else 10**9) - len(st.z[z.id])


@builtin("known", "known(p, z) — true if seat p knows what zone z holds now: z is visible to p, or a `reveal` "
                  "step showed it to p and its contents have not changed since; known(p, v[k]) — the same for "
                  "the value of a variable (element).",
         [V("p", T.PLAYER), Z("z")], _const(T.BOOL))
def _known(st, p, z):
    from ..knowledge.observe import sees_zone
    return p is not None and sees_zone(st, z, p)


@builtin("owner", "owner(z) — the seat that owns a zone (its `owner`), or none.", [Z("z")], _const(T.PLAYER))
def _owner(st, z):
    return z.owner


@builtin("top", "top(z) — the top component of a deck (the last one put there), or none.",
         [L("z")], _elem_result("z"))
def _top(st, z):
    return z[-1] if z else None


@builtin("bottom", "bottom(z) — the bottom component of a deck, or none.", [L("z")], _elem_result("z"))
def _bottom(st, z):
    return z[0] if z else None


@builtin("zones", "zones(family, i...) — the zones of a zone family whose first index values are i... "
                  "(none: the whole family), in the family's order: zones(grid, 2) is grid[2, 1], grid[2, 2], ...",
         [FAMILY("family"), LEAD("i")], lambda ts, fs: T.ListT(ts["family"]))
def _zones(st, fid, lead):
    return st.lay.zones_of(fid, lead)


@builtin("count_nonempty", "count_nonempty(zs) — how many of the zones zs hold something: "
                           "count(zs, z -> not empty(z)) in one step.",
         [ZS("zs")], _const(T.INT))
def _count_nonempty(st, zs):
    contents = st.z
    n = 0
    for z in zs:
        if contents[z.id]:
            n += 1
    return n


@builtin("zone_of", "zone_of(c) — the zone the component is in.", [V("c", T.Comp())], _const(T.ZoneT()))
def _zone_of(st, c):
    return st.lay.zones[st.where[c.id]]


@builtin("zone_index", "zone_index(z) — the index values of a zone of a family, as a list.",
         [Z("z")], _const(T.ListT(T.ANY)))
def _zone_index(st, z):
    return z.index_values


@builtin("labels", "labels(xs) — the labels of components, sorted, e.g. for comparisons in scenarios.",
         [L("xs")], _const(T.ListT(T.STR)))
def _labels(st, xs):
    return tuple(sorted(c.label for c in xs))


# --------------------------------------------------------------------------
# Seats

@builtin("next", "next(p), next(p, k) — the seat k places clockwise after p (k = 1).",
         [V("p", T.PLAYER), V("k", T.INT, optional=True)], _const(T.PLAYER))
def _next(st, p, k=1):
    return (p + k) % st.lay.num_seats


@builtin("prev", "prev(p), prev(p, k) — the seat k places counter-clockwise from p.",
         [V("p", T.PLAYER), V("k", T.INT, optional=True)], _const(T.PLAYER))
def _prev(st, p, k=1):
    return (p - k) % st.lay.num_seats


@builtin("seats_from", "seats_from(p) — every seat once, clockwise, starting with p.",
         [V("p", T.PLAYER)], _const(T.ListT(T.PLAYER)))
def _seats_from(st, p):
    n = st.lay.num_seats
    return tuple((p + i) % n for i in range(n))


@builtin("automaton", "automaton(p) — true if seat p is an automaton (its moves are made by the rules).",
         [V("p", T.PLAYER)], _const(T.BOOL))
def _automaton(st, p):
    return p in st.lay.automata


@builtin("seat_name", "seat_name(p) — the seat's name.", [V("p", T.PLAYER)], _const(T.STR))
def _seat_name(st, p):
    return st.lay.seat_names[p]


@builtin("str", "str(x) — any value as text, written as in logs and action ids ('+' joins texts).",
         [V("x")], _const(T.STR))
def _str(st, x):
    from .values import format_value
    return format_value(x)


# --------------------------------------------------------------------------
# Graphs

@builtin("connected",
         "connected(start, neighbours, inside) — every node reachable from start by neighbours "
         "through nodes where inside holds (start included if inside holds for it), in the order found.",
         [V("start"), F("neighbours", ("same", "start")), F("inside", ("same", "start"), T.BOOL)],
         lambda ts, fs: T.ListT(ts["start"]))
def _connected(st, start, neighbours, inside):
    if not inside(start):
        return ()
    seen = {start: None}
    stack = [start]
    most = LIMITS.elements
    while stack:
        node = stack.pop()
        for nxt in neighbours(node):
            if nxt not in seen and inside(nxt):
                seen[nxt] = None
                stack.append(nxt)
                if len(seen) > most:
                    check_size(len(seen), "this connected group")
    return tuple(seen)


@builtin("groups",
         "groups(nodes, neighbours, key) — the connected groups of nodes: two nodes are joined when one "
         "is a neighbour of the other and both have the same key. Every node is in exactly one group; "
         "groups come in the order of their first node.",
         [L("nodes"), F("neighbours", ("elem", "nodes")), F("key", ("elem", "nodes"))],
         lambda ts, fs: T.ListT(T.ListT(_elem(ts, "nodes"))))
def _groups(st, nodes, neighbours, key):
    nodes = tuple(nodes)
    member = set(nodes)
    keys = {n: key(n) for n in nodes}
    seen = set()
    out = []
    for n in nodes:
        if n in seen:
            continue
        group = [n]
        seen.add(n)
        stack = [n]
        while stack:
            cur = stack.pop()
            for nxt in neighbours(cur):
                if nxt in member and nxt not in seen and keys[nxt] == keys[n]:
                    seen.add(nxt)
                    group.append(nxt)
                    stack.append(nxt)
        out.append(tuple(group))
    return tuple(out)


# --------------------------------------------------------------------------
# Shapes on a grid: a piece's cells are a list of (row, column) pairs (on a hex grid,
# axial coordinates (q, r)); the same list moved, turned and flipped is where it lies

_CELLS = lambda ts, fs: T.ListT(_elem(ts, "cells"))  # noqa: E731
_SQUARE_TURNS = ((lambda r, c: (r, c)), (lambda r, c: (c, -r)), (lambda r, c: (-r, -c)), (lambda r, c: (-c, r)))
_HEX_TURNS = tuple((lambda k: (lambda q, r: _hex_turn(q, r, k)))(k) for k in range(6))


def _hex_turn(q, r, k):
    for _ in range(k):                       # 60 degrees clockwise in axial coordinates
        q, r = -r, q + r
    return q, r


#: the mirror images a flip may add: none (turned only), on a square grid (r, c) -> (r, -c), on a
#: hex grid (q, r) -> (r, q) (swapping two cube coordinates: a reflection; (q, -r) would be a shear)
_NO_FLIP = [(lambda a, b: (a, b))]
_SQUARE_FLIPS = [(lambda a, b: (a, b)), (lambda a, b: (a, -b))]
_HEX_FLIPS = [(lambda a, b: (a, b)), (lambda a, b: (b, a))]


def _images(cells, turns, mirrors):
    """Every image of ``cells`` under ``turns`` after each of ``mirrors`` (lists: Cython types
    tuples of two lengths apart), each moved so that its least row and least column are 0; cell
    i of an image is the image of cell i (a piece whose cells differ keeps each face); equal
    images once, in order."""
    cells = [tuple(x) for x in cells]
    out = {}
    for mirror in mirrors:
        for turn in turns:
            moved = [turn(*mirror(a, b)) for a, b in cells]
            if moved:
                lo_a = min(a for a, _ in moved)
                lo_b = min(b for _, b in moved)
                moved = [(a - lo_a, b - lo_b) for a, b in moved]
            out.setdefault(tuple(moved), None)
    return tuple(out)


@builtin("orientations",
         "orientations(cells) — the piece turned by 0, 90, 180, 270 degrees and flipped: every different "
         "image of its (row, column) cells, moved so that its least row and column are 0; cell i of an image "
         "is where cell i went.", [L("cells")], lambda ts, fs: T.ListT(T.ListT(_elem(ts, "cells"))))
def _orientations(st, cells):
    return _images(cells, _SQUARE_TURNS, _SQUARE_FLIPS)


@builtin("rotations",
         "rotations(cells) — like orientations, turned only (never flipped): a piece with a back side.",
         [L("cells")], lambda ts, fs: T.ListT(T.ListT(_elem(ts, "cells"))))
def _rotations(st, cells):
    return _images(cells, _SQUARE_TURNS, _NO_FLIP)


@builtin("hex_orientations",
         "hex_orientations(cells) — orientations on a hex grid: axial (q, r) cells turned by multiples of "
         "60 degrees and flipped, each moved so that its least q and r are 0.",
         [L("cells")], lambda ts, fs: T.ListT(T.ListT(_elem(ts, "cells"))))
def _hex_orientations(st, cells):
    return _images(cells, _HEX_TURNS, _HEX_FLIPS)


@builtin("hex_rotations",
         "hex_rotations(cells) — like hex_orientations, turned only (never flipped): a hex piece with a back side.",
         [L("cells")], lambda ts, fs: T.ListT(T.ListT(_elem(ts, "cells"))))
def _hex_rotations(st, cells):
    return _images(cells, _HEX_TURNS, _NO_FLIP)


@builtin("translate", "translate(cells, dr, dc) — the cells moved by dr rows and dc columns.",
         [L("cells"), V("dr", T.INT), V("dc", T.INT)], _CELLS)
def _translate(st, cells, dr, dc):
    return tuple((a + dr, b + dc) for a, b in cells)


@builtin("neighbours4", "neighbours4(cell) — the four cells beside a (row, column) cell: up, left, right, down.",
         [V("cell")], lambda ts, fs: T.ListT(ts["cell"]))
def _neighbours4(st, cell):
    r, c = cell
    return ((r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c))


@builtin("hex_neighbours", "hex_neighbours(cell) — the six cells beside an axial (q, r) hex cell.",
         [V("cell")], lambda ts, fs: T.ListT(ts["cell"]))
def _hex_neighbours(st, cell):
    q, r = cell
    return ((q + 1, r), (q + 1, r - 1), (q, r - 1), (q - 1, r), (q - 1, r + 1), (q, r + 1))


@builtin("inside", "inside(cells, rows, cols) — every cell lies on a board of rows x cols cells "
         "numbered from 0.", [L("cells"), V("rows", T.INT), V("cols", T.INT)], _const(T.BOOL))
def _inside(st, cells, rows, cols):
    return all(0 <= a < rows and 0 <= b < cols for a, b in cells)


@builtin("touches", "touches(cells, others) — some cell of cells is beside (neighbours4) a cell of others; "
         "touches(cells, others, neighbours) — beside by neighbours (hex_neighbours on a hex grid).",
         [L("cells"), L("others"), F("neighbours", ("elem", "cells"), optional=True)], _const(T.BOOL))
def _touches(st, cells, others, neighbours=None):
    near = set(_cell(x) for x in others)
    if neighbours is None:
        return any(n in near for a, b in cells for n in ((a - 1, b), (a, b - 1), (a, b + 1), (a + 1, b)))
    return any(_cell(n) in near for x in cells for n in neighbours(x))


def _cell(x):
    return tuple(x) if type(x) is list else x


@builtin("touches_same",
         "touches_same(cells, values, neighbours, at) — matching terrain: some cell i of a piece about to be "
         "laid on cells lies beside a cell n outside the piece (one of neighbours(cells[i])) that shows the same "
         "value, at(n) == values[i] (none never matches).",
         [L("cells"), L("values"), F("neighbours", ("elem", "cells")), F("at", ("elem", "cells"))],
         _const(T.BOOL))
def _touches_same(st, cells, values, neighbours, at):
    cells = [_cell(x) for x in cells]
    own = set(cells)
    for cell, value in zip(cells, values):
        if value is None:
            continue
        for n in neighbours(cell):
            n = _cell(n)
            if n not in own and at(n) == value:
                return True
    return False


@builtin("borders_match",
         "borders_match(cells, values, neighbours, at) — matching edges: every cell n outside the piece that "
         "lies beside its cell i (one of neighbours(cells[i])) and shows something (at(n) is not none) shows "
         "values[i]; true when nothing lies beside the piece.",
         [L("cells"), L("values"), F("neighbours", ("elem", "cells")), F("at", ("elem", "cells"))],
         _const(T.BOOL))
def _borders_match(st, cells, values, neighbours, at):
    cells = [_cell(x) for x in cells]
    own = set(cells)
    for cell, value in zip(cells, values):
        for n in neighbours(cell):
            n = _cell(n)
            if n in own:
                continue
            shown = at(n)
            if shown is not None and shown != value:
                return False
    return True


@builtin("edges_match",
         "edges_match(cell, edges, neighbours, edges_at) — matching edges of one-cell tiles: a tile about to lie on "
         "cell with edges (one per neighbour of neighbours(cell), in its order) matches every neighbour n with a "
         "tile (edges_at(n) is not none): the side of n's tile that faces cell (at the position of cell in "
         "neighbours(n)) equals this tile's side that faces n.",
         [V("cell"), L("edges"), F("neighbours", ("same", "cell")), F("edges_at", ("same", "cell"))],
         _const(T.BOOL))
def _edges_match(st, cell, edges, neighbours, edges_at):
    cell = _cell(cell)
    for i, n in enumerate(neighbours(cell)):
        other = edges_at(n)
        if other is None:
            continue
        back = [_cell(x) for x in neighbours(n)]
        if cell not in back:
            continue
        j = back.index(cell)
        if i >= len(edges) or j >= len(other) or other[j] != edges[i]:
            return False
    return True


# --------------------------------------------------------------------------
# Pieces on a grid: a zone with `cells:` is a grid; a `move` with `cells:` lays one component
# (a piece) on it covering several cells (State.cover); moved away, its cells are free again

def _piece_type(ts, fs):
    z = ts.get("z")
    return T.Comp(z.holds) if isinstance(z, T.ZoneT) else T.Comp()


def _grid_of(st, z, what):
    grid = st.lay.grids.get(z.id)
    if grid is None:
        raise ValueError(f"{what}: {z.name} is not a grid (a zone with cells:)")
    return grid


@builtin("piece_at", "piece_at(z, cell) — the piece (component) that covers cell of the grid zone z, or none.",
         [Z("z"), V("cell")], _piece_type)
def _piece_at(st, z, cell):
    _grid_of(st, z, "piece_at")
    held = st.covering(z, cell)
    return None if held is None else held[0]


@builtin("part_at", "part_at(z, cell) — which of its cells the piece covering cell of grid z lies with there: "
         "i for the i-th cell of the move that laid it (counted from 0), or none when the cell is free.",
         [Z("z"), V("cell")], _const(T.INT))
def _part_at(st, z, cell):
    _grid_of(st, z, "part_at")
    held = st.covering(z, cell)
    return None if held is None else held[1]


@builtin("cells_of", "cells_of(c) — the cells the piece c covers on the grid it lies on, in the order of its "
         "parts (empty when it lies on no grid).", [V("c")], _const(T.ListT(T.ANY)))
def _cells_of(st, c):
    if c is None:
        return ()
    grid = st.lay.grids.get(st.where[c.id])
    if grid is None:
        return ()
    v = st.v
    found = {}
    for cell, at in grid.items():
        held = v[at]
        if held is not None and held[0] is c:
            found[held[1]] = cell
    return tuple(found[i] for i in sorted(found))


@builtin("grid_cells", "grid_cells(z) — every cell of the grid zone z, in the order of its cells:.",
         [Z("z")], _const(T.ListT(T.ANY)))
def _grid_cells(st, z):
    return tuple(_grid_of(st, z, "grid_cells"))


@builtin("covered", "covered(z) — the cells of grid z that a piece covers, in the order of its cells:.",
         [Z("z")], _const(T.ListT(T.ANY)))
def _covered(st, z):
    v = st.v
    return tuple(cell for cell, at in _grid_of(st, z, "covered").items() if v[at] is not None)


@builtin("can_cover", "can_cover(z, cells) — every one of cells is a cell of grid z, free, and listed once: "
         "a piece may be laid there.", [Z("z"), L("cells")], _const(T.BOOL))
def _can_cover(st, z, cells):
    grid = st.lay.grids.get(z.id)
    if grid is None:
        _grid_of(st, z, "can_cover")
    v = st.v
    seen = set()
    try:
        for cell in cells:
            at = grid[cell]
            if v[at] is not None or at in seen:
                return False
            seen.add(at)
    except KeyError:                        # no cell of the grid
        return False
    except TypeError:                       # a cell written as a list
        return _can_cover(st, z, [_cell(x) for x in cells]) if any(type(x) is list for x in cells) else False
    return True


# --------------------------------------------------------------------------
# Ranking and optimisation

def _rank_impl(dense):
    def impl(st, items, key):
        items = tuple(items)
        return keyed(st, items, [key(x) for x in items])

    def keyed(st, items, keys):
        # largest key first; a stable sort keeps equal keys in the items' order
        order = sorted(range(len(items)), key=keys.__getitem__, reverse=True)
        out = []
        place = 0
        prev = _NO_KEY
        distinct = 0
        for n, i in enumerate(order):
            k = keys[i]
            if k != prev:
                distinct += 1
                place = distinct if dense else n + 1
                prev = k
            out.append(Record.of({"item": items[i], "place": place, "key": k}))
        return tuple(out)
    impl.keyed = keyed
    return impl


_NO_KEY = object()


_RANK_RESULT = lambda ts, fs: T.ListT(T.RecordT((("item", _elem(ts, "items")), ("place", T.INT), ("key", fs["key"]))))  # noqa: E731

BUILTINS["rank"] = Builtin(
    "rank",
    "rank(items, key) — competition ranking, best (largest key) first: a list of {item, place, key}. "
    "Equal keys share a place and the next place is skipped (1, 2, 2, 4). Keys may be numbers or "
    "tuples (compared left to right, so later entries break ties).",
    [L("items"), F("key", ("elem", "items"))], _RANK_RESULT, _rank_impl(False))
BUILTINS["dense_rank"] = Builtin(
    "dense_rank",
    "dense_rank(items, key) — like rank, but places count distinct keys (1, 2, 2, 3): "
    "'the second-highest value' whoever shares the highest.",
    [L("items"), F("key", ("elem", "items"))], _RANK_RESULT, _rank_impl(True))

# the functions whose lambda is a key of every item: written as statements, the keys are
# computed in a loop and these are called with them (Builtin.keyed)
BUILTINS["sorted"].keyed = _sorted_keyed
BUILTINS["argmax"].keyed = _argmax_keyed
BUILTINS["argmin"].keyed = _argmin_keyed
BUILTINS["rank"].keyed = BUILTINS["rank"].impl.keyed
BUILTINS["dense_rank"].keyed = BUILTINS["dense_rank"].impl.keyed


def _assign_result(ts, fs):
    item = _elem(ts, "items")
    option = T.elem_of(fs.get("options", T.ANY))
    return T.ListT(T.TupleT((item, option)))


@builtin("best_assignment",
         "best_assignment(items, options, value) — assign each item one of options(item), each option "
         "to at most one item, items may stay unassigned; returns the assignment (a list of "
         "(item, option) pairs) with the largest value(assignment). Ties go to the first found, "
         "trying items in order and options in the order given.",
         [L("items"), F("options", ("elem", "items")), F("value", ("assignment", "items", "options"), T.INT)],
         _assign_result)
def _best_assignment(st, items, options, value):
    items = tuple(items)
    choices = [tuple(options(x)) for x in items]
    best = None
    best_value = None
    tried = 0

    def search(i, used, acc):
        nonlocal best, best_value, tried
        tried += 1
        if tried > LIMITS.elements:
            check_size(tried, "the search of best_assignment")
        if i == len(items):
            v = value(tuple(acc))
            if best_value is None or v > best_value:
                best, best_value = tuple(acc), v
            return
        for opt in choices[i]:
            if opt not in used:
                used.add(opt)
                acc.append((items[i], opt))
                search(i + 1, used, acc)
                acc.pop()
                used.discard(opt)
        search(i + 1, used, acc)

    search(0, set(), [])
    return best if best is not None else ()


@builtin("permutations", "permutations(xs) — every ordering of xs (use on short lists only).",
         [L("xs")], lambda ts, fs: T.ListT(T.ListT(_elem(ts, "xs"))))
def _permutations(st, xs):
    xs = tuple(xs)
    check_permutations(len(xs))
    return tuple(permutations(xs))


@builtin("subsets", "subsets(xs, n) — every choice of n elements of xs, in order.",
         [L("xs"), V("n", T.INT)], lambda ts, fs: T.ListT(T.ListT(_elem(ts, "xs"))))
def _subsets(st, xs, n):
    from itertools import combinations
    xs = tuple(xs)
    check_combinations(len(xs), n)
    return tuple(combinations(xs, n))


@builtin("multisets", "multisets(kinds, n) — every way to pick n items from kinds with repetition "
         "(each as a list in the order of kinds).",
         [L("kinds"), V("n", T.INT)], lambda ts, fs: T.ListT(T.ListT(_elem(ts, "kinds"))))
def _multisets(st, kinds, n):
    from itertools import combinations_with_replacement
    kinds = tuple(kinds)
    check_combinations(len(kinds) + n - 1, n)
    return tuple(combinations_with_replacement(kinds, n))
