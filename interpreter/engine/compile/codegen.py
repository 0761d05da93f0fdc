"""Generated Python code for expressions, with every error located at the rulebook.

``interpreter/exprs.py`` turns an expression tree into the source text of one
Python expression; :class:`Gen` collects what that text refers to (bound
objects: tables, standard-library functions, constants) and the *guarded
spans*: the parts of the text whose failure is a rule error at a known
rulebook position (a division, a lookup, a call).  :meth:`Gen.function`
compiles the text once, with ``compile()``, into ``f(state, locals)``.

Nothing is wrapped at run time: a guarded span is only a record of columns.
When the code raises, :func:`_fail` finds the instruction that failed (from
the traceback and the code's column table, ``co_positions``), takes the
innermost guarded span around it and raises a ``RuleRuntimeError`` at that
span's rulebook position — the line map from generated code back to the
rulebook.  The source text holds no user data (every value is bound by
name), so it is plain ASCII and columns are characters.
"""
from __future__ import annotations

import re
import types
import warnings
from functools import partial

from dsl.diagnostics import Pos, RuleRuntimeError

from . import types as T
from .probes import assigns, hoist_outer, hoist_probes, listing_calls, loop_made, share_probes
from .statereads import bind_state_reads
from ..run.limits import LimitError
from ..run.values import format_value

#: the diagnostic code of a rule that asks for more work than the limits allow
LIMIT_CODE = "RW910"

_START, _MID, _END = "\x01", "\x02", "\x03"
_LINE = "\x04"           # a guard from here to the end of the line: "\x04<gid>\x02"
_LOCAL, _LOCAL_END = "\x05", "\x06"      # a local slot: "\x05<slot>\x06" (see local())


def local(slot: int) -> str:
    """Local ``slot`` of the running procedure in generated text: ``L[slot]`` in the frame's
    list of locals, or a Python local ``_l<slot>`` in a procedure written as one plain
    function (flowcode.direct_function); which one is decided when the text is compiled."""
    return f"{_LOCAL}{int(slot)}{_LOCAL_END}"


def in_frame(slot: int) -> str:
    return f"L[{slot}]"


def python_local(slot: int) -> str:
    return f"_l{slot}"
_PREFIX = "        return "      # the generated line's indentation: columns count from here
_MEMO_PREFIX = "        _memo[_key] = _v = "
#: what a remembered-result lookup gives when there is none
MISSING = _MISSING = object()
_counter = [0]


def memo_path(args: list) -> tuple:
    """How a rulebook function's results are kept under its arguments (the texts ``args``):
    ``(outer, key)``, a dictionary per value of each of ``outer`` (nested, in order), in
    which the result is kept under the text ``key`` (the one argument, a tuple of them, or
    None).  Two arguments: the first one outside, the second the key — a tuple's hash and
    equality test cost more than a second lookup by a small int or a string.  Three or
    more stay a tuple: their results are mostly asked once each after a change (every
    new first value would cost a dictionary)."""
    if len(args) == 2:
        return [args[0]], args[1]
    return [], "None" if not args else args[0] if len(args) == 1 else f"({', '.join(args)},)"


class Gen:
    """The source of one generated function being built."""

    __slots__ = ("ns", "names", "guards", "temps", "owner")

    def __init__(self, owner=None):
        self.ns: dict = {}
        self.names: dict = {}     # id(obj) -> bound name
        self.guards: list = []    # guard id -> (pos, what, custom)
        self.temps = 0
        #: the rulebook function (model.FuncDecl) whose body this is, or None
        self.owner = owner

    def temp(self) -> str:
        """A new local name for a part of an expression written as statements."""
        self.temps += 1
        return f"_q{self.temps}"

    def bind(self, obj, hint: str = "k") -> str:
        """A name in the generated code that stands for ``obj``."""
        key = id(obj)
        name = self.names.get(key)
        if name is None or self.ns.get(name) is not obj:
            name = f"_{hint}{len(self.ns)}"
            self.ns[name] = obj
            self.names[key] = name
        return name

    def guard(self, inner: str, pos: Pos, what: str, custom=None) -> str:
        """``inner`` (one Python expression node) as a guarded span: a failure in
        it is a rule error at ``pos`` ("``what``: …"), or what ``custom(exc)``
        makes of it (``None``: not its business, ask the enclosing span)."""
        gid = len(self.guards)
        self.guards.append((pos, what, custom))
        return f"({_START}{gid}{_MID}{inner}{_END})"

    def line_guard(self, pos: Pos, what: str) -> str:
        """A mark to put before a statement: a failure on its line that no span inside
        it claims is a rule error at ``pos`` ("``what``: …")."""
        gid = len(self.guards)
        self.guards.append((pos, what, None))
        return f"{_LINE}{gid}{_MID}"

    def function(self, src: str, pos: Pos, outer=None, pre=()):
        """Compile ``src`` into ``f(state, locals)``; ``outer`` = (pos, what) guards the whole;
        ``pre``: statements that compute parts of ``src`` first (exprs: statement context)."""
        return self._compile("def _rw_expr(st, L):\n    try:\n", _PREFIX, src, pos, outer, pre=pre)

    def params_function(self, src: str, pos: Pos, params: list, pre=()):
        """Compile ``src`` into ``f(state, *params)`` that remembers nothing (a helper of a
        rulebook function's own, rowfill.bucket_lines)."""
        args = "".join(", " + p for p in params)
        return self._compile(f"def _rw_expr(st{args}):\n    try:\n", _PREFIX, src, pos, None, pre=pre)

    def memo_function(self, src: str, pos: Pos, slot: int, params: list, pre=(), row=()):
        """Compile ``src`` into ``f(state, *params)``, a rulebook function whose
        results are remembered in ``state.memo[slot]`` (a dictionary, or None
        when nothing is remembered) under the arguments (one alone as itself,
        none as None, two as a dictionary per value of the first: ``memo_path``,
        several as a tuple) until something it reads changes (interpreter/dependencies.py)."""
        self.ns["_rw_missing"] = _MISSING
        args = "".join(", " + p for p in params)
        outer, key = memo_path(params)
        slot = int(slot)
        head = (f"def _rw_expr(st{args}):\n"
                f"    _memo = st.memo[{slot}]\n"
                "    if _memo is None:\n"
                f"        _memo = st.memo[{slot}] = {{}}\n")
        for p in outer:             # two arguments: a dictionary per value of the first
            head += (f"    _m = _memo.get({p})\n"
                     "    if _m is None:\n"
                     f"        _m = _memo[{p}] = {{}}\n"
                     "    _memo = _m\n")
        head += f"    _key = {key}\n"
        look = ("    _v = _memo.get(_key, _rw_missing)\n"
                "    if _v is not _rw_missing:\n"
                "        return _v\n")
        filled = [*row, *pre]
        fn = self._compile(head + look + "    try:\n", _MEMO_PREFIX, src, pos, None, "        return _v\n", filled)
        # what a caller that has just looked the result up and found none calls (exprs._memo_probe)
        fn._rw_fill = self._compile(head + "    try:\n", _MEMO_PREFIX, src, pos, None, "        return _v\n", filled)
        # the same without remembering, compiled when an option enumerator first asks for it
        # (probes.plain_calls: a result that only the enumerator's own loops ever ask for)
        fn._rw_fill._rw_plain = partial(self._compile, f"def _rw_expr(st{args}):\n    try:\n", _PREFIX, src,
                                        pos, None, pre=pre)
        fn._rw_rows = bool(row)     # a miss fills results of other arguments too (rowfill.py)
        return fn

    def _compile(self, head, prefix, src, pos, outer, after="", pre=()):
        _counter[0] += 1
        filename = f"<rulebook {pos.file}:{pos.line}:{pos.col} #{_counter[0]}>"
        if pre:
            binds, pre = bind_state_reads(hoist_outer(hoist_probes(share_probes(pre))))
            pre = binds + pre
        body = "".join(f"        {line}\n" for line in pre) + prefix + src
        text, spans = strip(body, self.guards, head.count("\n") + 1, 0)
        doc = text if pre else text[len(prefix):]       # the expression (and its statements)
        code = (head +
                f"{text}\n"
                + after +
                "    except _rw_RuleRuntimeError:\n"
                "        raise\n"
                "    except Exception as _e:\n"
                "        raise _rw_fail(_e) from None\n")
        info = Info(filename, spans)
        ns = dict(self.ns)
        ns["__builtins__"] = BUILTINS
        ns["_rw_RuleRuntimeError"] = RuleRuntimeError
        ns["_rw_fail"] = partial(_fail, info, outer)
        with warnings.catch_warnings():
            # a rulebook with errors (already reported) may give text such as None[1]
            warnings.simplefilter("ignore", SyntaxWarning)
            exec(compile(code, filename, "exec"), ns)  # noqa: S102 - our own generated text, no user data
        fn = ns["_rw_expr"]
        fn._rw_info = info
        fn.__doc__ = doc
        return fn


class LazyExpr:
    """An expression written as text for a larger generated function (a step run, an
    option enumerator), compiled into ``f(st, L)`` of its own only when something calls it
    alone (a scenario starting inside a loop, the coverage recorder, a tool)."""

    __slots__ = ("gen", "text", "pos", "pre", "fn")

    def __init__(self, gen: Gen, text: str, pos: Pos, pre=()):
        self.gen, self.text, self.pos, self.pre, self.fn = gen, text, pos, tuple(pre), None

    def __call__(self, st, L):
        if self.fn is None:
            self.fn = self.gen.function(self.text, self.pos, pre=self.pre)
        return self.fn(st, L)


def _locals_cells(action) -> list:
    """The text of each local of a new frame of ``action``, by slot (locals_maker)."""
    by_slot = {int(spec.slot): k for k, spec in enumerate(action.params)}
    cells = []
    for i in range(int(action.proc.nslots)):
        if i in by_slot:                  # (a parameter's value over the seat, the seat over what is inherited)
            cells.append(f"v[{by_slot[i]}]")
        elif i == action.player_slot:
            cells.append("who")
        elif i < action.inherit:
            cells.append(f"PL[{i}]")
        else:
            cells.append("None")
    return cells


def locals_maker(action):
    """``make(who, values, PL)``: the locals of a new frame of ``action`` — the first
    ``action.inherit`` from ``PL`` (the locals of the frame that decided; None when it
    inherits nothing), the deciding seat at ``action.player_slot``, the chosen values at their
    parameters' slots, None elsewhere — as one list display, instead of a list of Nones
    written slot by slot at every decision.  Made once per action."""
    code = compile(f"def make(who, v, PL):\n    return [{', '.join(_locals_cells(action))}]\n",
                   f"<locals of action {action.name}>", "exec")
    ns = {"__builtins__": {}}
    exec(code, ns)
    return ns["make"]


def option_taker(action, direct):
    """``take(st, who, values, PL)``, what taking an option of ``action`` starts (runtime.run):
    with ``direct`` (the action's procedure as a function that runs it to its end:
    flowcode.direct_function), that call, given the new locals as its arguments, and None;
    else the new frame's locals (as ``locals_maker``'s).  Made once per action."""
    cells = ", ".join(_locals_cells(action))
    if direct:
        text = f"def take(st, who, v, PL):\n    _direct(st, {cells})\n"
    else:
        text = f"def take(st, who, v, PL):\n    return [{cells}]\n"
    code = compile(text, f"<taking action {action.name}>", "exec")
    ns = {"__builtins__": {}, "_direct": direct}
    exec(code, ns)
    return ns["take"]


def option_finder(action, id_part):
    """``find(st, who, PL, key)``: the first option ``(action, values)`` of ``action`` for seat
    ``who`` whose id parts (``find.key(values)``, the parts the listing keys its options by)
    are ``key``, or None — the options ``option_function`` would list, in its order, but only
    the one asked for: the same loops with each value whose id part is not the one asked for
    skipped where it is bound, so the later domains are evaluated only under matching values.
    Where the listing would keep that option (an option's id is a function of its id parts;
    the listing keeps the first with each), it is the one found.  What a replay that knows the
    decision to come uses (knowledge/worlds.py): nothing else of the listing is needed there.
    Kept as ``ActionDecl.find`` (:func:`finder`).  A domain or ``where`` that would fail at a
    run-time error under values it skips is not evaluated there."""
    fn = option_function(action, id_part, find=True)
    parts = "".join(f"{_id_part_text(spec.type, f'v[{i}]')}, " for i, spec in enumerate(action.params))
    ns = {"__builtins__": BUILTINS, "_id": id_part}
    exec(compile(f"def key(v):\n    return ({parts})\n", f"<id parts of {action.name}>", "exec"), ns)  # noqa: S102
    fn.key = ns["key"]
    return fn


def finder(action):
    """``action.find`` (:func:`option_finder`), made when first asked for."""
    f = action.find
    if f is None:
        from ..run.frames import id_part
        f = action.find = option_finder(action, id_part)
    return f


def option_function(action, id_part, find=False):
    """``options(st, who, PL, seen, out)``: append to ``out`` a pair ``(action, values)``
    for every legal option of ``action`` for seat ``who`` (``PL``: the locals of the frame
    that decides, whose first ``action.inherit`` an inline action sees): every combination
    of its parameter values (nested loops, each domain evaluated with the values before it
    bound) that passes its ``where`` filter, once per action id (``seen`` holds the
    action's name or ``(name, *id parts)``; not kept for an action whose ids cannot
    repeat: ``ActionDecl.distinct_options``).  The domains and the filter are written in as
    the text the compiler wrote for them (``ParamSpec.text``, ``ActionDecl.where_text``),
    in one function with the action's other generated code; a ``where`` that is no longer
    its own text (the coverage recorder counts it) is called.  With ``find``: the finder of
    :func:`option_finder` instead, ``(st, who, PL, key)``."""
    params = action.params
    gen = action.proc.gen
    ns = dict(gen.ns)
    ns.update({"__builtins__": BUILTINS, "_id": id_part, "_action": action,
               "_name": action.name, "_where": action.where})
    nslots = max(int(action.proc.nslots), 1)
    lines = ["def _rw_options(st, who, PL, _want):" if find else "def _rw_options(st, who, PL, seen, out):"]
    own = action.where is None or isinstance(action.where, LazyExpr)
    if own:         # the action's locals as Python locals (nothing else sees them)
        locals_as = python_local
        lines.append("    " + " = ".join(f"_l{i}" for i in range(nslots)) + " = None")
        if action.inherit:
            lines.append("    " + "".join(f"_l{i}, " for i in range(int(action.inherit)))
                         + f"= PL[:{int(action.inherit)}]")
    else:           # a where the coverage recorder counts is called with the locals as a list
        locals_as = in_frame
        lines.append(f"    L = [None] * {nslots}")
        if action.inherit:
            lines.append(f"    L[:{int(action.inherit)}] = PL[:{int(action.inherit)}]")
    lines.append(f"    {local(action.player_slot)} = who")
    prologue = len(lines)
    indent = "    "
    for i, spec in enumerate(params):
        for later in params[i:]:          # parts of later domains made once per value of these
            if later.hoist is not None and later.hoist[0] == i:
                lines.append(f"{indent}{local(later.hoist[1])} = None")
        if spec.hoist is None:
            text, pre = spec.text, spec.pre
        else:                             # its first part made on first use, the rest over it
            _, hslot, htext, hpre = spec.hoist
            lines.append(f"{indent}if {local(hslot)} is None:")
            lines.extend(indent + "    " + line for line in hpre)
            lines.append(f"{indent}    {local(hslot)} = {htext}")
            text, pre = spec.rest
        fused = _fused_loop(text, pre, i)
        if fused is None:
            lines.extend(indent + line for line in pre)
            lines.append(f"{indent}for _x{i} in {text}:")
            indent += "    "
        else:                             # the domain's own loop lists the options of each element
            loop, inner = fused
            lines.extend(indent + line for line in loop)
            indent += inner
        lines.append(f"{indent}{local(spec.slot)} = _x{i}")
        if find:                          # only the value whose id part is the one asked for
            lines.append(f"{indent}if {_id_part_text(spec.type, f'_x{i}')} != _want[{i}]:")
            lines.append(f"{indent}    continue")
    if action.where is not None:
        if isinstance(action.where, LazyExpr):
            lines.extend(indent + line for line in action.where.pre)
            where = action.where_text
        else:
            where = "_where(st, L)"
        lines.append(f"{indent}if not {where}:")
        lines.append(f"{indent}    {'continue' if params else 'return'}")
    xs = "".join(f"_x{i}, " for i in range(len(params)))
    if find:
        lines.append(f"{indent}return (_action, ({xs}))")
    elif not params:                      # one option, the action's name its id
        lines.append(f"{indent}if _name not in seen:")
        lines.append(f"{indent}    seen.add(_name)")
        lines.append(f"{indent}    out.append((_action, ()))")
    elif action.distinct_options:         # no id can come twice: nothing to check
        lines.append(f"{indent}out.append((_action, ({xs})))")
    else:
        ids = "".join(f"{_id_part_text(spec.type, f'_x{i}')}, " for i, spec in enumerate(params))
        lines.append(f"{indent}key = (_name, {ids})")
        lines.append(f"{indent}if key not in seen:")
        lines.append(f"{indent}    seen.add(key)")
        lines.append(f"{indent}    out.append((_action, ({xs})))")
    lines = hoist_probes(share_probes(lines))
    varying = loop_made(lines) | {local(spec.slot) for spec in params}
    # what the whole listing keeps: the seat and the inherited locals that nothing after the prologue sets
    fixed = frozenset(name for name in {local(action.player_slot), *map(local, range(int(action.inherit)))}
                      if not assigns({name}, lines[prologue:]))
    lines, here = listing_calls(lines, partial(_plain_variant, ns), varying, fixed)
    lines = hoist_outer(lines)
    binds, lines = bind_state_reads(lines)
    lines[1:1] = ["    " + line for line in binds + here]
    if find:
        lines.append("    return None")
    text = "\n".join(lines) + "\n"
    if "st.memo[" in text:      # nothing changes the state while options are listed: its list of results once
        text = text.replace("st.memo[", "_M[").replace("\n", "\n    _M = st.memo\n", 1)
    text, spans = strip(text, gen.guards, locals_as=locals_as)
    _counter[0] += 1
    filename = f"<{'finding an option' if find else 'options'} of {action.name} #{_counter[0]}>"
    ns["_rw_info"] = Info(filename, spans)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        exec(compile(text, filename, "exec"), ns)  # noqa: S102 - our own generated text, no user data
    fn = ns["_rw_options"]
    fn.__doc__ = text
    return fn


def _plain_variant(ns: dict, name: str):
    """The name in ``ns`` of the variant that remembers nothing of the rulebook function whose
    miss-path ``ns[name]`` is (bound into ``ns`` on first use), or None when there is none or
    the function is called anywhere but in options (probes.plain_calls)."""
    fill = ns.get(name)
    decl = getattr(fill, "_rw_decl", None)
    make = getattr(fill, "_rw_plain", None)
    if decl is None or make is None or decl.called_outside_options:
        return None
    if len(decl.params) == 1 and isinstance(decl.params[0][1], T.ZoneT):
        return None                 # a function of one zone: a move forgets it for that zone only
    plain = getattr(fill, "_rw_plain_fn", None)
    if plain is None:
        plain = fill._rw_plain_fn = make()
    ns[f"{name}_plain"] = plain
    return f"{name}_plain"


_GUARDED_NAME = re.compile(r"\(\x01\d+\x02(_q\d+)\x03\)\Z")
_LINE_MARK = r"\x04\d+\x02"


def _fused_loop(text: str, pre: list, i: int):
    """A parameter's domain written as a loop that appends to a list (a comprehension in
    statement context: what its list is made from, ``q = []``, the loop, ``q.append(x)`` its
    last statement, ``q = tuple(q)``) which nothing else reads: ``(the statements with
    `_x<i> = x` in place of the append, the indentation of that line)``, so that the options
    of each element are listed where it would have been appended — the same elements in the
    same order, without the list, its tuple and a second loop over it.  None for any other
    domain."""
    found = _GUARDED_NAME.match(text)
    if found is None or len(pre) < 3:
        return None
    q = found.group(1)
    start = re.compile(_LINE_MARK + re.escape(f"{q} = []"))
    head = next((k for k, line in enumerate(pre) if start.fullmatch(line)), None)
    if head is None or not re.fullmatch(_LINE_MARK + re.escape(f"{q} = tuple({q})"), pre[-1]):
        return None
    append = re.fullmatch(r"( +)(" + _LINE_MARK + ")" + re.escape(f"{q}.append(") + r"(.*)\)", pre[-2])
    loop = [*pre[:head], *pre[head + 1:-2]]
    if append is None or any(re.search(rf"\b{q}\b", line) for line in loop):
        return None
    ws, mark, value = append.groups()
    return [*loop, f"{ws}{mark}_x{i} = {value}"], ws


def _id_part_text(typ, x: str) -> str:
    """Python text for ``frames.id_part(x)`` where ``x`` is of type ``typ``: the value itself
    (id_is_value), a component's label read in place (its id part; none is "none" as in
    id_part), else the call."""
    if id_is_value(typ):
        return x
    if isinstance(typ, T.Comp):
        return f"({x}.label if {x} is not None else _id({x}))"
    return f"_id({x})"


def id_is_value(typ) -> bool:
    """Do two values of ``typ`` have the same id part exactly when they are equal?  Then
    the value itself keys the options (no call to ``id_part``).  Numbers, seats, booleans
    and symbols (the type checker keeps them apart: no ``true`` among numbers; no symbol is
    spelled ``none``, RW120); not strings (``none`` and ``"none"`` write alike) nor
    components (their label is the id)."""
    return typ in (T.INT, T.PLAYER, T.BOOL) or isinstance(typ, T.Sym)


def id_kept_by_value(typ) -> bool:
    """May an option's id be kept with its parameter values as the key (``ActionDecl.ids``)?
    The id must follow from the key: so for the values of ``id_is_value`` and for components
    (hashed and compared by identity; a component never changes, so its label, its id part,
    is the same each time), not for strings and numbers whose equal values write differently
    (``1`` and ``1.0``) nor for lists and sets."""
    return id_is_value(typ) or isinstance(typ, T.Comp)


def with_outer(fn, pos: Pos, what: str):
    """``fn`` (generated) with a guard around the whole expression: the same code,
    another ``_rw_fail``.  No compiling; a new function object shares the code."""
    info = fn._rw_info
    ns = dict(fn.__globals__)
    ns["_rw_fail"] = partial(_fail, info, (pos, what))
    out = types.FunctionType(fn.__code__, ns, fn.__name__)
    out._rw_info = info
    out.__doc__ = fn.__doc__
    return out


def is_generated(fn) -> bool:
    return hasattr(fn, "_rw_info")


class Info:
    """Where the failing parts of one generated function's text are: its file name and
    the spans ``(line, start col, end col, pos, what, custom)``, inner spans after outer ones."""

    __slots__ = ("filename", "spans")

    def __init__(self, filename, spans):
        self.filename = filename
        self.spans = spans

    def locate(self, exc: BaseException, tb):
        """The rule error of the innermost span around the operation ``tb`` (a traceback
        entry of this function's code) failed at, or None when no span holds it."""
        code = tb.tb_frame.f_code
        positions = list(code.co_positions())
        k = tb.tb_lasti // 2
        if not 0 <= k < len(positions):
            return None
        line, _, col, end = positions[k]
        if col is None or end is None:
            return None
        around = [s for s in self.spans if s[0] == line and s[1] <= col and end <= s[2]]
        for _, start, stop, pos, what, custom in sorted(around, key=lambda s: s[2] - s[1]):
            if custom is not None:
                err = custom(exc)
                if err is not None:
                    return err
                continue
            return as_rule_error(exc, pos, what)
        return None


def strip(src: str, guards: list, line: int = 1, col: int = 0, locals_as=in_frame):
    """Remove the span markers from ``src``; return the text and the spans as
    ``(line, start col, end col, pos, what, custom)`` (``src`` starts at ``line``, ``col``;
    lines count from 1, columns from 0).  A local slot's mark becomes ``locals_as(slot)``."""
    out = []
    spans = []
    stack = []
    i = 0
    n = len(src)
    to_end = []         # line guards open until the end of the line
    while i < n:
        ch = src[i]
        if ch == _START:
            j = src.index(_MID, i)
            stack.append((int(src[i + 1:j]), line, col))
            i = j + 1
            continue
        if ch == _LINE:
            j = src.index(_MID, i)
            to_end.append((int(src[i + 1:j]), col))
            i = j + 1
            continue
        if ch == _LOCAL:
            j = src.index(_LOCAL_END, i)
            text = locals_as(int(src[i + 1:j]))
            out.append(text)
            col += len(text)
            i = j + 1
            continue
        if ch == _END:
            gid, sline, start = stack.pop()
            pos, what, custom = guards[gid]
            if sline == line:
                spans.append((line, start, col, pos, what, custom))
            i += 1
            continue
        if ch == "\n":
            for gid, start in to_end:
                pos, what, custom = guards[gid]
                spans.append((line, start, col, pos, what, custom))
            to_end = []
            out.append(ch)
            line += 1
            col = 0
            i += 1
            continue
        j = i
        while j < n and src[j] not in (_START, _END, _LINE, _LOCAL, "\n"):
            j += 1
        out.append(src[i:j])
        col += j - i
        i = j
    for gid, start in to_end:
        pos, what, custom = guards[gid]
        spans.append((line, start, col, pos, what, custom))
    spans.sort(key=lambda s: (s[0], s[1], -s[2]))
    return "".join(out), spans


def _fail(info: Info, outer, exc: BaseException):
    """The rule error for ``exc`` raised in generated code (see the module docstring)."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == info.filename:
            found = tb
        tb = tb.tb_next
    if found is not None:
        err = info.locate(exc, found)
        if err is not None:
            return err
    if outer is not None:
        return as_rule_error(exc, *outer)
    return exc


def as_rule_error(exc, pos, what) -> RuleRuntimeError:
    """What a failure inside a guarded span says (one rule for all of them)."""
    if isinstance(exc, ZeroDivisionError):
        return RuleRuntimeError(f"{what}: division by zero", pos)
    if isinstance(exc, (KeyError, IndexError)):
        key = exc.args[0] if exc.args else "?"
        return RuleRuntimeError(f"{what}: no entry for {format_value(key)}", pos)
    if isinstance(exc, LimitError):
        return RuleRuntimeError(f"{what}: {exc}", pos, LIMIT_CODE)
    if isinstance(exc, MemoryError):
        return RuleRuntimeError(f"{what}: out of memory: the rules build something far too large",
                                pos, LIMIT_CODE)
    return RuleRuntimeError(f"{what}: {exc}", pos)


_as_rule_error = as_rule_error


#: the Python builtins generated code may use (and nothing else: no open, no import)
BUILTINS = {"tuple": tuple, "len": len, "isinstance": isinstance, "Exception": Exception}
_BUILTINS = BUILTINS
