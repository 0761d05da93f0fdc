"""The standard library on graphs and grids: nodes reachable and groups (``connected``,
``groups``), shapes (a piece's cells moved, turned and flipped; square and hex neighbours; cells
that touch or match at their borders) and pieces on a grid (which piece covers a cell, where a
piece may lie).  Each function is entered in ``BUILTINS`` (signatures.py) by its decorator;
documented in ``docs/language.md``, tested in ``tests/test_stdlib.py``.
"""
from __future__ import annotations

from ..compile import types as T
from .limits import LIMITS, check_size
from .signatures import F, L, V, Z, _const, _elem, builtin


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
