"""Lay a game out: seats, constants, components, zones and variables.

A :class:`Layout` is what a compiled rulebook becomes for one number of
players, one set of options and variants: the component instances, the
zone instances of every family, the positions of the variables.  It is made
once per game and shared (never changed) by all states and their clones.
"""
from __future__ import annotations

from itertools import islice

from dsl.diagnostics import Pos, RuleRuntimeError

from .limits import LIMITS
from .values import Zone, component_class, format_value

BOX = "box"


class GameSetupError(Exception):
    """Bad arguments for a new game (player count, option, variant)."""


class _LayoutState:
    """Stands in for a state while the layout is evaluated (only ``lay``)."""

    __slots__ = ("lay", "z", "where", "v")

    def __init__(self, lay):
        self.lay = lay
        self.z = None
        self.where = None
        self.v = None

    # what a State keeps of its layout for the generated code (a zone's home is an expression)
    @property
    def zf(self):
        return self.lay.zfam

    @property
    def zi(self):
        return self.lay.zid

    @property
    def zn(self):
        return self.lay.zidn

    @property
    def vk(self):
        return self.lay.vkeys


#: a rulebook that states no ``max_decisions``: its games count as truncated after this many
#: decisions per seat (docs/environments.md, "Every game ends")
DECISIONS_PER_SEAT = 1000


class Layout:
    def __init__(self, game, num_players: int, options: dict, variants):
        self.game = game
        self.num_players = num_players
        self.options = options
        self.variants = frozenset(variants)
        self.const: dict = {}
        #: (id of a constant list, field, membership?) -> (the list, elements by value or None):
        #: compile/constindex.items_with
        self.const_index: dict = {}
        self.components: list = []
        self.zones: list = []
        self.zfam: list = []
        #: per zone family: key -> the zone's id (the zfam zones' ids)
        self.zid: list = []
        #: per zone family: ``zid`` nested, a dictionary per index value (one index: ``zid``):
        #: ``zidn[f][a][b]`` is ``zid[f][(a, b)]`` without the tuple (context.contents_of)
        self.zidn: list = []
        #: (family id, leading index values) -> the zones of that part of the family (zones_of)
        self._zone_parts: dict = {}
        #: id of such a part of SPAN_AT_LEAST zones or more -> (start, stop) where its zones' ids are
        #: start, start + 1, …, stop - 1 (laid out in one run: stdlib count_nonempty reads a slice of State.z)
        self.zone_spans: dict = {}
        self.vkeys: list = []
        #: grid zone id -> {cell: slot of State.v holding (piece, part) or None} (layout._lay_grids)
        self.grids: dict = {}
        #: component id -> how many cells the piece covers (its kind's ``shape:``); a piece not
        #: here covers any number
        self.parts: dict = {}
        self.clamp: dict = {}
        self.by_label: dict = {}
        self.automata = frozenset()
        self.seats = ()
        self.num_seats = num_players
        self.seat_names = []
        #: the ranges whose bounds the layout fixes (GameDef.layout_ranges; None: made where used)
        self.ranges: list = []
        #: the fixed action space, made on first use by interpreter/spaces.py (space_of)
        self.action_space = None
        #: the observation tensors' names and shapes, made on first use by interpreter/tensors.py
        self.observation_spec = None
        #: per zone id: whether every seat always sees what it holds (its family's `visible` is
        #: constantly true, or the box), made on first use by engine/knowledge/record.py
        self.open_zones = None
        #: per seat (None: an onlooker): what its view in a replay reads, made on first use by
        #: engine/knowledge/record.py (Viewer)
        self.viewers = {}
        #: per zone id: the functions whose remembered results a change of the zone makes stale
        #: (GameDef.memo_drop of its family; None: all of them), for State.forget_results
        self.stale_results: list = []
        #: per zone id: whose number (``zone_family_no``) of the zone family of the other zone of a
        #: move gives the functions a move between the two makes stale, each once (None: all)
        self.stale_two: list = []
        self.zone_family_no: list = []
        #: per zone id: whether a change of the zone may change a condition trigger's condition
        #: (GameDef.condition_reads), so that a move looks at the condition triggers
        self.condition_zones: list = []
        #: where every component starts: the zones' contents and each component's zone
        #: (made once, copied by every new game)
        self.start_contents: tuple = ()
        self.start_where: tuple = ()
        #: the components, zones and variable instances made so far (limit 'components')
        self.instances = 0
        #: per zone: (zone, whether every seat sees it always: True, never: False, or None when its
        #: `visible:` rule decides), made on first use by observe.py (observation)
        self.zone_sight = None

    @property
    def decision_bound(self) -> int:
        """The decisions after which an unfinished game counts as truncated (``State.truncated``):
        the rulebook's ``max_decisions``, else :data:`DECISIONS_PER_SEAT` per seat (never above the
        limit 'decisions', where the engine refuses to go on)."""
        if self.max_decisions is not None:
            return min(self.max_decisions, LIMITS.decisions)
        return min(DECISIONS_PER_SEAT * self.num_seats, LIMITS.decisions)

    def describe(self) -> dict:
        return {"players": self.num_players, "options": dict(self.options), "variants": sorted(self.variants)}

    def zones_of(self, fid: int, lead: tuple) -> tuple:
        """The zones of family ``fid`` whose first index values are ``lead``, in the
        order the family lays them out (made once per layout, then looked up)."""
        key = (fid, lead)
        part = self._zone_parts.get(key)
        if part is None:
            n = len(lead)
            part = self._zone_parts[key] = tuple(
                z for z in self.zfam[fid].values() if z.index_values[:n] == lead)
            if len(part) >= SPAN_AT_LEAST and all(z.id == part[0].id + k for k, z in enumerate(part)):
                self.zone_spans[id(part)] = (part[0].id, part[0].id + len(part))   # (kept alive in _zone_parts)
        return part

    def zone_by_name(self, name: str):
        for z in self.zones:
            if z.name == name:
                return z
        return None


#: from how many zones on a family part's zones are counted as a slice (count_nonempty): a slice, a
#: list and a filter cost ~300 ns, a Python loop ~16 ns a zone (measured: equal at ~20 zones)
SPAN_AT_LEAST = 24


def _domain(spec, st, L, what):
    try:
        values = spec.domain(st, L)
    except RuleRuntimeError as exc:
        raise RuleRuntimeError(f"{what}: {exc.message}", exc.pos, exc.code) from None
    if isinstance(values, Zone) or not isinstance(values, (tuple, list)):
        raise RuleRuntimeError(f"{what}: index '{spec.name}' must range over a list", spec.pos)
    return tuple(values)


def _shape_of(lay, kind, comp, attrs, st) -> None:
    """``lay.parts[comp.id]``: how many cells the piece ``comp`` covers, from its kind's ``shape:``."""
    sl = [None] * max(kind.shape_nslots, len(kind.attributes), 1)
    for i, a in enumerate(kind.attributes):
        sl[i] = attrs.get(a)
    shape = kind.shape(st, sl)
    if not isinstance(shape, (tuple, list)) or not shape:
        raise RuleRuntimeError(f"the shape of {comp.label} must be a list of at least one cell, not "
                               f"{format_value(shape)}", kind.shape_pos or kind.pos)
    lay.parts[comp.id] = len(shape)


def _combos(specs, st, L, what):
    """Every combination of index values; a later domain may use earlier values
    (``{r: "1..5", c: "1..6 - r"}`` lays out a triangle)."""
    if not specs:
        yield ()
        return
    first, rest = specs[0], specs[1:]
    for value in _domain(first, st, L, what):
        L[first.slot] = value
        for tail in _combos(rest, st, L, what):
            L[first.slot] = value
            yield (value,) + tail


def _counted(combos, lay, what, pos) -> list:
    """The combinations of a zone or variable family, counted against the limit 'components'
    (components, zones and variable instances of one layout): never more are made than the limit
    leaves room for (islice stops the generator), then the whole family is refused."""
    room = LIMITS.components - lay.instances
    made = list(islice(combos, max(room, 0) + 1))
    if len(made) > room:
        raise RuleRuntimeError(f"{what}: more than {LIMITS.components:,} components, zones and variable "
                               f"instances; at most {LIMITS.components:,} are allowed (limit 'components')",
                               pos, "RW910")
    lay.instances += len(made)
    return made


def make_layout(game, num_players: int, options: dict | None = None, variants=()) -> Layout:
    if not game.min_players <= num_players <= game.max_players:
        raise GameSetupError(f"{game.name} is for {game.min_players} to {game.max_players} players, not {num_players}")
    chosen = {}
    options = dict(options or {})
    for name in options:
        if name not in game.options:
            known = ", ".join(sorted(game.options)) or "none"
            raise GameSetupError(f"unknown option '{name}' (options of {game.name}: {known})")
    for v in variants:
        if v not in game.variants:
            known = ", ".join(sorted(game.variants)) or "none"
            raise GameSetupError(f"unknown variant '{v}' (variants of {game.name}: {known})")
    lay = Layout(game, num_players, chosen, variants)
    st = _LayoutState(lay)
    for name, opt in game.options.items():
        value = options.get(name, opt.default)
        value = _coerce_option(value, opt)
        chosen[name] = value
    for name, opt in game.options.items():
        allowed = opt.allowed
        if callable(allowed):
            allowed = allowed(st, [None])
        if allowed is not None and not isinstance(allowed, (tuple, list, frozenset)):
            raise GameSetupError(f"option {name}: 'allowed' must be a list, not {format_value(allowed)}")
        if allowed is not None and chosen[name] not in allowed:
            raise GameSetupError(f"option {name}={chosen[name]} is not allowed (allowed: "
                                 f"{', '.join(str(a) for a in allowed)})")

    # seats
    automata = 0
    if game.automata is not None:
        automata = game.automata(st, [None])
        if not isinstance(automata, int) or automata < 0:
            raise GameSetupError(f"the number of automata must be a whole number, not {automata!r}")
    lay.num_seats = num_players + automata
    lay.seats = tuple(range(lay.num_seats))
    lay.automata = frozenset(range(num_players, lay.num_seats))
    names = [f"Player {i + 1}" for i in range(num_players)]
    for i in range(automata):
        names.append(game.automaton_names[i] if i < len(game.automaton_names) else f"Automaton {i + 1}")
    lay.seat_names = names

    # computed constants (in an order that satisfies their dependencies)
    pending = [c for c in game.constants.values() if c.compute is not None]
    for _ in range(len(pending) + 1):
        left = []
        for c in pending:
            try:
                lay.const[c.name] = c.compute(st, [None])
            except RuleRuntimeError as exc:
                if "no entry for" in exc.message or "there is no" in exc.message:
                    left.append(c)
                else:
                    raise
            except KeyError:
                left.append(c)
        if not left:
            break
        pending = left
    else:
        raise RuleRuntimeError(f"constant '{pending[0].name}' cannot be computed", pending[0].pos)
    for c in game.constants.values():
        if c.compute is None:
            lay.const[c.name] = c.value
    lay.ranges = [_fixed(fn, st) for fn in game.layout_ranges]
    lay.max_decisions = None
    if game.max_decisions is not None:
        bound = game.max_decisions(st, [None])
        if isinstance(bound, bool) or not isinstance(bound, int) or bound < 1:
            raise RuleRuntimeError(f"max_decisions must be a whole number of at least 1, not {bound!r}",
                                   game.max_decisions_pos)
        lay.max_decisions = bound

    # zones
    for fam in game.zone_list:
        ids = {}
        L = [None] * max(fam.nslots, 1)
        for combo in _counted(_combos(fam.index, st, L, f"zone '{fam.name}'"), lay, f"zone '{fam.name}'", fam.pos):
            for spec, value in zip(fam.index, combo):
                L[spec.slot] = value
            key = combo[0] if len(combo) == 1 else tuple(combo)
            name = fam.name if not combo else f"{fam.name}[{', '.join(str(x) for x in combo)}]"
            cap = fam.capacity(st, L) if fam.capacity is not None else None
            owner = fam.owner(st, L) if fam.owner is not None else None
            z = Zone(len(lay.zones), fam.name, key, name, fam.ztype, cap, fam.holds, owner, tuple(combo))
            lay.zones.append(z)
            ids[key] = z
        lay.zfam.append(ids)
        lay.zid.append({key: z.id for key, z in ids.items()})
        lay.zidn.append(_nested(lay.zid[-1]) if len(fam.index) > 1 else lay.zid[-1])
    box = Zone(len(lay.zones), BOX, (), BOX, "area", None, frozenset(), None, ())
    lay.zones.append(box)
    lay.box = box
    drop = game.memo_drop
    lay.stale_results = [None if drop is None else drop.get(z.family) for z in lay.zones]
    _pair_stale(lay)
    cond = game.condition_reads
    lay.condition_zones = [cond is None or z.family in cond for z in lay.zones]
    for fam in game.zone_list:
        if fam.refill is None:
            continue
        for z in lay.zfam[fam.id].values():
            L = [None] * max(fam.nslots, 1)
            for spec, value in zip(fam.index, z.index_values):
                L[spec.slot] = value
            target = fam.refill(st, L)
            if not isinstance(target, Zone):
                raise RuleRuntimeError(f"the refill of {z.name} must be a zone", fam.pos)
            z.refill = target

    # components and where they start
    homes = []
    component = component_class(a for kind in game.kinds.values() for a in kind.attributes)
    for kind in game.kinds.values():
        for item in kind.items:
            L = [None] * max(item.nslots, 1)
            for combo in list(_combos(item.for_each, st, L, f"components '{kind.name}'")):
                for spec, value in zip(item.for_each, combo):
                    L[spec.slot] = value
                count = item.count(st, L)
                if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                    raise RuleRuntimeError(f"components '{kind.name}': the count must be a whole number of at least "
                                           f"0, not {format_value(count)!r}", getattr(item, "pos", None) or kind.pos)
                if lay.instances + count > LIMITS.components:
                    raise RuleRuntimeError(f"components '{kind.name}': {lay.instances + count:,} components, zones "
                                           f"and variable instances; at most {LIMITS.components:,} are allowed "
                                           f"(limit 'components')", getattr(item, "pos", None) or kind.pos, "RW910")
                lay.instances += count
                attrs = {name: f(st, L) for name, f in item.attrs.items()}
                label = kind.name if kind.label is None else _label(kind, attrs)
                for _ in range(count):
                    comp = component(len(lay.components), kind.name, dict(attrs), label)
                    lay.components.append(comp)
                    lay.by_label.setdefault(label, []).append(comp)
                    home = box
                    if kind.home is not None:
                        hl = [None] * max(kind.home_nslots, len(kind.attributes), 1)
                        for i, a in enumerate(kind.attributes):
                            hl[i] = attrs.get(a)
                        home = kind.home(st, hl)
                        if not isinstance(home, Zone):
                            raise RuleRuntimeError(f"the home of {label} must be a zone", kind.home_pos or kind.pos)
                    homes.append(home)
                    if kind.shape is not None:
                        _shape_of(lay, kind, comp, attrs, st)
    lay.homes = homes
    contents = [[] for _ in lay.zones]
    for comp, home in zip(lay.components, homes):
        contents[home.id].append(comp)
    lay.start_contents = tuple(tuple(c) for c in contents)
    lay.start_where = tuple(home.id for home in homes)

    # variables
    init = []
    for var in game.scalar_vars:
        init.append(var.init(st, [None] * max(var.nslots, 1)))
        lay.clamp[var.name] = _bounds(var, st, [None] * max(var.nslots, 1))
    for var in game.family_vars:
        keys = {}
        L = [None] * max(var.nslots, 1)
        for combo in _counted(_combos(var.index, st, L, f"variable '{var.name}'"), lay, f"variable '{var.name}'",
                              var.pos):
            for spec, value in zip(var.index, combo):
                L[spec.slot] = value
            key = combo[0] if len(combo) == 1 else tuple(combo)
            keys[key] = len(init)
            init.append(var.init(st, L))
        lay.clamp[var.name] = _bounds(var, st, L)
        lay.vkeys.append(keys)
    _lay_grids(game, lay, st, init)
    lay.init_vars = init
    return lay


def _lay_grids(game, lay, st, init) -> None:
    """``lay.grids``: for every zone of a grid family (`cells:`), its cells in order, each with
    the slot of ``State.v`` (after the variables) that holds what covers it: ``(piece, part)`` or
    None (State.cover)."""
    lay.grids = {}
    for fam in game.zone_list:
        if fam.cells is None:
            continue
        for z in lay.zfam[fam.id].values():
            L = [None] * max(fam.nslots, 1)
            for spec, value in zip(fam.index, z.index_values):
                L[spec.slot] = value
            cells = fam.cells(st, L)
            if isinstance(cells, Zone) or not isinstance(cells, (tuple, list)):
                raise RuleRuntimeError(f"the cells of {z.name} must be a list, not {format_value(cells)}",
                                       fam.cells_pos or fam.pos)
            slots = {}
            for cell in cells:
                if isinstance(cell, list):
                    cell = tuple(cell)
                if cell in slots:
                    raise RuleRuntimeError(f"the cells of {z.name} list {format_value(cell)} twice",
                                           fam.cells_pos or fam.pos)
                slots[cell] = len(init)
                init.append(None)
            lay.instances += len(slots)
            if lay.instances > LIMITS.components:
                raise RuleRuntimeError(f"zone '{fam.name}': more than {LIMITS.components:,} components, zones and "
                                       f"variable instances; at most {LIMITS.components:,} are allowed "
                                       f"(limit 'components')", fam.cells_pos or fam.pos, "RW910")
            lay.grids[z.id] = slots


def _fixed(fn, st):
    """A range whose bounds the layout fixes, or None when it is empty or cannot be made
    now (the generated code then makes it where it is used, failing there if it fails)."""
    try:
        return fn(st, [None]) or None
    except Exception:  # noqa: BLE001 - reported where the range is used, if it ever is
        return None


def _bounds(var, st, L):
    lo = var.min(st, L) if var.min is not None else None
    hi = var.max(st, L) if var.max is not None else None
    return (lo, hi) if lo is not None or hi is not None else None


def _label(kind, attrs) -> str:
    out = []
    for is_field, text in kind.label_parts:
        out.append(str(attrs.get(text)) if is_field else text)
    return "".join(out)


def _coerce_option(value, opt):
    default = opt.default
    if isinstance(value, str):
        if isinstance(default, bool):
            if value.lower() in ("true", "yes", "1", "on"):
                return True
            if value.lower() in ("false", "no", "0", "off"):
                return False
            raise GameSetupError(f"option {opt.name} takes true or false, not '{value}'")
        if isinstance(default, int):
            try:
                return int(value)
            except ValueError:
                raise GameSetupError(f"option {opt.name} takes a whole number, not '{value}'") from None
    return value


__all__ = ["Layout", "make_layout", "GameSetupError", "Pos"]


def _pair_stale(lay) -> None:
    """``lay.stale_two`` and ``lay.zone_family_no`` from ``lay.stale_results``: a move
    between two zones forgets the union of what each makes stale, every slot once
    (moves._forget_two)."""
    number: dict = {}
    stale: list = []
    for z in lay.zones:
        if z.family not in number:
            number[z.family] = len(number)
            stale.append(lay.stale_results[z.id])
    rows = [[None if a is None or b is None else tuple(sorted(set(a) | set(b))) for b in stale] for a in stale]
    lay.zone_family_no = [number[z.family] for z in lay.zones]
    lay.stale_two = [rows[number[z.family]] for z in lay.zones]


def _nested(ids: dict) -> dict:
    """``{(a, b, …): id}`` as ``{a: {b: {…: id}}}``."""
    out: dict = {}
    for key, zid in ids.items():
        at = out
        for part in key[:-1]:
            at = at.setdefault(part, {})
        at[key[-1]] = zid
    return out
