"""A rulebook's ``display:`` hints: read once, checked by ``regelwerk validate``.

The hints only say how to draw a state (which families form a player's
board, which index of a grid runs down, colours and glyphs of enum symbols,
what to show first, which zone a click chooses an action by).  No rule
depends on them; a rulebook without them is still drawn readably.
The structure is checked by the schema; :func:`check_display` yields every
name that does not exist (code RW250).
"""
from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Iterator
from urllib.parse import quote

from dsl.diagnostics import Diagnostic, ERROR, Pos
from dsl.loader import inside_folder

from ..compile import types as T


@dataclass
class Grid:
    rows: str
    columns: str
    flip_rows: bool = False


@dataclass
class Click:
    zone: str
    index: list


@dataclass
class Pick:
    """A click on a component chooses an action: a component in ``zone`` (at ``index``: per index
    of the family, the action parameter or ``player`` that gives it; None: any zone of the
    family) whose attributes equal the parameters named in ``match`` (attribute -> parameter)."""
    zone: str
    index: list | None
    match: dict


@dataclass
class Board:
    """A picture of a board with zones laid on it (`display: boards:`): ``places`` maps a family to
    one point (x, y) for the whole family or to {space key: (x, y)}, a space key being the family's
    index values besides a player index, joined by commas ("3", "2,5"); coordinates count in the
    picture's ``size`` (width, height).  ``seat``: a player board, one under each player."""
    name: str
    image: str | None
    size: tuple
    seat: bool
    title: str | None
    places: dict


@dataclass
class ScoreTrack:
    """Each seat's value of ``of`` (a variable indexed by player, or a function of a player) as a
    marker on a track of ``length`` numbered spaces from ``start`` (`display: score_track:`)."""
    of: str
    length: int
    start: int = 0
    title: str | None = None


@dataclass
class Cover:
    """Which cells of a grid an option of an action covers (`display: covers:`): the grid ``zone``
    (at ``index``: per index of the family, the action parameter or ``player`` that gives it) and
    the function ``cells`` of the action's parameters (by name) that lists them."""
    zone: str
    index: list
    cells: str


#: the shapes a component may be drawn in (`display: components: <kind>: shape:`)
SHAPES = ("square", "circle", "hexagon", "card", "cube", "meeple", "disc")


@dataclass
class DisplayHints:
    first: list = field(default_factory=list)
    player_board: list | None = None
    hide: set = field(default_factory=set)
    grid: dict = field(default_factory=dict)  # family -> Grid
    symbols: dict = field(default_factory=dict)  # symbol -> {"color": .., "glyph": ..}
    round: str | None = None
    variables: list = field(default_factory=list)
    click: dict = field(default_factory=dict)  # action -> Click
    secret: set = field(default_factory=set)  # actions whose parameters only the deciding seat is told
    #: family -> {"color": function, "text": function}: what is printed on each of its spaces
    spaces: dict = field(default_factory=dict)
    #: zone family or variable -> its title in the game's words
    titles: dict = field(default_factory=dict)
    #: family -> how its zones are laid out (LAYOUTS: "grid", "pyramid", "hex", "ring", "track", "row", "stack", "fan")
    layout: dict = field(default_factory=dict)
    #: function of a seat -> its title: shown under each player (`display: facts:`)
    facts: dict = field(default_factory=dict)
    #: action -> [Pick]: the components a click on which chooses it (`display: pick:`)
    pick: dict = field(default_factory=dict)
    #: component kind -> {"color": [attribute, ...], "text": template, "name": template, "shape": shape}
    components: dict = field(default_factory=dict)
    #: a colour (#rrggbb) per seat, in seat order (`display: seat_colors:`)
    seat_colors: list = field(default_factory=list)
    #: component kind -> function f(piece, part): what a grid cell covered by that part shows
    #: (`display: parts:`, pieces with a shape)
    parts: dict = field(default_factory=dict)
    #: board name -> Board (`display: boards:`)
    boards: dict = field(default_factory=dict)
    #: [ScoreTrack] (`display: score_track:`; one for now, a list so that more may come)
    score_tracks: list = field(default_factory=list)
    #: action -> [[parameter, ...], ...]: a decision among its options made in these steps, each
    #: step choosing the values of its parameters (`display: steps:`; default one parameter a step)
    steps: dict = field(default_factory=dict)
    #: action -> Cover: the cells of a grid each of its options covers (`display: covers:`)
    covers: dict = field(default_factory=dict)
    #: enum symbol -> how it reads in words (`display: symbols: <symbol>: name:`)
    symbol_names: dict = field(default_factory=dict)
    #: variable or fact function -> {value as written (format_value): words} (`display: values:`)
    values: dict = field(default_factory=dict)


def _names(value) -> list:
    return [str(x) for x in value] if isinstance(value, list) else []


def _value_key(value) -> str:
    """A key of `display: values:` as the engine writes the value (1, -1, true, red)."""
    if value is True or value is False:
        return "true" if value else "false"
    return str(value)


def symbol_names(display) -> dict:
    """enum symbol -> its name in words from `display: symbols: <symbol>: name:`."""
    syms = display.get("symbols") if isinstance(display, dict) else None
    return {str(k): v["name"] for k, v in (syms or {}).items() if isinstance(v, dict) and isinstance(v.get("name"), str)}


def read_hints(game) -> DisplayHints:
    """The hints of a compiled rulebook (an empty set when it has none)."""
    d = game.display if isinstance(game.display, dict) else {}
    h = DisplayHints()
    h.first = _names(d.get("first"))
    if isinstance(d.get("player_board"), list):
        h.player_board = _names(d["player_board"])
    h.hide = set(_names(d.get("hide")))
    for fam, g in (d.get("grid") or {}).items():
        if isinstance(g, dict) and "rows" in g and "columns" in g:
            h.grid[str(fam)] = Grid(str(g["rows"]), str(g["columns"]), bool(g.get("flip_rows", False)))
    for sym, spec in (d.get("symbols") or {}).items():
        if isinstance(spec, dict):
            h.symbols[str(sym)] = {k: str(v) for k, v in spec.items() if k in ("color", "glyph")}
    h.symbol_names = symbol_names(d)
    for name, table in (d.get("values") or {}).items():
        if isinstance(table, dict):
            h.values[str(name)] = {_value_key(k): str(v) for k, v in table.items() if isinstance(v, (str, int))}
    if isinstance(d.get("round"), str):
        h.round = d["round"]
    elif "round" in game.variables:
        h.round = "round"
    h.variables = _names(d.get("variables"))
    for action, c in (d.get("click") or {}).items():
        if isinstance(c, dict) and isinstance(c.get("index"), list):
            h.click[str(action)] = Click(str(c.get("zone")), _names(c["index"]))
    h.secret = set(_names(d.get("secret")))
    for fam, spec in (d.get("spaces") or {}).items():
        if isinstance(spec, dict):
            h.spaces[str(fam)] = {k: str(v) for k, v in spec.items() if k in ("color", "text")}
    h.titles = {str(k): str(v) for k, v in (d.get("titles") or {}).items() if isinstance(v, str)}
    h.layout = {str(k): str(v) for k, v in (d.get("layout") or {}).items() if isinstance(v, str)}
    h.facts = {str(k): str(v) for k, v in (d.get("facts") or {}).items() if isinstance(v, str)}
    for action, spec in (d.get("pick") or {}).items():
        for p in (spec if isinstance(spec, list) else [spec]):
            if isinstance(p, dict) and isinstance(p.get("match"), dict):
                index = _names(p["index"]) if isinstance(p.get("index"), list) else None
                h.pick.setdefault(str(action), []).append(
                    Pick(str(p.get("zone")), index, {str(k): str(v) for k, v in p["match"].items()}))
    for kind, spec in (d.get("components") or {}).items():
        if isinstance(spec, dict):
            color = spec.get("color")
            h.components[str(kind)] = {
                "color": [str(color)] if isinstance(color, str) else _names(color),
                "text": str(spec["text"]) if isinstance(spec.get("text"), str) else None,
                "name": str(spec["name"]) if isinstance(spec.get("name"), str) else None,
                "shape": str(spec["shape"]) if isinstance(spec.get("shape"), str) else None,
                "image": _image_spec(spec.get("image"))}
    h.seat_colors = _names(d.get("seat_colors"))
    h.parts = {str(k): str(v) for k, v in (d.get("parts") or {}).items() if isinstance(v, str)}
    for name, b in (d.get("boards") or {}).items():
        if not isinstance(b, dict) or not _pair(b.get("size")):
            continue
        places = {}
        for fam, at in (b.get("zones") or {}).items():
            if _pair(at):
                places[str(fam)] = tuple(at)
            elif isinstance(at, dict):
                places[str(fam)] = {_key(k): tuple(v) for k, v in at.items() if _pair(v)}
        h.boards[str(name)] = Board(str(name), b["image"] if isinstance(b.get("image"), str) else None,
                                    tuple(b["size"]), b.get("seat") is True,
                                    b["title"] if isinstance(b.get("title"), str) else None, places)
    for action, spec in (d.get("steps") or {}).items():
        if isinstance(spec, list):
            h.steps[str(action)] = [_names(x) if isinstance(x, list) else [str(x)] for x in spec]
    for action, c in (d.get("covers") or {}).items():
        if isinstance(c, dict) and isinstance(c.get("index"), list) and isinstance(c.get("cells"), str):
            h.covers[str(action)] = Cover(str(c.get("zone")), _names(c["index"]), c["cells"])
    t = d.get("score_track")
    if isinstance(t, dict) and isinstance(t.get("of"), str) and isinstance(t.get("length"), int):
        h.score_tracks.append(ScoreTrack(t["of"], t["length"], t["start"] if isinstance(t.get("start"), int) else 0,
                                         t["title"] if isinstance(t.get("title"), str) else None))
    return h


def _pair(value) -> bool:
    return (isinstance(value, list) and len(value) == 2 and
            all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value))


def _key(value) -> str:
    """A space key as the view writes a space's index values ("2,5"), whatever the YAML made of it."""
    if isinstance(value, bool):
        return str(value).lower()
    return ",".join(part.strip() for part in str(value).split(","))


def _image_spec(value):
    """A kind's picture: a path (str), or (attribute, {value as written: path}) for one per value."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        attr, by = next(iter(value.items()))
        if isinstance(by, dict):
            return (str(attr), {_key(k): v for k, v in by.items() if isinstance(v, str)})
    return None


# --- pictures ---------------------------------------------------------------------------------
#: the pictures a rulebook may show, by their ending, and the content type each is served with
IMAGE_TYPES = {".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
               ".gif": "image/gif", ".webp": "image/webp"}
#: the largest picture a rulebook may name (bytes)
IMAGE_BYTES = 2_000_000


def image_problem(root, rel) -> str | None:
    """Why ``rel`` (a path written in `display:`) names no picture the rulebook may show (None: it
    may).  As for an include (dsl/loader.py): a relative path inside the folder, links followed and
    still inside, a regular file (no FIFO or device) of at most IMAGE_BYTES with a picture's ending."""
    if not isinstance(rel, str) or not rel:
        return "a picture's path must be a file name inside the rulebook folder"
    pure = PurePosixPath(rel)
    if pure.is_absolute() or PureWindowsPath(rel).is_absolute() or ".." in pure.parts or "\\" in rel:
        return f"picture '{rel}' leaves the rulebook folder (write a path inside it, with /)"
    if pure.suffix.lower() not in IMAGE_TYPES:
        return f"'{rel}' is no picture: its name must end in {', '.join(IMAGE_TYPES)}"
    root = Path(root)
    target = root / rel
    try:
        if not target.exists() and not target.is_symlink():
            return f"picture '{rel}' does not exist"
        if not inside_folder(root, target):
            return f"picture '{rel}' leaves the rulebook folder (a link out of it, or a link loop)"
        info = os.stat(target)
    except OSError as exc:
        return f"picture '{rel[:80]}' cannot be read: {exc.strerror or exc}"
    if not stat.S_ISREG(info.st_mode):
        return f"picture '{rel}' is not a regular file"
    if info.st_size > IMAGE_BYTES:
        return f"picture '{rel}' has {info.st_size:,} bytes; at most {IMAGE_BYTES:,} are allowed"
    return None


def image_entries(d) -> Iterator[tuple]:
    """(container, key, path) for every picture `display:` names (a kind's, per value, a board's)."""
    comps = d.get("components") if isinstance(d, dict) else None
    for spec in (comps.values() if isinstance(comps, dict) else ()):
        img = spec.get("image") if isinstance(spec, dict) else None
        if isinstance(img, str):
            yield spec, "image", img
        elif isinstance(img, dict):
            for by in img.values():
                for value, rel in (by.items() if isinstance(by, dict) else ()):
                    if isinstance(rel, str):
                        yield by, value, rel
    boards = d.get("boards") if isinstance(d, dict) else None
    for b in (boards.values() if isinstance(boards, dict) else ()):
        if isinstance(b, dict) and isinstance(b.get("image"), str):
            yield b, "image", b["image"]


def check_images(root, d, fallback, report) -> dict:
    """The pictures `display:` names that may be shown (path as written -> the file); every one that
    may not is a located error (RW257) in ``report``.  Run on every load (the files may change
    while the rulebook's text does not, so this is no cached check)."""
    out = {}
    for container, key, rel in image_entries(d):
        why = image_problem(root, rel)
        if why is None:
            out[rel] = Path(root) / rel
            continue
        try:
            pos = container.pos_of(key)
        except (AttributeError, KeyError, IndexError, TypeError):
            pos = fallback or Pos("?")
        report.error(pos, f"display: {why}", "RW257")
    return out


def image_folder(root) -> str:
    """The part of a picture's address that names its rulebook folder (/images/<this>/<path>)."""
    return hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:16]


def image_name(rel: str) -> str:
    """A picture's path as its address names it: ``./images//a.svg`` is ``images/a.svg``."""
    return PurePosixPath(rel).as_posix()


def image_url(game, rel: str) -> str | None:
    """Where the page finds the picture ``rel`` of ``game`` (None: not one it may show)."""
    if rel not in game.images:
        return None
    return f"/images/{image_folder(game.root)}/{quote(image_name(rel))}"


_FIELD = re.compile(r"\{(\w+)\}")


def template_fields(text: str) -> list:
    """The attribute names in a component's ``text:`` or ``name:`` template ("{color}-{other} {value}")."""
    return _FIELD.findall(text)


def fill_template(text: str, attrs: dict, show) -> str:
    """``text`` with each ``{attribute}`` replaced by ``show(attribute, value)``."""
    return _FIELD.sub(lambda m: show(m.group(1), attrs.get(m.group(1))), text)


def part_problem(game, kind: str, fn_name: str):
    """Why function ``fn_name`` may not say what a grid cell covered by a part of a ``kind``
    piece shows (None: it may): it takes the piece and the part's number and reads only what
    every seat sees."""
    if kind not in game.kinds:
        return f"'{kind}' is no component kind"
    fn = game.functions.get(fn_name)
    if fn is None:
        return f"'{fn_name}' is no function"
    if len(fn.params) != 2 or fn.params[1][1] != T.INT or not isinstance(fn.params[0][1], T.Comp):
        return f"{fn_name} must take two parameters, the piece (a component) and its part (int)"
    return public_reads(game, fn_name)


def fact_problem(game, fn_name: str):
    """Why function ``fn_name`` may not be shown under each player (None: it may)."""
    fn = game.functions.get(fn_name)
    if fn is None:
        return f"'{fn_name}' is no function"
    if len(fn.params) != 1 or fn.params[0][1] != T.PLAYER:
        return f"{fn_name} must take one parameter, a player (it takes {len(fn.params)})"
    return public_reads(game, fn_name)


#: the layouts a zone family may be drawn in (`display: layout:`)
LAYOUTS = ("grid", "pyramid", "hex", "ring", "track", "row", "stack", "fan")
#: how many indices (besides a player index) a family needs for a layout
LAYOUT_INDICES = {"grid": (2,), "pyramid": (2,), "hex": (2,), "ring": (1, 2), "track": (1,)}


def space_readers(game, fam_name: str, fn_name: str):
    """Why function ``fn_name`` may not print on the spaces of ``fam_name`` (None: it may).  It is
    called with the family's indices (besides a player index), so it must take as many, and it must
    read only what every seat sees: no zone, no variable hidden from anyone (directly or through
    the functions it calls)."""
    fam = game.zones.get(fam_name)
    fn = game.functions.get(fn_name)
    if fn is None:
        return f"'{fn_name}' is no function"
    own = [x for x in fam.index if x.type != T.PLAYER] if fam is not None else []
    if len(fn.params) != len(own):
        return (f"{fn_name} takes {len(fn.params)} parameters, and the spaces of {fam_name} have "
                f"{len(own)} indices ({', '.join(x.name for x in own) or 'none'})")
    return public_reads(game, fn_name)


def public_reads(game, fn_name: str):
    """Why function ``fn_name`` may read what not every seat sees (None: it reads only constants,
    tables and variables every seat sees, directly and through the functions it calls)."""
    seen, todo = set(), [fn_name]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        f = game.functions[name]
        if f.reads_any:
            return f"{fn_name} may read zones (through {name}): a space shows only what everyone sees"
        for n in f.reads:
            if n in game.functions:
                todo.append(n)
            elif n in game.zones or n == "box" or n in ("zone_of", "known"):
                return f"{fn_name} reads {n} (through {name}): a space shows only what everyone sees"
            elif n in game.variables and game.variables[n].visible_const is not True:
                return f"{fn_name} reads {n}, which not every seat sees (through {name})"
    return None


def check_display(source, game) -> Iterator[Diagnostic]:
    """Every name in ``display:`` that the rulebook does not define."""
    d = source.sections.get("display")
    if not isinstance(d, dict):
        return
    fallback = source.section_pos.get("display", Pos(source.files[0] if source.files else "?"))

    def at(container, key):
        try:
            return container.pos_of(key)
        except (AttributeError, KeyError, IndexError, TypeError):
            return fallback

    def err(pos, message):
        return Diagnostic(pos, message, ERROR, "RW250")

    zones = game.zones
    symbols = set(game.symbol_enum)
    for key in ("first", "player_board", "hide"):
        items = d.get(key)
        if not isinstance(items, list):
            continue
        for i, name in enumerate(items):
            if key == "hide" and name in game.variables:
                continue
            if name not in zones:
                what = "zone family or variable" if key == "hide" else "zone family"
                yield err(at(items, i), f"display: {key} names '{name}', which is no {what}")
            elif key == "player_board" and not any(s.type == T.PLAYER for s in zones[name].index):
                yield err(at(items, i), f"display: player_board names '{name}', which has no player index")
    grids = d.get("grid")
    if isinstance(grids, dict):
        for fam, g in grids.items():
            if fam not in zones:
                yield err(at(grids, fam), f"display: grid names '{fam}', which is no zone family")
                continue
            if not isinstance(g, dict):
                continue
            own = [s.name for s in zones[fam].index if s.type != T.PLAYER]
            for k in ("rows", "columns"):
                if k in g and g[k] not in own:
                    yield err(at(g, k), f"display: '{g[k]}' is no index of {fam} (its indices: "
                                        f"{', '.join(own) or 'none'})")
            if len(own) != 2:
                yield err(at(grids, fam), f"display: {fam} has {len(own)} indices besides the player, "
                                          f"a grid needs 2")
    syms = d.get("symbols")
    if isinstance(syms, dict):
        for sym in syms:
            if sym not in symbols:
                yield err(at(syms, sym), f"display: '{sym}' is no enum symbol")
    for key in ("round",):
        if key in d and d[key] not in game.variables:
            yield err(at(d, key), f"display: {key} names '{d[key]}', which is no variable")
    items = d.get("variables")
    if isinstance(items, list):
        for i, name in enumerate(items):
            if name not in game.variables:
                yield err(at(items, i), f"display: variables names '{name}', which is no variable")
    action_names = {a.name for a in list(game.actions.values()) + list(game.inline_actions.values())}
    items = d.get("secret")
    if isinstance(items, list):
        for i, name in enumerate(items):
            if name not in action_names:
                yield err(at(items, i), f"display: secret names '{name}', which is no action")
    spaces = d.get("spaces")
    if isinstance(spaces, dict):
        for fam, spec in spaces.items():
            if fam not in zones:
                yield Diagnostic(at(spaces, fam), f"display: spaces names '{fam}', which is no zone family",
                                 ERROR, "RW253")
                continue
            for key, fn in (spec.items() if isinstance(spec, dict) else ()):
                why = space_readers(game, fam, str(fn))
                if why:
                    yield Diagnostic(at(spec, key), f"display: spaces of {fam}: {why}", ERROR, "RW253")
    facts = d.get("facts")
    if isinstance(facts, dict):
        for fn in facts:
            why = fact_problem(game, str(fn))
            if why:
                yield Diagnostic(at(facts, fn), f"display: facts: {why}", ERROR, "RW253")
    parts = d.get("parts")
    if isinstance(parts, dict):
        for kind, fn in parts.items():
            why = part_problem(game, str(kind), str(fn))
            if why:
                yield Diagnostic(at(parts, kind), f"display: parts: {why}", ERROR, "RW273")
    for key in ("titles", "layout"):
        items = d.get(key)
        if not isinstance(items, dict):
            continue
        for name, value in items.items():
            fam_name, dot, index_name = str(name).partition(".")
            if key == "titles" and dot and fam_name not in zones and _decls(game, fam_name):
                # "sew.t": the title of parameter t of action sew (a step of choosing it)
                if index_name not in {p.name for a in _decls(game, fam_name) for p in a.params}:
                    yield Diagnostic(at(items, name), f"display: titles names '{index_name}', which is no "
                                                      f"parameter of {fam_name}", ERROR, "RW254")
            elif key == "titles" and dot:
                # "board.s": the title of index s of family board (its rows or spaces: "star")
                if fam_name not in zones:
                    yield Diagnostic(at(items, name), f"display: titles names '{fam_name}', which is no zone "
                                                      f"family or action", ERROR, "RW254")
                elif index_name not in [x.name for x in zones[fam_name].index]:
                    yield Diagnostic(at(items, name), f"display: titles names '{index_name}', which is no index of "
                                                      f"{fam_name}", ERROR, "RW254")
            elif key == "titles" and name not in zones and name not in game.variables and name not in getattr(game, "options", {}):
                yield Diagnostic(at(items, name), f"display: titles names '{name}', which is no zone family or "
                                                  f"variable", ERROR, "RW254")
            elif key == "layout":
                if name not in zones:
                    yield Diagnostic(at(items, name), f"display: layout names '{name}', which is no zone family",
                                     ERROR, "RW254")
                elif value in LAYOUT_INDICES:
                    n = len([x for x in zones[name].index if x.type != T.PLAYER])
                    if n not in LAYOUT_INDICES[value]:
                        need = " or ".join(map(str, LAYOUT_INDICES[value]))
                        yield Diagnostic(at(items, name), f"display: a {value} needs a family with {need} "
                                                          f"{'index' if need == '1' else 'indices'} besides the player; "
                                                          f"{name} has {n}", ERROR, "RW254")
    yield from _check_pick(d.get("pick"), game, at)
    values = d.get("values")
    if isinstance(values, dict):
        for name in values:
            if name not in game.variables and name not in (d.get("facts") or {}):
                yield Diagnostic(at(values, name), f"display: values names '{name}', which is no variable nor "
                                                   f"function of display: facts:", ERROR, "RW254")
    yield from _check_steps(d.get("steps"), d.get("covers"), game, at)
    yield from _check_components(d.get("components"), game, at)
    yield from _check_boards(d.get("boards"), game, at)
    yield from _check_tracks(d.get("score_track"), game, at)
    clicks = d.get("click")
    if isinstance(clicks, dict):
        for action, c in clicks.items():
            decls = [a for a in list(game.actions.values()) + list(game.inline_actions.values()) if a.name == action]
            if not decls:
                yield err(at(clicks, action), f"display: click names '{action}', which is no action")
                continue
            if not isinstance(c, dict):
                continue
            fam = zones.get(c.get("zone"))
            if fam is None:
                yield err(at(c, "zone"), f"display: click zone '{c.get('zone')}' is no zone family")
                continue
            index = c.get("index")
            if not isinstance(index, list):
                continue
            if len(index) != len(fam.index):
                yield err(at(c, "index"), f"display: {fam.name} has {len(fam.index)} indices, not {len(index)}")
            params = {p.name for a in decls for p in a.params} | {"player"}
            for i, name in enumerate(index):
                if name not in params:
                    yield err(at(index, i), f"display: '{name}' is no parameter of {action} (nor player)")


def _decls(game, action: str) -> list:
    return [a for a in list(game.actions.values()) + list(game.inline_actions.values()) if a.name == action]


def _check_steps(steps, covers, game, at) -> Iterator[Diagnostic]:
    """`display: steps:` names actions and each of their parameters once; `display: covers:` names an
    action, a grid family (cells:), its indices' parameters and a function whose parameters are
    parameters of the action (RW275)."""
    def err(pos, message):
        return Diagnostic(pos, message, ERROR, "RW275")
    for action, spec in (steps.items() if isinstance(steps, dict) else ()):
        decls = _decls(game, action)
        if not decls:
            yield err(at(steps, action), f"display: steps names '{action}', which is no action")
            continue
        params = {p.name for a in decls for p in a.params}
        seen = set()
        for i, step in enumerate(spec if isinstance(spec, list) else []):
            for name in (step if isinstance(step, list) else [step]):
                if name not in params:
                    yield err(at(spec, i), f"display: steps: '{name}' is no parameter of {action} "
                                           f"(its parameters: {', '.join(sorted(params)) or 'none'})")
                elif name in seen:
                    yield err(at(spec, i), f"display: steps: {action} chooses '{name}' twice")
                seen.add(name)
    for action, c in (covers.items() if isinstance(covers, dict) else ()):
        decls = _decls(game, action)
        if not decls:
            yield err(at(covers, action), f"display: covers names '{action}', which is no action")
            continue
        if not isinstance(c, dict):
            continue
        params = {p.name for a in decls for p in a.params}
        fam = game.zones.get(c.get("zone"))
        if fam is None or fam.cells is None:
            yield err(at(c, "zone"), f"display: covers zone '{c.get('zone')}' is no zone family with cells:")
        elif isinstance(c.get("index"), list):
            index = c["index"]
            if len(index) != len(fam.index):
                yield err(at(c, "index"), f"display: {fam.name} has {len(fam.index)} indices, not {len(index)}")
            for i, name in enumerate(index):
                if name not in params and name != "player":
                    yield err(at(index, i), f"display: '{name}' is no parameter of {action} (nor player)")
        fn = game.functions.get(c.get("cells"))
        if fn is None:
            yield err(at(c, "cells"), f"display: covers: '{c.get('cells')}' is no function")
        else:
            for name, _ in fn.params:
                if name not in params:
                    yield err(at(c, "cells"), f"display: covers: {fn.name} takes '{name}', which is no "
                                              f"parameter of {action} (it is called with the action's parameters by name)")


def _check_pick(picks, game, at) -> Iterator[Diagnostic]:
    """`display: pick:` names actions, zone families, their indices' parameters and the attributes of
    the components the family holds (RW255)."""
    if not isinstance(picks, dict):
        return

    def err(pos, message):
        return Diagnostic(pos, message, ERROR, "RW255")
    for action, spec in picks.items():
        decls = _decls(game, action)
        if not decls:
            yield err(at(picks, action), f"display: pick names '{action}', which is no action")
            continue
        params = {p.name for a in decls for p in a.params}
        for p in (spec if isinstance(spec, list) else [spec]):
            if not isinstance(p, dict):
                continue
            fam = game.zones.get(p.get("zone"))
            if fam is None:
                yield err(at(p, "zone"), f"display: pick zone '{p.get('zone')}' is no zone family")
                continue
            index = p.get("index")
            if isinstance(index, list):
                if len(index) != len(fam.index):
                    yield err(at(p, "index"), f"display: {fam.name} has {len(fam.index)} indices, not {len(index)}")
                for i, name in enumerate(index):
                    if name not in params and name != "player":
                        yield err(at(index, i), f"display: '{name}' is no parameter of {action} (nor player)")
            match = p.get("match")
            if not isinstance(match, dict):
                continue
            attrs = {a for k in fam.holds if k in game.kinds for a in game.kinds[k].attributes}
            for attr, param in match.items():
                if attr not in attrs:
                    yield err(at(match, attr), f"display: the components {fam.name} holds have no attribute "
                                               f"'{attr}' (they have: {', '.join(sorted(attrs)) or 'none'})")
                if param not in params and param != "player":
                    yield err(at(match, attr), f"display: '{param}' is no parameter of {action} (nor player)")


def _check_components(kinds, game, at) -> Iterator[Diagnostic]:
    """`display: components:` names component kinds and their attributes (RW256)."""
    if not isinstance(kinds, dict):
        return

    def err(pos, message):
        return Diagnostic(pos, message, ERROR, "RW256")
    for kind, spec in kinds.items():
        decl = game.kinds.get(kind)
        if decl is None:
            yield err(at(kinds, kind), f"display: components names '{kind}', which is no component kind")
            continue
        if not isinstance(spec, dict):
            continue
        attrs = set(decl.attributes)
        color = spec.get("color")
        for i, name in enumerate([color] if isinstance(color, str) else color if isinstance(color, list) else []):
            if name not in attrs:
                yield err(at(spec, "color"), f"display: '{name}' is no attribute of {kind} (its attributes: "
                                             f"{', '.join(sorted(attrs)) or 'none'})")
            elif not isinstance(decl.attributes[name], T.Sym) and decl.attributes[name] != T.PLAYER:
                yield err(at(spec, "color"), f"display: the colour of {kind} comes from a symbol or a player; "
                                             f"{name} is neither")
        img = spec.get("image")
        for attr, by in (img.items() if isinstance(img, dict) else ()):
            if attr not in attrs:
                yield Diagnostic(at(img, attr), f"display: image of {kind}: '{attr}' is no attribute of {kind} "
                                                f"(its attributes: {', '.join(sorted(attrs)) or 'none'})",
                                 ERROR, "RW257")
                continue
            typ = decl.attributes[attr]
            enum = game.enums.get(typ.enum) if isinstance(typ, T.Sym) else None
            for value in (by if isinstance(by, dict) else ()):
                if enum is not None and str(value) not in enum.symbols:
                    yield Diagnostic(at(by, value), f"display: image of {kind}: '{value}' is no value of {attr} "
                                                    f"(its values: {', '.join(enum.symbols)})", ERROR, "RW257")
        for key in ("text", "name"):
            if isinstance(spec.get(key), str):
                for name in template_fields(spec[key]):
                    if name not in attrs and name not in ("kind", "label"):
                        yield err(at(spec, key), f"display: {key} of {kind} names '{name}', which is no attribute "
                                                 f"of {kind}")


def _check_boards(boards, game, at) -> Iterator[Diagnostic]:
    """`display: boards:` lays zone families on pictures: each names a family (once), a player board
    only families with a player index and a shared board only families without, a space by as many
    index values as the family has (besides the player), and every point lies on the picture (RW258)."""
    if not isinstance(boards, dict):
        return

    def err(pos, message):
        return Diagnostic(pos, message, ERROR, "RW258")
    placed: dict = {}
    for name, b in boards.items():
        if not isinstance(b, dict):
            continue
        size = b.get("size")
        w, h = (size if _pair(size) else (None, None))
        zones = b.get("zones")
        for fam_name, where in (zones.items() if isinstance(zones, dict) else ()):
            fam = game.zones.get(fam_name)
            if fam is None:
                yield err(at(zones, fam_name), f"display: board {name} names '{fam_name}', which is no zone family")
                continue
            if fam_name in placed:
                yield err(at(zones, fam_name), f"display: {fam_name} lies on board {placed[fam_name]} already")
                continue
            placed[fam_name] = name
            mine = any(x.type == T.PLAYER for x in fam.index)
            if b.get("seat") is True and not mine:
                yield err(at(zones, fam_name), f"display: board {name} is a player board (seat: true), and "
                                               f"{fam_name} has no player index")
            elif b.get("seat") is not True and mine:
                yield err(at(zones, fam_name), f"display: {fam_name} has a player index: lay it on a player "
                                               f"board (seat: true)")
            own = [x.name for x in fam.index if x.type != T.PLAYER]
            points = [(where, zones, fam_name)] if _pair(where) else \
                [(p, where, k) for k, p in where.items()] if isinstance(where, dict) else []
            for point, box, key in points:
                if point is not where:
                    n = len(_key(key).split(","))
                    if n != len(own):
                        kpos = getattr(box, "key_pos", {}).get(key) or at(box, key)
                        yield err(kpos, f"display: a space of {fam_name} is named by {len(own)} index "
                                                f"value{'' if len(own) == 1 else 's'} ({', '.join(own) or 'none'}), "
                                                f"not {n}: '{key}'")
                if w is not None and _pair(point) and not (0 <= point[0] <= w and 0 <= point[1] <= h):
                    yield err(at(box, key), f"display: ({point[0]}, {point[1]}) lies off board {name} "
                                            f"(its size: {w} × {h})")


def track_problem(game, of: str):
    """Why ``of`` cannot be shown on a score track (None: it can): a variable indexed by one player
    holding a number, or a function of one player that reads only what every seat sees."""
    var = game.variables.get(of)
    if var is not None:
        if len(var.index) != 1 or var.index[0].type != T.PLAYER:
            return f"{of} is not a variable of one player index (its indices: " \
                   f"{', '.join(x.name for x in var.index) or 'none'})"
        if var.type != T.INT:
            return f"{of} holds no number"
        return None
    if of in game.functions:
        return fact_problem(game, of)
    return f"'{of}' is no variable or function"


def _check_tracks(tracks, game, at) -> Iterator[Diagnostic]:
    """`display: score_track:` shows a number per seat (RW259)."""
    if isinstance(tracks, dict) and isinstance(tracks.get("of"), str):
        why = track_problem(game, tracks["of"])
        if why:
            yield Diagnostic(at(tracks, "of"), f"display: score_track: {why}", ERROR, "RW259")
