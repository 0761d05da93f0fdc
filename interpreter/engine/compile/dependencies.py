"""Which remembered function results a change of state makes stale.

Rulebook functions are pure: their value depends on their arguments and on
the state they read.  ``State.memo`` keeps their results (per function, at
its ``FuncDecl.slot``, a dictionary keyed by the arguments, or None) until
something they read changes.
What a function reads is known when it is compiled: the global names its
body mentions (``FuncDecl.reads``: zone families, variables, the functions
it calls) and whether it also reads state it does not name
(``FuncDecl.reads_any``): a zone held by a variable or passed as an
argument, or what a builtin of ``STATE_READERS`` reads (where a component
is, what a seat was shown: both change only when components move or a
`reveal` step runs).

``plan(game)`` turns that into ``game.memo_drop``: for every zone family
(and ``box``) and every variable, the slots of the functions whose results a change of
it makes stale, including those that read it through the functions they
call; a function that may read any zone is stale after any move.  (A
variable is only ever read by its name, so no function reads variables
it does not name.)  The state then forgets only those
(``State.changed(drop)``, ``State.move``/``draw``/``shuffle``); every other
change (a `reveal`, an edit by a scenario, a restored state) still forgets
everything.
"""
from __future__ import annotations

from . import types as T
from ..run.layout import BOX     # the one zone that belongs to no family

#: builtins that read more of the state than the contents of the zones passed to them:
#: where a component is (``zone_of``, ``cells_of``), what a seat was shown (``known``)
STATE_READERS = frozenset({"zone_of", "known", "cells_of"})



def _reads(game):
    """``reads(name)``: (the zone families and variables the function ``name`` reads, directly
    or through the functions it calls — never itself: the compiler rejects recursion; may it
    read any zone?)"""
    funcs = game.functions
    memo: dict = {}

    def reads(name: str):
        if name in memo:
            return memo[name]
        f = funcs[name]
        names = set()
        any_zone = f.reads_any or bool(f.reads & STATE_READERS)
        for n in f.reads:
            if n in funcs:
                sub, sub_any = reads(n)
                names |= sub
                any_zone = any_zone or sub_any
            elif n in game.zones or n in game.variables or n == BOX:
                names.add(n)
        memo[name] = (frozenset(names), any_zone)
        return memo[name]

    return reads


def plan(game) -> None:
    """Fill ``game.memo_drop`` from what each function reads (see the module docstring)."""
    funcs = game.functions
    reads = _reads(game)
    keyed = {}
    for name, f in funcs.items():
        positions = keyed_by_zones(f, funcs, reads)
        if positions and len(f.params) == 1:       # its results keyed by the zone itself: forgotten by key
            keyed[f.slot] = (f.slot, positions, len(f.params))
    deps = [(f.slot, reads(name)) for name, f in funcs.items()]
    drop = {}
    for key in [*game.zones, BOX]:
        drop[key] = tuple(slot for slot, (names, any_zone) in deps
                          if (any_zone and slot not in keyed) or key in names)
    game.memo_keyed = tuple(keyed.values())
    for key in game.variables:      # variables are only ever read by name
        drop[key] = tuple(slot for slot, (names, _) in deps if key in names)
    game.memo_drop = drop


def keyed_by_zones(f, funcs, reads) -> tuple:
    """The positions of ``f``'s zone parameters when the zones it reads without naming them
    are only those passed to it: then a move forgets only its results for the zones the move
    changed (``State.forget_results``), not all of them.  That holds when every parameter
    that may hold a zone is one zone (not a list of zones, not ``any``), the body reads no
    zone held by a variable nor any of ``STATE_READERS``, and the functions it calls read only
    what they name.  Else ``()``: ``f`` is forgotten whole after any move, as before.
    ``plan`` uses it for functions of one parameter, whose results are keyed by the zone
    itself (a dictionary pop per changed zone; results keyed by several arguments would have
    to be searched at every move, which cost more than it saved: +4 % instructions per game)."""
    if getattr(f, "reads_dynamic", True) or f.reads & STATE_READERS:
        return ()
    positions = []
    for i, (_, t) in enumerate(f.params):
        if isinstance(t, T.ZoneT):
            positions.append(i)
        elif T.may_hold_zone(t):
            return ()
    if not positions:
        return ()
    for n in f.reads:
        if n in funcs and reads(n)[1]:
            return ()
    return tuple(positions)


def plan_conditions(game) -> None:
    """Which changes of state may change a condition trigger's condition: ``game.condition_reads``,
    the zone families (and ``box``) and variables the conditions read, directly or through the
    functions they call (None: any change may — a condition that reads a zone it does not name,
    one of ``STATE_READERS``, or the seat of the frame that runs), and ``game.condition_flags``
    set to match.  A change of anything else leaves every condition as it was, so it does not
    look at them (a move: ``Layout.condition_zones``; a variable: the flag its step code reads).
    A trigger's end and the end of the setup still look at every condition."""
    reads = _reads(game)
    names: set | None = set()
    for trig in game.condition_triggers:
        if trig.reads_more or trig.reads & STATE_READERS:
            names = None
            break
        for n in trig.reads:
            if n in game.functions:
                sub, sub_any = reads(n)
                if sub_any:
                    names = None
                    break
                names |= sub
            elif n in game.zones or n in game.variables or n == BOX:
                names.add(n)
        if names is None:
            break
    game.condition_reads = None if names is None else frozenset(names)
    for variable, flag in game.condition_flags.items():
        flag[0] = names is None or variable in names


def not_remembered(game) -> list:
    """The functions whose results nobody would ask for again once remembered, so that
    remembering them only costs (a key built twice, a dictionary made, filled, then
    forgotten): those whose result is asked for (FuncDecl.asked) only in the body of one
    other function, which

    - is forgotten by exactly the changes that forget it (the same zone families, variables
      and "any zone" as :func:`_reads` gives; neither of the two forgotten zone by zone, nor
      filling results of other arguments at once: rowfill.py), and
    - passes every one of its parameters on to it as it is.

    Then its result could be asked for again only while that function computes its own
    result for one set of arguments: a loop asking the same question twice (where the lookup
    moved out of a loop that does not change its arguments, probes.hoist_probes, asks once).
    Two functions asking could each ask the same question (a ranking asked by a score and by
    a tie-break); one asked only by options is no different (its results are remembered per
    listing alone, probes.listing_calls: the next listing asks again).  Say a test of one
    place, asked only by a function listing the open places of a board, for each place; or
    the colour a piece counts as, asked only by a function grouping one board's pieces by
    colour.  Remembering is not a matter of meaning (functions are pure): a result asked for
    again is computed again, the same."""
    funcs = game.functions
    reads = _reads(game)
    keyed = {slot for slot, _, _ in game.memo_keyed}
    out = []
    for name, f in funcs.items():
        fill = getattr(f.compiled, "_rw_fill", None)
        if (not f.asked or f.asked_elsewhere or fill is None or f.slot in keyed
                or getattr(f.compiled, "_rw_rows", True)):
            continue
        ok = len({id(owner) for owner, _, _ in f.asked}) == 1
        for owner, _, passes_all in f.asked:
            if (not passes_all or owner is f or owner.slot in keyed
                    or getattr(owner.compiled, "_rw_rows", True)
                    or reads(owner.name) != reads(name)):
                ok = False
                break
        if ok:
            out.append(f)
    return out
