"""The standard library: general functions any rulebook may call.

Each function is a :class:`Builtin` with a signature the type checker uses
(which arguments are lists, zones or lambdas, and what lambdas receive and
return) and a Python implementation ``impl(state, *args)``.  Lambdas arrive
as one-argument Python callables.  Nothing here knows any game; every
function is documented in ``docs/language.md`` and tested on its own in
``tests/test_stdlib.py``.

What a function is and the table ``BUILTINS`` are in signatures.py; the functions on graphs,
shapes and pieces on a grid in grids.py; the rest (aggregates, lists, zones, seats, ranking
and optimisation) here.  Import ``BUILTINS`` from here: this module imports every part.
"""
from __future__ import annotations

from itertools import permutations

from ..compile import types as T
from .limits import LIMITS, check_combinations, check_permutations, check_size
from .values import Record
from .layout import SPAN_AT_LEAST
from .signatures import (BUILTINS, Builtin, F, FAMILY, L, LEAD, V, Z, ZS, _const, _elem, _elem_result,
                         _list_of_elem, builtin)
from . import grids  # noqa: F401 - enters the functions on graphs and grids in BUILTINS


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
    if len(zs) >= SPAN_AT_LEAST:
        span = st.lay.zone_spans.get(id(zs))
        if span is not None:    # zones(family, …) laid out in one run: the non-empty lists of a slice
            return len(list(filter(None, st.z[span[0]:span[1]])))
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
    rows = _SEATS_FROM.get(n)
    if rows is None:
        rows = _SEATS_FROM[n] = tuple(tuple((q + i) % n for i in range(n)) for q in range(n))
    if type(p) is int and 0 <= p < n:
        return rows[p]
    return tuple((p + i) % n for i in range(n))


#: seats_from's answers per number of seats, made once: ``_SEATS_FROM[n][p]``
_SEATS_FROM = {}


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

    try:
        search(0, set(), [])
    finally:
        # search refers to itself (a cell of this call): left so, that cycle would keep the
        # functions given — and the game state they hold — alive until the cycle collector
        # runs (every finished game of a rulebook using best_assignment: thousands of objects)
        search = None
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
