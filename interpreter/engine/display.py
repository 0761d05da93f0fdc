"""A rulebook's ``display:`` hints: read once, checked by ``regelwerk validate``.

The hints only say how to draw a state (which families form a player's
board, which index of a grid runs down, colours and glyphs of enum symbols,
what to show first, which zone a click chooses an action by).  No rule
depends on them; a rulebook without them is still drawn readably.
The structure is checked by the schema; :func:`check_display` yields every
name that does not exist (code RW250).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from dsl.diagnostics import Diagnostic, ERROR, Pos

from . import types as T


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


def _names(value) -> list:
    return [str(x) for x in value] if isinstance(value, list) else []


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
    if isinstance(d.get("round"), str):
        h.round = d["round"]
    elif "round" in game.variables:
        h.round = "round"
    h.variables = _names(d.get("variables"))
    for action, c in (d.get("click") or {}).items():
        if isinstance(c, dict) and isinstance(c.get("index"), list):
            h.click[str(action)] = Click(str(c.get("zone")), _names(c["index"]))
    h.secret = set(_names(d.get("secret")))
    return h


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
