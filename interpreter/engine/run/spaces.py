"""The fixed action space of a layout: every action id that can ever be legal.

Learning code wants a number per action that means the same thing in every
state.  An action's id is its name and parameter values, so the space is,
per action (declared or inline), the combinations of every value each
parameter can ever take.  Those values are found once per layout, without
playing, by evaluating the parameter's domain expression over *sets of
possible values* (:class:`_Bounder`, domains.py): a number variable with ``min``/``max``
stands for its range, any other variable for its type's values, its initial
values and ``none`` (so ``claim[k] == none`` keeps what it may keep), a zone for every component its family may hold, an
enum for its symbols, a rulebook function for its body with the argument
sets bound — an over-approximation, so every legal id is in the space.  A
later parameter is bounded once per value of the earlier ones (a triangle
``n: "1..3", k: "0..n"`` stays a triangle).

Where the expression cannot be bounded (a number variable without a range,
a count of an unbounded list), the author states the parameter's possible
values on the action: ``bounds: {white: "0..2 * frame_width"}``; the
validator reports a parameter that stays unbounded (RW240).

    space = action_space(rulebook.game, rulebook.layout(3))
    space.ids[i], space.index[id], space.mask(state.legal_actions())
"""
from __future__ import annotations

from dataclasses import dataclass, field

from dsl import ast

from ..compile.codegen import id_is_value, id_kept_by_value
from .frames import id_part, option_id
from .domains import MAX_SET, Unbounded, _Bounder

#: beyond this many ids a space is "unbounded" (a set parameter's values: domains.MAX_SET)
MAX_IDS = 200_000
_UNSEEN = object()


@dataclass
class ActionSpace:
    """Every action id that can ever be legal in one layout, in a stable order."""

    ids: tuple
    index: dict
    #: (action, parameter name, position, why) for every parameter that could not be bounded
    unbounded: list = field(default_factory=list)
    #: (action name, id parts of its values) -> index: what ``indices_of`` found (kept, never compared)
    by_parts: dict = field(default_factory=dict, repr=False, compare=False)
    #: action name -> whether its values are their own id parts (codegen.id_is_value for every parameter)
    plain_values: dict = field(default_factory=dict, repr=False, compare=False)
    #: id(action) -> {values: index} for an action whose values key their ids (codegen.id_kept_by_value:
    #: equal keys, equal ids), None for the others: ``indices_of``'s first look, without a key to build (the
    #: actions are the rulebook's, which outlives its layouts and their spaces)
    by_values: dict = field(default_factory=dict, repr=False, compare=False)
    #: told id -> how many ids of the space the other seats are told so (``told_count``), made on first use
    told: dict | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.ids)

    def action_index(self, action_id: str) -> int:
        return self.index[action_id]

    def action_id(self, i: int) -> str:
        return self.ids[i]

    def told_count(self, told, told_id: str) -> int:
        """How many ids of the space the seats other than the chooser are told as ``told_id``;
        ``told(action id)`` is what they are told of one (``State.told_id``: secret parameters as
        ``…``, the same for every state of the game).  Counted once per space."""
        counts = self.told
        if counts is None:
            counts = {}
            for i in self.ids:
                t = told(i)
                counts[t] = counts.get(t, 0) + 1
            self.told = counts
        return counts.get(told_id, 0)

    def indices_of(self, decision) -> list:
        """The index of each legal option of ``decision`` (``State.pending``), in the order of
        ``legal_actions()``, without writing the options' ids: an id is written once per
        action and id parts of its values (``frames.id_part``: what the id shows of each
        value, so equal parts write equal ids; numbers, seats, booleans and symbols are their
        own parts, as where the options are listed) and its index kept; and for an action whose
        values key their ids (``codegen.id_kept_by_value``: those and components), kept by the
        values themselves too.  An id outside the space is a KeyError, as in ``mask``."""
        if decision is None:
            return []
        of_action = self.by_values.get
        out = []
        for action, values in decision.raw:
            found = of_action(id(action), _UNSEEN)
            if found is not None and found is not _UNSEEN and (i := found.get(values)) is not None:
                out.append(i)
                continue
            i = self._index_of(action, values)
            if found is _UNSEEN:        # (first seen: whether its values key their ids, so their index)
                plain = not action.params or all(id_kept_by_value(p.type) for p in action.params)
                found = self.by_values[id(action)] = {} if plain else None
            if found is not None:
                found[values] = i
            out.append(i)
        return out

    def _index_of(self, action, values) -> int:
        """The index of the option ``(action, values)``, kept by its id parts (``by_parts``)."""
        known = self.by_parts
        if not values:
            key = action.name
        else:
            name = action.name
            own = self.plain_values.get(name)
            if own is None:
                own = self.plain_values[name] = all(id_is_value(p.type) for p in action.params)
            key = (name, values) if own else (name, tuple([id_part(v) for v in values]))
        i = known.get(key)
        if i is None:
            i = known[key] = self.index[option_id(action, values)]
        return i

    def __getstate__(self) -> dict:
        """Pickled without what ``indices_of`` keeps (made again on use; ``by_values`` is keyed by
        the ids of this process's action objects)."""
        return {**self.__dict__, "by_parts": {}, "plain_values": {}, "by_values": {}, "told": None}

    def mask(self, legal_ids) -> list:
        """0/1 per action of the space: 1 where the id is among ``legal_ids``.
        An id outside the space is a KeyError (``regelwerk check`` reports it as RW906)."""
        out = [0] * len(self.ids)
        index = self.index
        for a in legal_ids:
            out[index[a]] = 1
        return out


def space_of(game, lay) -> ActionSpace:
    """The action space of ``lay``, made once and kept on the layout."""
    if lay.action_space is None:
        lay.action_space = action_space(game, lay)
    return lay.action_space


def action_space(game, lay) -> ActionSpace:
    """The action space of ``lay``: declared actions first (in rulebook order),
    then inline actions (in file order); within an action, its combinations in
    the order of the parameters' values."""
    b = _Bounder(game, lay)
    ids: list = []
    index: dict = {}
    unbounded: list = []
    for action in _actions(game):
        try:
            new = list(_action_ids(b, action))
        except Unbounded as exc:
            unbounded.append((action, exc.args[1] if len(exc.args) > 1 else None, exc.pos or action.pos, exc.why))
            continue
        for oid in new:
            if oid not in index:
                index[oid] = len(ids)
                ids.append(oid)
        if len(ids) > MAX_IDS:
            unbounded.append((action, None, action.pos, f"the space has more than {MAX_IDS} ids"))
            break
    return ActionSpace(tuple(ids), index, unbounded)


def unbounded_parameters(game, lay) -> list:
    """``action_space(game, lay).unbounded`` without writing the ids (validate's RW240 check):
    the last parameter's values are only counted, and where the counts could pass
    MAX_IDS the whole space is made after all."""
    b = _Bounder(game, lay)
    unbounded: list = []
    total = 0
    for action in _actions(game):
        try:
            total += sum(_action_ids(b, action, count_only=True))
        except Unbounded as exc:
            unbounded.append((action, exc.args[1] if len(exc.args) > 1 else None, exc.pos or action.pos, exc.why))
            continue
        if total > MAX_IDS:  # distinct ids may still be fewer: decide as action_space does
            return action_space(game, lay).unbounded
    return unbounded


def unbounded_message(action, spec, game=None) -> str:
    """Why parameter ``spec`` of ``action`` has no fixed action space, and what helps: a
    number variable its domain reads that declares no ``min``/``max`` (``0..money[player]``:
    declare ``max:`` on money and the bound is derived from it)."""
    from ..compile import types as T
    head = f"the values of parameter '{spec.name}' of action '{action.name}'"
    if isinstance(spec.type, (T.ListT, T.TupleT)):
        return (f"{head} are lists, which have no fixed action space; choose the elements as a set "
                f"({{{spec.name}: {{set: \"...\", size: k}}}}, docs/language.md) or one at a time")
    open_vars = []
    if game is not None and spec.tree is not None:
        names = ast.names_in(spec.tree)
        open_vars = sorted(n for n in names if n in game.variables and T.is_numeric(game.variables[n].type)
                           and (game.variables[n].min is None or game.variables[n].max is None))
    if open_vars:
        which = ", ".join(f"'{n}'" for n in open_vars)
        return (f"{head} cannot be bounded before the game: {which} declare{'s' if len(open_vars) == 1 else ''} "
                f"no min and max; declare them (variables: {{{open_vars[0]}: {{min: 0, max: …}}}}) and the "
                f"bound is derived from them, or state the values with bounds: {{{spec.name}: \"lo..hi\"}}")
    return (f"{head} cannot be bounded before the game; state them with bounds: "
            f"{{{spec.name}: \"lo..hi\"}} (or a list of every value it can take)")


def unbounded_diagnostics(space: ActionSpace) -> list:
    """RW240 for every parameter of ``space`` that could not be bounded, located at it."""
    from dsl.diagnostics import ERROR, Diagnostic
    return [Diagnostic(pos, why, ERROR, "RW240") for _action, _param, pos, why in space.unbounded]


def _actions(game) -> list:
    """Declared actions first (in rulebook order), then inline actions (in file order)."""
    return list(game.actions.values()) + sorted(game.inline_actions.values(),
                                                key=lambda a: (str(a.pos.file), a.pos.line, a.pos.col))


def _action_ids(b: "_Bounder", action, count_only: bool = False):
    """The ids of ``action``; ``count_only``: how many the last parameter adds per
    combination of the earlier ones (the same checks, the same errors)."""
    from .values import format_value
    params = action.params
    if not params:
        yield 1 if count_only else action.name
        return
    declared = action.bounds or {}
    # the locals an inline action inherits are unknown here (the deciding seat: any seat)
    env: dict = {name: None for name in action.proc.slot_names[:action.inherit]}
    env["player"] = b.seats
    n = len(params)
    values = [None] * n
    count = [0]

    def level(i):
        spec = params[i]
        try:
            if spec.name in declared:
                text, pos = declared[spec.name]
                dom = b.elems_of_source(text, pos, env)
            else:
                dom = b.elems_of_source(spec.source, spec.pos, env)
                if dom is None:
                    dom = b.by_type(spec.type)
        except Unbounded as exc:
            raise _located(exc, spec) from None
        if dom is None:
            raise _located(Unbounded(unbounded_message(action, spec, b.game)), spec)
        if spec.choose is not None:
            dom = _set_values(dom, spec.choose)
            if dom is None:
                raise _located(Unbounded(f"set parameter '{spec.name}' of action '{action.name}' has more than "
                                         f"{MAX_SET} possible sets"), spec)
        if count_only and i + 1 == n:
            k = len({format_value(v) for v in dom})
            if count[0] + k > MAX_IDS:
                raise _located(Unbounded(f"action '{action.name}' has more than {MAX_IDS} combinations"), spec)
            count[0] += k
            yield k
            env.pop(spec.name, None)  # as below
            return
        for v in _ordered(dom):
            env[spec.name] = frozenset((v,))
            values[i] = v
            if i + 1 < n:
                yield from level(i + 1)
            else:
                count[0] += 1
                if count[0] > MAX_IDS:
                    raise _located(Unbounded(f"action '{action.name}' has more than {MAX_IDS} combinations"), spec)
                yield option_id(action, tuple(values))
        env.pop(spec.name, None)

    yield from level(0)


def _set_values(elems, sizes):
    """Every value a set parameter of ``sizes`` can take when its elements are among
    ``elems`` (interpreter/engine/run/choices.py): the combinations in the set order, alike elements
    (components with one label) as one element that may repeat up to how many there are;
    None beyond MAX_SET sets."""
    from .choices import set_key
    from .values import format_value
    from .choices import count_sets
    lo, hi = sizes
    groups: dict = {}
    for v in elems:
        groups.setdefault(format_value(v), []).append(v)
    kinds = sorted(groups.values(), key=lambda g: set_key(g[0]))
    if hi is None:                      # a size that comes from the state: every size there can be
        hi = len(elems)
    if count_sets([len(g) for g in kinds], lo, min(hi, len(elems)), work=False) > MAX_SET:
        return None
    out = []

    def pick(i, k, chosen):
        if k == 0:
            out.append(tuple(chosen))
            if len(out) > MAX_SET:
                raise OverflowError
            return
        for j in range(i, len(kinds)):
            group = kinds[j]
            for n in range(1, min(len(group), k) + 1):
                pick(j + 1, k - n, chosen + group[:n])

    try:
        for k in range(lo, hi + 1):
            pick(0, k, [])
    except OverflowError:
        return None
    return frozenset(out)


def _located(exc: Unbounded, spec) -> Unbounded:
    out = Unbounded(exc.why, spec.pos)
    out.args = (exc.why, spec.name)
    return out


def _ordered(values) -> list:
    """A stable order: numbers ascending, then the rest by how they are written."""
    from .values import format_value
    unique = {}
    for v in values:
        unique.setdefault(format_value(v), v)
    values = unique.values()
    return sorted(values, key=lambda v: (0, v, "") if isinstance(v, int) and not isinstance(v, bool)
                  else (1, 0, format_value(v)))
