"""The compiled form of a rulebook: declarations that hold Python callables.

A :class:`GameDef` is made once per rulebook by :mod:`interpreter.compiler`
and never changes.  Everything that depends on the number of players or on
options (zone families, component counts, variable layout) is computed per
game into a :class:`Layout` by :mod:`interpreter.layout`.

Compiled expressions are functions ``f(state, locals) -> value``; compiled
step lists are :class:`Procedure` objects whose ``ops`` are instructions as
Python text, written out as functions by :mod:`interpreter.flowcode` and run
by :mod:`interpreter.runtime`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from dsl.diagnostics import Pos

from .types import Type


_NOT_FOUND = object()


@dataclass
class Procedure:
    name: str
    pos: Pos
    code: list = field(default_factory=list)
    nslots: int = 0
    slot_names: list = field(default_factory=list)
    #: (name, slot, type) of the parameters, bound when the procedure is entered
    params: list = field(default_factory=list)
    #: label name -> Label (phases where a scenario may start)
    labels: dict = field(default_factory=dict)
    #: kind of frame: "flow", "action", "procedure", "trigger", "setup", "scoring"
    kind: str = "procedure"
    #: instruction index -> source position (for located run-time errors)
    positions: list = field(default_factory=list)
    #: for each move, draw or shuffle step: the component kinds it may move (None: unknown)
    moved_kinds: list = field(default_factory=list)
    #: for each decide step taken in a turn of these steps: the pc after it -> a holder whose
    #: "end" is one past the turn's last instruction (an action's `end_turn` goes there)
    turn_exits: dict = field(default_factory=dict)
    #: the structure of the steps (interpreter/flowcode.py: leaves, branches, loops, scopes)
    tree: list = field(default_factory=list)
    #: what the run loop calls at each pc: generated step code from there on
    #: (interpreter/flowcode.py); None: the instructions themselves, one at a time
    entries: list | None = None
    #: the instructions as Python text (flowcode.Ins), one per pc
    ops: list = field(default_factory=list)
    #: the names the text refers to (codegen.Gen), shared by all its generated code
    gen: object = None
    #: what may set off a trigger or a deferred effect in this game (GameDef.live)
    live: frozenset = frozenset()
    #: the procedure as one plain function ``f(st, L)`` when nothing in it can stop
    #: (flowcode.direct_function): None until asked, False when it cannot be one
    direct: object = None

    def pos_at(self, pc: int) -> Pos:
        if 0 <= pc < len(self.positions):
            return self.positions[pc]
        return self.pos


@dataclass
class Label:
    """A place in a procedure where play may start (a scenario's ``start.at``)."""

    name: str
    pc: int
    #: enclosing loops and scopes, outermost first: LoopInfo / ScopeInfo
    enclosing: list = field(default_factory=list)


@dataclass
class LoopInfo:
    kind: str  # for / repeat / turns / while
    var_slot: int | None = None
    var_global: int | None = None  # scalar variable index when the loop variable is a state variable
    iter_slot: int | None = None
    index_slot: int | None = None
    iterable: Callable | None = None
    extra: dict = field(default_factory=dict)


@dataclass
class ScopeInfo:
    kind: str
    name: str


@dataclass
class EnumDecl:
    name: str
    symbols: tuple
    pos: Pos


@dataclass
class ConstDecl:
    name: str
    type: Type
    pos: Pos
    value: object = None
    #: for computed constants: f(layout_state) evaluated per game
    compute: Callable | None = None


@dataclass
class TableDecl:
    name: str
    key_type: Type
    value_type: Type
    pos: Pos
    #: (lo, hi, value, pos) for numeric keys (hi None: open range)
    ranges: list = field(default_factory=list)
    #: symbol -> value for enum keys
    exact: dict = field(default_factory=dict)

    #: the rows found so far, by key (tables never change)
    found: dict = field(default_factory=dict, repr=False, compare=False)

    def lookup(self, key):
        value = self.found.get(key, _NOT_FOUND)
        if value is not _NOT_FOUND:
            return value
        if key in self.exact:
            value = self.exact[key]
        elif isinstance(key, int) and not isinstance(key, bool):
            for lo, hi, v, _ in self.ranges:
                if key >= lo and (hi is None or key <= hi):
                    value = v
                    break
        if value is _NOT_FOUND:
            raise KeyError(key)
        if len(self.found) < 4096:
            self.found[key] = value
        return value


@dataclass
class KindDecl:
    name: str
    attributes: dict  # name -> Type
    pos: Pos
    items: list = field(default_factory=list)  # compiled ItemSpec
    label: str | None = None
    label_parts: list = field(default_factory=list)
    home: Callable | None = None
    home_pos: Pos | None = None
    home_nslots: int = 1
    #: ``shape:``, a piece's cells as drawn (of its attributes): a move with cells: gives one per part
    shape: Callable | None = None
    shape_pos: Pos | None = None
    shape_nslots: int = 1


@dataclass
class ItemSpec:
    count: Callable  # f(layout_state) -> int
    for_each: list  # [(name, domain f, type)]
    attrs: dict  # attribute -> f(layout_state, locals)
    nslots: int
    pos: Pos


@dataclass
class IndexSpec:
    name: str
    domain: Callable
    type: Type
    slot: int
    pos: Pos


@dataclass
class ZoneFamily:
    name: str
    id: int
    pos: Pos
    index: list  # [IndexSpec]
    ztype: str = "area"
    holds: frozenset = frozenset()
    capacity: Callable | None = None
    visible: Callable | None = None  # f(state, locals[index..., viewer]) -> bool
    visible_const: bool | None = True
    visible_by_viewer: bool = True   # visible names the viewer (else the same for every seat)
    #: the global names ``visible`` reads (None: not known), and whether it may read zones it does
    #: not name; a condition that reads only variables and constants is kept per viewer (tensors.py)
    visible_reads: frozenset | None = None
    visible_reads_any: bool = True
    owner: Callable | None = None
    refill: Callable | None = None
    nslots: int = 0
    viewer_slot: int = 0
    #: the capacity when it is a plain number (for the checks)
    capacity_literal: int | None = None
    #: a grid (`cells:`): f(state, locals[index...]) -> the cells of one zone of the family; its
    #: components are pieces that each cover some of them (State.cover); None: no grid
    cells: Callable | None = None
    cells_pos: Pos | None = None


@dataclass
class VarDecl:
    name: str
    type: Type
    pos: Pos
    init: Callable
    index: list = field(default_factory=list)  # [IndexSpec]
    min: Callable | None = None
    max: Callable | None = None
    visible: Callable | None = None
    visible_const: bool | None = True
    #: as ZoneFamily.visible_reads / visible_reads_any
    visible_reads: frozenset | None = None
    visible_reads_any: bool = True
    nslots: int = 0
    viewer_slot: int = 0
    #: flat index of a scalar variable in State.v
    offset: int = -1
    #: position among variable families (Layout.var_keys)
    family_id: int = -1
    #: `shown: true`: there for players to read (a hint, what they know), so the rules need not read it
    shown: bool = False


@dataclass
class FuncDecl:
    name: str
    params: list  # [(name, Type)]
    body: object  # dsl.ast node
    pos: Pos
    compiled: Callable | None = None
    type: Type | None = None
    nslots: int = 0
    compiling: bool = False
    #: where its remembered results are kept: ``State.memo[slot]``
    slot: int = 0
    #: global names the body reads
    reads: set = field(default_factory=set)
    #: the body may read zones it does not name (a zone held by a variable or passed as an
    #: argument, or where a component is: dependencies.STATE_READERS): any move may matter
    reads_any: bool = False
    #: the body reads a zone held by a variable (not only zones it names or is passed)
    reads_dynamic: bool = False
    #: the parsed body when it is small and plain enough to be written out where it is
    #: called (exprs.inlinable), else None
    inline_body: object = None
    #: the parsed body (None until compiled, or when it does not parse)
    tree: object = None
    #: called somewhere other than in the domains and ``where`` of actions' parameters (set
    #: as calls are compiled; one compiled later, say by a view, sets it then): while it is
    #: False, an option enumerator may call it without remembering (probes.plain_calls)
    called_outside_options: bool = False
    #: where its result is asked for in the bodies of functions: (the function whose body
    #: asks, that body's codegen.Gen, are that function's parameters all passed on?)
    asked: list = field(default_factory=list)
    #: its result is asked for somewhere else too (a step, an option, a condition, a view)
    asked_elsewhere: bool = False
    #: False: the bodies that ask for its result call a variant that remembers nothing
    #: (dependencies.not_remembered)
    remembered: bool = True


@dataclass
class ParamSpec:
    name: str
    domain: Callable
    type: Type
    slot: int
    pos: Pos
    #: the domain as written (an expression or a YAML list), for interpreter/spaces.py
    source: object = None
    #: the domain's parsed expression (None for a YAML list)
    tree: object = None
    #: the domain as Python text in the action's generated code (codegen.option_function),
    #: after the statements ``pre`` that compute parts of it
    text: str = "()"
    pre: list = field(default_factory=list)
    #: a set-valued parameter (``{set: ..., size: ...}``, interpreter/engine/run/choices.py): its
    #: sizes ``(lo, hi)``; ``source`` and ``tree`` are then the list chosen from
    choose: tuple | None = None
    #: the part of the domain that does not depend on the parameters just before it, made once
    #: for all their values (Compiler.hoist_domain): ``(level, slot, text, pre)`` — computed on
    #: first use inside the loop of the parameter at ``level`` into local ``slot``; the option
    #: enumerator then runs ``rest`` = ``(text, pre)`` over it instead of ``text``; None: not split
    hoist: tuple | None = None
    rest: tuple | None = None


@dataclass
class ActionDecl:
    name: str
    pos: Pos
    params: list  # [ParamSpec]
    where: Callable | None
    proc: Procedure
    player_slot: int = 0
    #: inline actions see the locals of the procedure that offers them:
    #: the first ``inherit`` slots are copied from that frame
    inherit: int = 0
    #: parameter -> (expression text, position): every value it can ever take (`bounds:`)
    bounds: dict = field(default_factory=dict)
    #: `secret: true`: other seats learn only the action's name, never its parameters
    secret: bool = False
    #: a parameter is a set (ParamSpec.choose): option_id writes its part in braces
    has_sets: bool = False
    #: the parameters other seats are not told (`secret: [names]`, all for `secret: true`, or the default:
    #: a component moved into a zone not everyone sees, unless chosen from a zone everyone sees)
    secret_params: frozenset = frozenset()
    #: where the action's `where:` condition is written (None: no condition)
    where_pos: Pos | None = None
    #: the condition as Python text in the action's generated code
    where_text: str | None = None
    #: positions of the `end_turn` steps of the action's own steps
    ends_turn: list = field(default_factory=list)
    #: generated code that lists the legal options (codegen.option_function; made when first needed)
    enumerate: Callable | None = None
    #: ``find(st, who, PL, key)``: the option with the id parts ``key`` (``find.key(values)``), or None
    #: (codegen.option_finder; made when first needed: a replay that knows the decision to come)
    find: Callable | None = None
    #: ``make(who, values, PL)``: a new frame's locals (codegen.locals_maker; made when first needed)
    make_locals: Callable | None = None
    #: ``take(st, who, values, PL)``: what taking an option starts (codegen.option_taker; made when first needed)
    take: Callable | None = None
    #: no two combinations of parameter values can write the same action id (every value is
    #: its own id part, every domain is without repeats, no other action has this name):
    #: the options need no check for repeats (Compiler.mark_distinct_options)
    distinct_options: bool = False
    #: the ids written so far, by the parameter values, for an action whose values key their ids
    #: (codegen.id_kept_by_value: numbers, seats, booleans, symbols, components); None for the
    #: others (frames.option_id)
    ids: dict | None = None


@dataclass
class TriggerDecl:
    name: str
    pos: Pos
    event: str | None
    when: Callable | None
    at: str | None
    proc: Procedure
    event_slot: int = 0
    #: global names the condition reads
    reads: set = field(default_factory=set)
    #: whether the condition may read more than the names in ``reads`` say: a zone it does not
    #: name, or the seat or event of the frame that runs when it is looked at (dependencies.py)
    reads_more: bool = True


@dataclass
class OptionDecl:
    name: str
    default: object
    allowed: object
    pos: Pos


@dataclass
class GameDef:
    name: str
    root: str
    min_players: int
    max_players: int
    enums: dict = field(default_factory=dict)
    symbol_enum: dict = field(default_factory=dict)
    constants: dict = field(default_factory=dict)
    tables: dict = field(default_factory=dict)
    kinds: dict = field(default_factory=dict)
    zones: dict = field(default_factory=dict)  # name -> ZoneFamily
    zone_list: list = field(default_factory=list)
    variables: dict = field(default_factory=dict)
    scalar_vars: list = field(default_factory=list)
    family_vars: list = field(default_factory=list)
    functions: dict = field(default_factory=dict)
    actions: dict = field(default_factory=dict)
    procedures: dict = field(default_factory=dict)
    triggers: list = field(default_factory=list)
    event_triggers: dict = field(default_factory=dict)  # event -> [TriggerDecl]
    #: a trigger listens for ``moved`` (State.move and draw look at this first)
    on_moved: bool = False
    condition_triggers: list = field(default_factory=list)
    #: some zone family is a grid (`cells:`): moves look at State.lay.grids
    grids: bool = False
    options: dict = field(default_factory=dict)
    variants: dict = field(default_factory=dict)
    automata: Callable | None = None
    automaton_names: list = field(default_factory=list)
    setup: Procedure | None = None
    flow: Procedure | None = None
    scoring: Procedure | None = None
    score: Callable | None = None
    rank_by: list = field(default_factory=list)
    #: "higher" or "lower": which scores (and ranking keys) are better (`end: better:`)
    score_direction: str = "higher"
    #: the rulebook's bound on the decisions of a game (`game: max_decisions:`), f(state, [None]), and where
    max_decisions: Callable | None = None
    max_decisions_pos: object = None
    #: the named parts of the score (`end: parts:`), [(name, f(state, [p]))], for reports
    score_parts: list = field(default_factory=list)
    #: the name of what the score holds beyond its parts (`end: rest:`), or None
    score_rest: str | None = None
    invariants: list = field(default_factory=list)  # [(name, f, pos)]: checked after every decision
    #: number variable name -> (low or None, high or None) that `when: always` invariants keep it within
    #: (engine/compile/bounds.py): the observation tensors' bounds where the variable declares no min/max
    invariant_bounds: dict = field(default_factory=dict)
    #: invariants with `when: turn_end` (round_end, phase_end): scope kind -> [(name, f, pos)],
    #: checked by State.scope_end as such a scope ends (broken ones in State.broken)
    scope_invariants: dict = field(default_factory=dict)
    #: a cooperative game (`end: together:`): f(state, [None]) -> did the seats win (together)?
    together: Callable | None = None
    #: set by Rulebook: f(layout, seed, logging, chance) -> a new game at its first decision
    #: (engine/run/start.py start_game); resample replays games with it (engine/knowledge/)
    replay_start: Callable | None = None
    #: set by Rulebook: the Rulebook this game belongs to (a State pickles by it: engine/run/persist.py)
    rulebook: object = None
    #: every procedure by its unique name, for serialisation
    all_procs: dict = field(default_factory=dict)
    #: score-expression slot for "p"
    score_nslots: int = 1
    source_files: list = field(default_factory=list)
    inline_actions: dict = field(default_factory=dict)
    action_by_proc: dict = field(default_factory=dict)
    #: global name -> number of references in expressions and steps (for checks)
    uses: dict = field(default_factory=dict)
    #: reads of zones an expression does not name (a zone held by a variable), counted like
    #: ``uses`` (dependencies.py)
    dynamic_reads: int = 0
    #: zone family or variable name -> the slots (``FuncDecl.slot``) of the functions whose
    #: remembered results a change of it makes stale (dependencies.plan); None: every change
    #: forgets every result
    memo_drop: dict | None = None
    #: the functions whose results depend on the zones passed to them, and on no other
    #: zone they do not name: ``(slot, positions of the zone parameters, number of parameters)``;
    #: a move forgets only their results for the zones it changed (dependencies.py)
    memo_keyed: tuple = ()
    #: the zone families (and ``box``) and variables whose change may change a condition
    #: trigger's condition (dependencies.plan_conditions); None: any change may
    condition_reads: frozenset | None = None
    #: variable name -> a one-element list, whether a change of it looks at the condition
    #: triggers: what the generated step code reads (set by dependencies.plan_conditions)
    condition_flags: dict = field(default_factory=dict)
    #: how many functions there are: the length of ``State.memo``
    memo_size: int = 0
    #: the words the rulebook's log texts hold as written (outside their {expressions}),
    #: which name no component however they read (engine/knowledge/leaks.py)
    log_words: set = field(default_factory=set)
    #: the component attributes `tell` steps tell facts about (for the information-state tensor)
    tell_attrs: set = field(default_factory=set)
    #: (table name, key expression node, {local: (lo, hi)}) for every table lookup
    table_lookups: list = field(default_factory=list)
    #: ranges whose bounds a layout fixes, f(layout state, [None]) each: made once per layout
    #: (Layout.ranges), read by the generated code as ``st.lay.ranges[i]``; a tuple once the
    #: rulebook is compiled (an expression compiled later makes its ranges itself)
    layout_ranges: list = field(default_factory=list)
    #: the rulebook's `display:` hints as written (read by interpreter/view; no rule depends on them)
    display: dict = field(default_factory=dict)
    #: the pictures `display:` names that may be shown: path as written -> the file inside the
    #: rulebook folder (checked when compiled: engine/display/display.py check_images)
    images: dict = field(default_factory=dict)
    #: action name -> (parameter names, the secret ones): what another seat is not told of a decision
    #: (`secret:` on an action, its default, `display: secret`); see runtime.public_action_id
    redact: dict = field(default_factory=dict)
    #: action name -> its secret parameters (``redact``) whose values an action keeps in a
    #: variable some seat may not see: ``resample`` chooses them anew (engine/knowledge/)
    secret_kept: dict = field(default_factory=dict)
    #: a coverage recorder (interpreter/coverage.py) when the rulebook was loaded to measure its
    #: scenarios, else None: only then are instructions and lookups compiled to record what runs
    coverage: object = None
    #: a `shuffle` or `random` step exists (with bags and refilled decks: the game draws at random)
    random_steps: bool = False
    #: a `decide` step is `simultaneous:` (seats choose without seeing each other's choice)
    simultaneous: bool = False
    #: built-in component attributes (``kind``) a rulebook declared as its own (an error, reported
    #: once): reading them is then not type-checked further, so the one error does not cascade
    shadowed_attrs: frozenset = frozenset()
    #: the actions offered by a decision taken together (`together:`): another seat is told
    #: such a decision as ``…`` (neither the action nor its parameters; runtime.public_action_id)
    sealed: frozenset = frozenset()
    #: a `decide` step is not taken together (a decision of one seat): with ``sealed``, the
    #: game mixes both kinds (the adapters play it turn by turn, not as joint actions)
    single_decides: bool = False
    #: what may start a frame while steps run: the events some trigger listens for, and
    #: flowcode.CHANGED (a condition trigger exists), flowcode.DEFERRED (something is deferred)
    live: frozenset = frozenset()
    #: the scopes anything is deferred to, as written (`defer: … until:`, a trigger's `at:`: a scope's
    #: kind or name, State.defer); None: any scope may be (a target that is not a plain name)
    defer_targets: frozenset | None = frozenset()

    def deferred_to(self, kind: str, name: str) -> bool:
        """May something be deferred to the end of the scope ``kind`` named ``name``?"""
        targets = self.defer_targets
        return targets is None or kind in targets or name in targets
