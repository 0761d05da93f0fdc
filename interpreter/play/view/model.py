"""The view of a state for one seat: plain data, drawn by the renderers.

:func:`build_view` reads only ``state.observation(seat)`` for what is in the
zones and variables, so a view can never show what the seat may not see.
The rest is public and fixed for a game: the layout (which zones a family
has and their indices), what a label's components have in common (their
colour), the open round and phase, and, for the seat that must decide, its
legal actions.  The result is JSON-ready; :mod:`.terminal` and the web page
draw it.

A family's shape follows its indices (besides a player index, which puts
the family under each player): none ``single``, one ``row``, two ``grid``,
more ``list``.  ``display:`` hints (:mod:`.hints`) reorder, orient and colour.
"""
from __future__ import annotations

import re

from ...game import types as T
from ...game import Component, Zone, format_value
from ...game import DisplayHints, fact_problem, fill_template, read_hints, space_readers
from ...game import Phrases, words
from ...game import part_problem
from ...game import image_url, track_problem

#: colours for symbols that are colour words, and a palette for the others
NAMED = {
    "red": "#d03c3c", "green": "#3c9a4a", "blue": "#3c6fd0", "yellow": "#e3c22b", "orange": "#e8872b",
    "purple": "#8a4fbf", "white": "#e8e8e8", "black": "#333333", "grey": "#8c8c8c", "gray": "#8c8c8c",
    "pink": "#e07bb0", "brown": "#8b5a2b", "cyan": "#2bb5c8", "gold": "#d4a017", "silver": "#b8b8c0",
}
#: seat colours when the rulebook names none (`display: seat_colors:`)
SEAT_COLORS = ["#c0392b", "#2e6fba", "#2f8f46", "#d4a017", "#8a4fbf", "#e8872b"]
PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#bab0ac"]


def symbol_styles(game, hints: DisplayHints) -> dict:
    """symbol -> {"color": "#rrggbb", "glyph": "X"}: hints first, then colour words, then a palette."""
    out = {}
    for enum in game.enums.values():
        for i, sym in enumerate(enum.symbols):
            hint = hints.symbols.get(sym, {})
            color = hint.get("color") or NAMED.get(sym) or PALETTE[i % len(PALETTE)]
            glyph = hint.get("glyph") or sym[:1].upper()
            out[sym] = {"color": color, "glyph": glyph, "name": hints.symbol_names.get(sym) or words(sym)}
    return out


class ViewMaker:
    """Builds views of one game layout (its tables are made once and reused)."""

    def __init__(self, game, lay, hints: DisplayHints | None = None):
        self.game = game
        self.lay = lay
        self.hints = hints or read_hints(game)
        self.symbols = symbol_styles(game, self.hints)
        self._symbol_re = None
        colors = self.hints.seat_colors or SEAT_COLORS
        self.seat_colors = [colors[min(i, len(colors) - 1)] if self.hints.seat_colors else colors[i % len(colors)]
                            for i in range(len(lay.seat_names))]
        self.label_attrs: dict = {}      # label -> the attributes all its components share
        self.labels = self._label_styles()
        self.families = self._family_order()
        self.phrases = Phrases(game, lay.seat_names, component_names(self.labels))
        self.symbol_rank = {sym: i for enum in game.enums.values() for i, sym in enumerate(enum.symbols)}
        decls = list(game.actions.values()) + sorted(game.inline_actions.values(),
                                                     key=lambda a: (str(a.pos.file), a.pos.line, a.pos.col))
        self.action_rank: dict = {}
        for a in decls:
            self.action_rank.setdefault(a.name, len(self.action_rank))
        self.space_fns = self._space_functions()
        self.fact_fns = self._fact_functions()
        self.part_fns = self._part_functions()
        self.track_fns = self._track_functions()
        self.cover_fns = self._cover_functions()
        #: family -> (board name, (x, y) or {space key: (x, y)}) for `display: boards:`
        self.on_board = {fam: (b.name, where) for b in self.hints.boards.values() for fam, where in b.places.items()}
        #: (family, owner seat or None) -> (its player index, its zones in the layout's order (fixed for
        #: the layout), their names as a set and in that order)
        self.parts: dict = {}
        for fam in self.families:
            pidx = self.player_index(fam)
            zones = list(lay.zfam[fam.id].values())
            if pidx is None:
                self.parts[fam.id, None] = (pidx, zones, frozenset(z.name for z in zones), tuple(z.name for z in zones))
            else:
                for s in lay.seats:
                    mine = [z for z in zones if z.index_values[pidx] == s]
                    self.parts[fam.id, s] = (pidx, mine, frozenset(z.name for z in mine), tuple(z.name for z in mine))

    def _part_functions(self) -> dict:
        """kind -> (f(state, [piece, part]), nslots) for `display: parts:`, compiled once (one that
        could read what not every seat sees is left out: RW273)."""
        from dsl.parser import parse_expression
        from dsl.diagnostics import Pos, Report
        from ...game import Cx, Scope, compile_expr
        out = {}
        for kind, fn_name in self.hints.parts.items():
            if part_problem(self.game, kind, fn_name) is not None:
                continue
            scope = Scope([("_t", T.Comp(frozenset({kind}))), ("_i", T.INT)])
            report = Report()
            try:
                fn, _ = compile_expr(parse_expression(f"{fn_name}(_t, _i)", Pos("<display>")),
                                     Cx(self.game, report, scope, False, {}, None))
            except Exception:  # noqa: BLE001 - a hint that does not compile is left out
                continue
            if not report.has_errors:
                out[kind] = (fn, max(scope.nslots, 2))
        return out

    def _covering(self, state, label: str, part: int) -> dict:
        """The style of a grid cell covered by part ``part`` of the piece labelled ``label``: the
        piece's, or what `display: parts:` says the part shows (a symbol's colour and glyph)."""
        style = dict(self.labels.get(label, {"label": label, "glyph": label[:2], "short": label}))
        style["part"] = part
        comps = self.lay.by_label.get(label)
        made = self.part_fns.get(comps[0].kind) if comps else None
        if made is None or state is None:
            return style
        fn, nslots = made
        try:
            value = fn(state, [comps[0], part] + [None] * (nslots - 2))
        except Exception:  # noqa: BLE001 - a hint never stops the drawing
            return style
        if isinstance(value, str) and value in self.symbols:
            style.update(self.symbols[value])
            style["short"] = self.symbols[value]["glyph"]
            style["name"] = words(value)
        elif value is not None:
            style["short"] = style["glyph"] = words(format_value(value))
        return style

    def _grid_family(self, fam, zone, obs, state) -> dict | None:
        """A grid zone (`cells:`) of (row, column) cells drawn cell by cell: what covers each
        (from the observation), None where the bounding rectangle has no cell."""
        shown = (obs.get("cells") or {}).get(zone.name)
        grid = self.lay.grids.get(zone.id)
        if shown is None or not grid or not all(isinstance(c, tuple) and len(c) == 2 and
                                                all(isinstance(x, int) for x in c) for c in grid):
            return None
        rows = sorted({c[0] for c in grid})
        cols = sorted({c[1] for c in grid})
        where = {}
        for cell in grid:
            text = format_value(cell)
            held = shown.get(text)
            where[cell] = {"name": f"{zone.name} {text}", "at": [format_value(cell[0]), format_value(cell[1])],
                           "capacity": 1, "options": [], "hidden": False, "count": 0 if held is None else 1,
                           "components": [] if held is None else [self._covering(state, held[0], held[1])]}
        out = {"name": fam.name, "title": self.hints.titles.get(fam.name) or words(fam.name),
               "index": ["row", "column"], "type": fam.ztype, "shape": "grid", "flip_rows": False,
               "rows": [format_value(r) for r in rows], "columns": [format_value(c) for c in cols],
               "row_index": "row", "column_index": "column",
               "cells": [[where.get((r, c)) for c in cols] for r in rows]}
        board, place = self.on_board.get(fam.name, (None, None))
        if board is not None:
            out["board"] = board          # a grid of cells lies on a board at one point
            if isinstance(place, tuple):
                out["pos"] = self._percent(board, place)
        return out

    def _fact_functions(self) -> list:
        """[(name, title, f(state, [seat]))] for `display: facts:`, compiled once (a function that
        could read what not every seat sees is left out: RW253)."""
        out = []
        for fn_name, title in self.hints.facts.items():
            if fact_problem(self.game, fn_name) is not None:
                continue
            compiled = _seat_function(self.game, fn_name)
            if compiled is not None:
                out.append((fn_name, title, *compiled))
        return out

    def _facts(self, state, seat) -> list:
        out = []
        for name, title, fn, nslots in self.fact_fns:
            try:
                value = fn(state, [seat] + [None] * (nslots - 1))
            except Exception:  # noqa: BLE001 - a hint never stops the drawing
                continue
            out.append({"name": name, "title": title, "value": self._said(name, value, None)})
        return out

    def _space_functions(self) -> dict:
        """family -> {"color"/"text": f(state, index values)} for `display: spaces:`, compiled once; a
        function that would read what not every seat sees is left out (validate reports it: RW253)."""
        from dsl.parser import ParseError, parse_expression
        from dsl.diagnostics import Pos, Report
        from ...game import Cx, Scope, compile_expr
        out = {}
        for fam_name, spec in self.hints.spaces.items():
            fam = self.game.zones.get(fam_name)
            if fam is None:
                continue
            own = [x for x in fam.index if x.type != T.PLAYER]
            for key, fn_name in spec.items():
                if space_readers(self.game, fam_name, fn_name) is not None:
                    continue
                names = [f"_i{i}" for i in range(len(own))]
                scope = Scope([(n, x.type) for n, x in zip(names, own)])
                report = Report()
                try:
                    node = parse_expression(f"{fn_name}({', '.join(names)})", Pos("<display>"))
                    fn, _ = compile_expr(node, Cx(self.game, report, scope, False, {}, None))
                except (ParseError, Exception):  # noqa: BLE001 - a hint that does not compile is left out
                    continue
                if report.has_errors:
                    continue
                out.setdefault(fam_name, {})[key] = (fn, max(scope.nslots, 1))
        return out

    def _space(self, state, fam, zone, pidx) -> dict | None:
        fns = self.space_fns.get(fam.name)
        if not fns:
            return None
        args = [v for i, v in enumerate(zone.index_values) if i != pidx and fam.index[i].type != T.PLAYER]
        out = {}
        for key, (fn, nslots) in fns.items():
            L = list(args) + [None] * (nslots - len(args))
            try:
                value = fn(state, L)
            except Exception:  # noqa: BLE001 - a hint never stops the drawing
                continue
            if key == "color" and isinstance(value, str) and value in self.symbols:
                out.update(self.symbols[value])
                out["name"] = words(value)
            elif key == "text" and value is not None:
                out["text"] = words(format_value(value))
        return out or None

    # --- fixed for the layout ------------------------------------------------
    def _label_styles(self) -> dict:
        """label -> {"label", "kind", "color", "glyph", "short"} from the attributes all its components
        share; with `display: components:` for its kind also "colors", "face", "name" and "shape"."""
        out = {}
        for label, comps in self.lay.by_label.items():
            first = comps[0]
            shared = {k: v for k, v in first.attrs.items() if all(c.attrs.get(k) == v for c in comps)}
            self.label_attrs[label] = shared
            style = {"label": label, "kind": first.kind}
            for value in shared.values():
                if isinstance(value, str) and value in self.symbols:
                    style["color"] = self.symbols[value]["color"]
                    style["glyph"] = self.symbols[value]["glyph"]
                    break
            if "glyph" not in style:
                style["glyph"] = label[:2]
            style["short"] = self._short(label, style)
            look = self.hints.components.get(first.kind)
            if look is not None:
                self._look(style, look, shared, self.game.kinds.get(first.kind))
            out[label] = style
        return out

    def _look(self, style: dict, look: dict, attrs: dict, decl) -> None:
        """A kind's `display: components:` entry applied to one label's style."""
        types = decl.attributes if decl is not None else {}
        colors, glyphs = [], []
        for name in look["color"]:
            value = attrs.get(name)
            if types.get(name) == T.PLAYER and isinstance(value, int) and 0 <= value < len(self.seat_colors):
                colors.append(self.seat_colors[value])
            elif isinstance(value, str) and value in self.symbols:
                colors.append(self.symbols[value]["color"])
                glyphs.append(self.symbols[value]["glyph"])
        if colors:
            style["color"] = colors[0]
            style["colors"] = colors
        elif look["color"]:
            style.pop("color", None)

        def show(name, value):
            if types.get(name) == T.PLAYER and isinstance(value, int) and 0 <= value < len(self.lay.seat_names):
                return self.lay.seat_names[value]
            return words(format_value(value)) if value is not None else ""
        if look["text"]:
            style["face"] = fill_template(look["text"], {**attrs, "kind": style["kind"], "label": style["label"]}, show)
            # in a terminal's cell: the colours' glyphs, then the face ("RW4" for a component of two colours printed 4)
            style["short"] = "".join(glyphs) + style["face"] if glyphs and style["face"] not in glyphs else style["face"]
            style["glyph"] = style["short"]
        if look["name"]:
            style["name"] = fill_template(look["name"], {**attrs, "kind": style["kind"], "label": style["label"]}, show)
        if look["shape"]:
            style["shape"] = look["shape"]
        image = look.get("image")
        if isinstance(image, tuple):     # a picture per value of one attribute
            attr, by = image
            value = attrs.get(attr)
            image = by.get(format_value(value)) if value is not None else None
        url = image_url(self.game, image) if isinstance(image, str) else None
        if url is not None:
            style["image"] = url

    def _short(self, label: str, style: dict) -> str:
        """The label with every enum symbol in it written as its glyph ("green4" -> "G4"), for small cells."""
        if label in self.symbols:
            return self.symbols[label]["glyph"]
        if self._symbol_re is None:
            names = sorted(self.symbols, key=len, reverse=True)
            self._symbol_re = re.compile(r"(?<![A-Za-z])(" + "|".join(map(re.escape, names)) + r")(?![A-Za-z])") \
                if names else False
        if not self._symbol_re:
            return label
        return self._symbol_re.sub(lambda m: self.symbols[m.group(1)]["glyph"], label)

    def _family_order(self) -> list:
        h = self.hints
        fams = [f for f in self.game.zone_list if f.name not in h.hide]
        first = [f for name in h.first for f in fams if f.name == name]
        return first + [f for f in fams if f not in first]

    def player_index(self, fam) -> int | None:
        for i, spec in enumerate(fam.index):
            if spec.type == T.PLAYER:
                if self.hints.player_board is None or fam.name in self.hints.player_board:
                    return i
                return None
        return None

    # --- one view ------------------------------------------------------------
    def view(self, state, seat: int | None, cache: "ViewCache | None" = None, obs: dict | None = None) -> dict:
        """The view of ``state`` for ``seat``; with a ``cache`` (:class:`ViewCache`, one per table),
        a family whose zones show ``seat`` what they showed it (or another seat) last time, with
        nothing to click in them, is the same dict as then, not made anew.  ``obs``: the seat's
        ``state.observation(seat, history=False)`` when the caller has it (made with the other
        seats': ``state.observations``)."""
        if obs is None:
            obs = state.observation(seat, history=False)
        if cache is not None and cache.lay is not self.lay:
            cache.families.clear()          # another layout's zones (a new game of other players)
            cache.variables = None
            cache.lay = self.lay
        lay = self.lay
        names = list(lay.seat_names)
        decision = obs.get("decision")
        to_move = decision["player"] if decision else None
        options = state.pending.options if (seat is not None and seat == to_move and state.pending) else []
        targets = self._targets(state, options, to_move)
        pieces = self._pieces(obs, options, to_move)
        shared, per_player = [], {s: [] for s in lay.seats}
        board_order = self.hints.player_board
        aimed = {n for names in targets.values() for n in names} if targets else None
        parts = self.parts
        for fam in self.families:
            if (fam.id, None) in parts:
                shared.append(self._family_kept(cache, seat, fam, None, parts[fam.id, None], obs, targets, aimed, state))
            else:
                for s in lay.seats:
                    per_player[s].append(self._family_kept(cache, seat, fam, s, parts[fam.id, s], obs, targets,
                                                           aimed, state))
        if board_order:
            rank = {n: i for i, n in enumerate(board_order)}
            for s in per_player:
                per_player[s].sort(key=lambda f: rank.get(f["name"], len(rank)))
        shown = obs["variables"]
        kept = cache.variables if cache is not None else None
        if kept is not None and _same(kept[0], shown):   # (the seats' observations share their values: quick)
            shared_vars, player_vars = kept[1]
        else:
            shared_vars, player_vars = self._variables(obs)
            if cache is not None:
                cache.variables = (shown, (shared_vars, player_vars))
        scopes = state.open_scopes()
        phase = next((name for kind, name in reversed(scopes) if kind == "phase"), None)
        rnd = obs["variables"].get(self.hints.round) if self.hints.round else None
        view = {
            "game": self.game.name,
            "viewer": seat,
            "viewer_name": names[seat] if seat is not None else "onlooker",
            "seats": names,
            "automata": sorted(lay.automata),
            "status": obs["status"],
            "to_move": to_move,
            "to_move_name": names[to_move] if to_move is not None else None,
            "round_name": self.hints.round,
            "round": rnd if isinstance(rnd, (int, str)) else None,
            "phase": phase,
            "variables": shared_vars,
            "shared": shared,
            "players": [{"seat": s, "name": names[s], "to_move": s == to_move, "is_viewer": s == seat,
                         "variables": self._facts(state, s) + player_vars.get(s, []), "families": per_player[s]}
                        for s in lay.seats],
            "symbols": self.symbols,
            "actions": self._actions(options, targets, to_move, pieces, state),
            "seat_colors": self.seat_colors,
        }
        if self.hints.boards:
            view["boards"] = self._boards()
        if self.track_fns:
            view["score_tracks"] = self._score_tracks(state, obs)
        if state.is_terminal():
            view["scores"] = state.scores()
            view["ranking"] = state.ranking()
            # per seat, the score's named parts (`end: parts:`) as [[name, value], …], in the rulebook's order
            view["score_parts"] = [[[words(k), v] for k, v in row.items()] for row in state.score_parts()]
        return view

    def _family_kept(self, cache, seat, fam, owner, part, obs, targets, aimed, state) -> dict:
        """:meth:`_family`, or the same family's dict made for the same zone contents before (``cache``);
        ``part``: ``self.parts[fam.id, owner]``."""
        pidx, zones, names, order = part
        if cache is None or fam.cells is not None or fam.name in self.space_fns or (aimed and not aimed.isdisjoint(names)):
            return self._family(fam, zones, pidx, obs, targets, state)
        now = list(map(obs["zones"].get, order))
        kept = cache.families.get((fam.id, owner))
        if kept is None:
            kept = cache.families[fam.id, owner] = {}
        mine = kept.get(seat)
        if mine is not None and mine[0] == now:
            return mine[1]
        for other in kept.values():          # another seat sees the same (a public zone): made once
            if other[0] == now:
                kept[seat] = other
                return other[1]
        made = self._family(fam, zones, pidx, obs, {}, state)
        kept[seat] = (now, made)
        return made

    def _targets(self, state, options, who) -> dict:
        """option id -> [zone names a click chooses it by]"""
        out = {}
        for o in options:
            names = []
            click = self.hints.click.get(o.action.name)
            params = {p.name: v for p, v in zip(o.action.params, o.values)}
            if click is not None:
                fam = self.game.zones.get(click.zone)
                if fam is not None:
                    key = tuple(who if n == "player" else params.get(n) for n in click.index)
                    zone = self.lay.zfam[fam.id].get(key[0] if len(key) == 1 else key)
                    if zone is not None:
                        names.append(zone.name)
            for v in o.values:
                if isinstance(v, Zone):
                    names.append(v.name)
            out[o.id] = names
        return out

    def _pieces(self, obs, options, who) -> dict:
        """option id -> [[zone name, label], …]: the components a click on which chooses it
        (`display: pick:`), among those the seat sees."""
        out = {}
        for o in options:
            picks = self.hints.pick.get(o.action.name)
            if not picks:
                continue
            params = {p.name: v for p, v in zip(o.action.params, o.values)}
            params["player"] = who
            found = []
            for pick in picks:
                fam = self.game.zones.get(pick.zone)
                if fam is None:
                    continue
                zones = self.lay.zfam[fam.id]
                if pick.index is None:
                    chosen = list(zones.values())
                else:
                    key = tuple(params.get(n) for n in pick.index)
                    zone = zones.get(key[0] if len(key) == 1 else key)
                    chosen = [zone] if zone is not None else []
                want = {attr: params.get(param) for attr, param in pick.match.items()}
                for zone in chosen:
                    content = obs["zones"].get(zone.name)
                    if not isinstance(content, list):
                        continue
                    for label in dict.fromkeys(content):
                        attrs = self.label_attrs.get(label, {})
                        if all(a in attrs and attrs[a] == v for a, v in want.items()):
                            found.append([zone.name, label])
            out[o.id] = found
        return out

    def _actions(self, options, targets, seat=None, pieces=None, state=None) -> list:
        """The options grouped by action (in rulebook order), each group in a fixed order of its
        parameters' values (the same options read in the same order every turn), each with its
        sentence, its parameters' values in words (``shown``) and, with `display: covers:`, the grid
        cells it covers.  Each group says the steps in which a person may choose among many options
        (`display: steps:`, else one parameter a step): the renderers narrow by one step at a time."""
        groups: dict = {}
        decls: dict = {}
        numbers: dict = {}      # action -> its one parameter, when that is a number in a range: entered as a number
        for o in options:
            if o.action.name not in numbers:
                numbers[o.action.name] = _number_param(o.action)
            params = {p.name: format_value(v) for p, v in zip(o.action.params, o.values)}
            comps = [v.label for v in o.values if isinstance(v, Component)]
            item = {"id": o.id, "params": params, "say": self.phrases.sentence(o.id, seat),
                    "shown": {p.name: self._shown(v, p.type) for p, v in zip(o.action.params, o.values)},
                    "zones": targets.get(o.id, []), "components": comps, "pieces": (pieces or {}).get(o.id, [])}
            cover = self._cover(state, o, seat) if state is not None else None
            if cover is not None:
                item["cover"] = cover
            groups.setdefault(o.action.name, []).append((self._option_key(o), item))
            decls.setdefault(o.action.name, o.action)
        order = sorted(groups, key=lambda n: (self.action_rank.get(n, len(self.action_rank)), n))
        return [{"action": name, "title": words(name), "steps": self._steps(decls[name]),
                 "options": [x for _, x in sorted(groups[name], key=lambda t: t[0])],
                 **({"number": numbers[name]} if numbers.get(name) else {})}
                for name in order]

    def _steps(self, decl) -> list:
        """[{"params": [...], "title": ...}]: the steps of choosing an option of ``decl``."""
        names = [p.name for p in decl.params]
        steps = [list(s) for s in self.hints.steps.get(decl.name, [])]
        steps = [[n for n in s if n in names] for s in steps]
        steps = [s for s in steps if s]
        given = {n for s in steps for n in s}
        steps += [[n] for n in names if n not in given]          # what the hint leaves out, one a step
        return [{"params": s, "title": ", ".join(self.hints.titles.get(f"{decl.name}.{n}") or words(n) for n in s)}
                for s in steps]

    def _shown(self, v, typ) -> str:
        """A parameter's value in words: a component by its name, a symbol by its name, a seat by its name."""
        if isinstance(v, Component):
            st = self.labels.get(v.label, {})
            return st.get("name") or words(v.label)
        if isinstance(v, Zone):
            return words(v.name)
        if isinstance(v, str) and v in self.hints.symbol_names:
            return self.hints.symbol_names[v]
        if isinstance(v, str):
            return words(v)
        return _show(v, typ, self.lay.seat_names)

    def _cover_functions(self) -> dict:
        """action -> (Cover, f(state, slots), [parameter names in the function's order], nslots) for
        `display: covers:`, compiled once (a hint that does not compile is left out)."""
        from dsl.parser import parse_expression
        from dsl.diagnostics import Pos, Report
        from ...game import Cx, Scope, compile_expr
        out = {}
        for action, cover in self.hints.covers.items():
            fn = self.game.functions.get(cover.cells)
            fam = self.game.zones.get(cover.zone)
            if fn is None or fam is None or fam.cells is None:
                continue
            names = [n for n, _ in fn.params]
            scope = Scope([(f"_{n}", t) for n, t in fn.params])
            report = Report()
            try:
                f, _ = compile_expr(parse_expression(f"{cover.cells}({', '.join('_' + n for n in names)})", Pos("<display>")),
                                    Cx(self.game, report, scope, False, {}, None))
            except Exception:  # noqa: BLE001 - a hint that does not compile is left out
                continue
            if not report.has_errors:
                out[action] = (cover, f, names, max(scope.nslots, len(names), 1))
        return out

    def _cover(self, state, option, who) -> dict | None:
        """{"zone", "cells": [cell names], "shape": [[row, column], …] from the top left}: the cells
        of a grid ``option`` covers (`display: covers:`), None without the hint or when they are no
        cells of that grid."""
        made = self.cover_fns.get(option.action.name)
        if made is None:
            return None
        cover, fn, names, nslots = made
        params = {p.name: v for p, v in zip(option.action.params, option.values)}
        params["player"] = who
        fam = self.game.zones[cover.zone]
        key = tuple(params.get(n) for n in cover.index)
        zone = self.lay.zfam[fam.id].get(key[0] if len(key) == 1 else key)
        if zone is None or any(n not in params for n in names):
            return None
        try:
            cells = fn(state, [params[n] for n in names] + [None] * (nslots - len(names)))
        except Exception:  # noqa: BLE001 - a hint never stops the drawing
            return None
        if not isinstance(cells, (list, tuple)) or not cells or not all(
                isinstance(c, tuple) and len(c) == 2 and all(isinstance(x, int) for x in c) for c in cells):
            return None
        r0, c0 = min(c[0] for c in cells), min(c[1] for c in cells)
        cells = sorted(cells)            # the first: the top left cell, where the pointer holds the piece
        return {"zone": zone.name, "cells": [f"{zone.name} {format_value(c)}" for c in cells],
                "shape": sorted([c[0] - r0, c[1] - c0] for c in cells)}

    def _option_key(self, option) -> tuple:
        return tuple(self._value_key(v) for v in option.values)

    def _value_key(self, v) -> tuple:
        if isinstance(v, bool) or isinstance(v, int):
            return (0, int(v), "")
        if isinstance(v, str):
            return (1, self.symbol_rank.get(v, len(self.symbol_rank)), v)
        if isinstance(v, Component):
            return (2, 0, _natural(v.label))
        if isinstance(v, Zone):
            return (3, v.id, "")
        if isinstance(v, (tuple, list)):
            return (4, 0, tuple(self._value_key(x) for x in v))
        return (5, 0, str(v))

    def _family(self, fam, zones, pidx, obs, targets, state=None) -> dict:
        if fam.cells is not None and len(zones) == 1:
            drawn = self._grid_family(fam, zones[0], obs, state)
            if drawn is not None:
                return drawn
        own = [i for i in range(len(fam.index)) if i != pidx]
        index_names = [fam.index[i].name for i in own]
        clickable = {}
        for oid, names in targets.items():
            for n in names:
                clickable.setdefault(n, []).append(oid)
        cells = []
        board, place = self.on_board.get(fam.name, (None, None))
        for z in zones:
            at = [z.index_values[i] for i in own]
            content = obs["zones"].get(z.name)
            cell = {"name": z.name, "at": [format_value(x) for x in at], "capacity": z.capacity,
                    "options": clickable.get(z.name, [])}
            space = self._space(state, fam, z, pidx) if state is not None else None
            if space is not None:
                cell["space"] = space
            if isinstance(place, dict):
                point = place.get(",".join(cell["at"]))
                if point is not None:
                    cell["pos"] = self._percent(board, point)
            if isinstance(content, dict):
                cell["hidden"] = True
                cell["count"] = content.get("count", 0)
                cell["components"] = []
            else:
                cell["hidden"] = False
                cell["count"] = len(content or [])
                cell["components"] = [self.labels.get(lbl, {"label": lbl, "glyph": lbl[:2], "short": lbl}) for lbl in content or []]
            cells.append((at, cell))
        out = {"name": fam.name, "title": self.hints.titles.get(fam.name) or words(fam.name), "index": index_names,
               "type": fam.ztype,
               # each index in the game's words (`titles: {board.s: star}`), else the index's name in words
               "index_titles": {n: self.hints.titles.get(f"{fam.name}.{n}") or words(n) for n in index_names}}
        if fam.name in self.hints.layout:
            out["layout"] = self.hints.layout[fam.name]
        if board is not None:
            out["board"] = board          # drawn on that picture (`display: boards:`)
            if isinstance(place, tuple):
                out["pos"] = self._percent(board, place)
        if len(own) == 0:
            out["shape"] = "single"
            out["zone"] = cells[0][1] if cells else None
        elif len(own) == 1:
            out["shape"] = "row"
            out["zones"] = [c for _, c in cells]
        elif len(own) == 2:
            out["shape"] = "grid"
            grid = self.hints.grid.get(fam.name)
            r, c = 0, 1
            if grid is not None and grid.rows in index_names and grid.columns in index_names:
                r, c = index_names.index(grid.rows), index_names.index(grid.columns)
            rows = _ordered(at[r] for at, _ in cells)
            cols = _ordered(at[c] for at, _ in cells)
            out["flip_rows"] = bool(grid is not None and grid.flip_rows)
            if out["flip_rows"]:
                rows.reverse()
            where = {(at[r], at[c]): cell for at, cell in cells}
            out["rows"] = [format_value(x) for x in rows]
            out["columns"] = [format_value(x) for x in cols]
            out["row_index"], out["column_index"] = index_names[r], index_names[c]
            out["cells"] = [[where.get((rv, cv)) for cv in cols] for rv in rows]
        else:
            out["shape"] = "list"
            out["zones"] = [c for _, c in cells]
        return out

    def _percent(self, board: str, point) -> list:
        """A point on a board's picture as per cent of its width and height (the page scales it)."""
        w, h = self.hints.boards[board].size
        return [round(100 * point[0] / w, 2), round(100 * point[1] / h, 2)]

    def _boards(self) -> list:
        return [{"name": b.name, "title": b.title or words(b.name),
                 "image": image_url(self.game, b.image) if b.image else None, "size": list(b.size), "seat": b.seat}
                for b in self.hints.boards.values()]

    def _track_functions(self) -> list:
        """[(ScoreTrack, f(state, [seat]) or None, nslots)] for `display: score_track:`: a variable is
        read from the observation; a function is compiled once (one that may not be shown is left
        out: RW259)."""
        out = []
        for t in self.hints.score_tracks:
            if track_problem(self.game, t.of) is not None:
                continue
            if t.of in self.game.variables:
                out.append((t, None, 0))
                continue
            compiled = _seat_function(self.game, t.of)
            if compiled is not None:
                out.append((t, *compiled))
        return out

    def _score_tracks(self, state, obs) -> list:
        """Each track with a marker per seat whose value the seat may see: the space it stands on
        (a value past the last space goes round again: ``laps``)."""
        out = []
        names = self.lay.seat_names
        for t, fn, nslots in self.track_fns:
            markers = []
            for s in self.lay.seats:
                if fn is None:
                    shown = obs["variables"].get(t.of)
                    value = shown.get(str(s), shown.get(s)) if isinstance(shown, dict) else None
                else:
                    try:
                        value = fn(state, [s] + [None] * (nslots - 1))
                    except Exception:  # noqa: BLE001 - a hint never stops the drawing
                        value = None
                if isinstance(value, bool) or not isinstance(value, int):
                    continue
                laps, space = divmod(value - t.start, t.length)
                markers.append({"seat": s, "name": names[s], "value": value, "space": t.start + space,
                                "laps": laps, "color": self.seat_colors[s]})
            out.append({"of": t.of, "title": t.title or self._title(t.of), "start": t.start, "length": t.length,
                        "markers": markers})
        return out

    def _said(self, name, value, typ) -> str:
        """A value in words: as `display: values:` says for ``name``, a symbol by its name, a seat by
        its name, a list item by item."""
        table = self.hints.values.get(name) if name is not None else None
        if table:
            said = table.get(format_value(value) if not isinstance(value, str) else value)
            if said is not None:
                return said
        if isinstance(value, str):
            return self.hints.symbol_names.get(value) or words(value)
        if isinstance(value, list):
            return "[" + ", ".join(self._said(None, v, None) for v in value) + "]"
        return _show(value, typ, self.lay.seat_names)

    def _title(self, name: str) -> str:
        return self.hints.titles.get(name) or words(name)

    def _variables(self, obs):
        shown = obs["variables"]
        names = self.lay.seat_names
        order = [v for v in self.hints.variables if v in shown]
        order += [v for v in shown if v not in order]
        shared, per_player = [], {}
        for name in order:
            if name in self.hints.hide or name == self.hints.round:
                continue
            var = self.game.variables.get(name)
            value = shown[name]
            if var is not None and len(var.index) == 1 and var.index[0].type == T.PLAYER and isinstance(value, dict):
                for key, v in value.items():
                    try:
                        s = int(key)
                    except ValueError:
                        continue
                    per_player.setdefault(s, []).append({"name": name, "title": self._title(name),
                                                         "value": self._said(name, v, var.type)})
                continue
            if isinstance(value, dict):
                keys = var.index[0].type if var is not None and len(var.index) == 1 else None
                text = ", ".join(f"{self._said(None, _key(k), keys)}: {self._said(name, v, var.type if var else None)}"
                                 for k, v in value.items())
            else:
                text = self._said(name, value, var.type if var else None)
            shared.append({"name": name, "title": self._title(name), "value": text})
        return shared, per_player


def _seat_function(game, fn_name: str):
    """The rulebook's function ``fn_name`` applied to a seat, compiled once: (f(state, slots), the
    number of slots f needs), or None when it does not compile (a display hint is then left out)."""
    from dsl.parser import parse_expression
    from dsl.diagnostics import Pos, Report
    from ...game import Cx, Scope, compile_expr
    scope = Scope([("_p", T.PLAYER)])
    report = Report()
    try:
        fn, _ = compile_expr(parse_expression(f"{fn_name}(_p)", Pos("<display>")),
                             Cx(game, report, scope, False, {}, None))
    except Exception:  # noqa: BLE001 - a hint that does not compile is left out
        return None
    return None if report.has_errors else (fn, max(scope.nslots, 1))


def component_names(labels: dict) -> dict:
    """label -> how it reads in words, for the labels whose kind has `display: components: name:`."""
    return {label: st["name"] for label, st in labels.items() if "name" in st}


def _same(a, b) -> bool:
    """Are two observed values the same to show: equal, of the same types throughout (``1`` and
    ``1.0`` or ``True`` are equal but read differently)?  The same object first (the seats'
    observations made together share what all see)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return len(a) == len(b) and all(k in b and _same(x, b[k]) for k, x in a.items())
    if type(a) is list:
        return len(a) == len(b) and all(map(_same, a, b))
    return a == b


def _key(k):
    """A key of an observed variable's table (written as text) as its value: "2" -> 2."""
    if isinstance(k, str) and k.lstrip("-").isdigit():
        return int(k)
    return k


def _natural(label: str) -> tuple:
    """``red10`` after ``red9``: digits compare as numbers."""
    return tuple((0, int(x), "") if x.isdigit() else (1, 0, x) for x in re.findall(r"\d+|\D+", label))


def _ordered(values) -> list:
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def _number_param(action) -> str | None:
    """The name of ``action``'s one parameter when its domain is a range of numbers
    (``0..money[player]``): people enter it as a number (terminal, page), else None."""
    from dsl import ast
    if len(action.params) != 1:
        return None
    p = action.params[0]
    return p.name if isinstance(p.tree, ast.Range) and p.choose is None else None


def _show(value, typ, seat_names) -> str:
    if typ == T.PLAYER and isinstance(value, int) and 0 <= value < len(seat_names):
        return seat_names[value]
    if value is None:
        return "–"
    if value is True:
        return "yes"
    if value is False:
        return "no"
    if isinstance(value, list):
        return "[" + ", ".join(_show(v, None, seat_names) for v in value) + "]"
    return str(value)


_MAKERS: dict = {}


def maker_for(state) -> ViewMaker:
    """The view maker of ``state``'s game layout (made once per layout)."""
    key = id(state.lay)
    maker = _MAKERS.get(key)
    if maker is None or maker.lay is not state.lay:
        maker = ViewMaker(state.game, state.lay)
        _MAKERS[key] = maker
    return maker


def build_view(state, seat: int | None, cache: "ViewCache | None" = None, obs: dict | None = None) -> dict:
    """The view of ``state`` for ``seat`` (``None``: an onlooker who sees only public zones).
    ``cache``: a :class:`ViewCache` kept with the state's table, to make again only what changed
    since the last view made with it (the view is the same as without one).  ``obs``: the seat's
    observation of ``state`` (``history=False``) if the caller made it already."""
    return maker_for(state).view(state, seat, cache, obs)


class ViewCache:
    """What the views of one table's seats were made of last time: per family and owner, per
    viewer, the zones' contents as shown and the family's dict (JSON-ready data, shared by the views
    made with this cache: never change a view made with one).  Any state of the table's game may be
    drawn with it (a decision undone, a past state): a family is reused only where what its zones
    show is equal (and a state of another layout empties it)."""

    __slots__ = ("families", "lay", "encoded", "_bound", "variables")

    def __init__(self):
        self.families: dict = {}        # (family id, owner seat or None) -> {viewer: (zones as shown, dict)}
        self.variables = None           # (the variables an observation showed, the view's lists of them): the last
        self.lay = None                 # the layout they are of
        self.encoded: dict = {}         # id(family dict) -> (the dict, encode(dict)): see packed
        self._bound = 256

    def packed(self, view: dict, encode) -> dict:
        """``view`` (made with this cache) with each family replaced by ``encode(family)``, made once
        per family dict: for an encoder that takes a piece already encoded (``orjson.Fragment``), a
        family that did not change is encoded once for all the views that show it."""
        out = dict(view)
        out["shared"] = [self._encoded(f, encode) for f in view["shared"]]
        out["players"] = [{**p, "families": [self._encoded(f, encode) for f in p["families"]]} for p in view["players"]]
        return out

    def _encoded(self, fam: dict, encode):
        got = self.encoded.get(id(fam))
        if got is None or got[0] is not fam:
            if len(self.encoded) >= self._bound:      # keep only the families the cache still holds
                live = {id(kept[1]) for seats in self.families.values() for kept in seats.values()}
                self.encoded = {k: v for k, v in self.encoded.items() if k in live}
                self._bound = 2 * len(self.encoded) + 256
            got = self.encoded[id(fam)] = (fam, encode(fam))
        return got[1]
