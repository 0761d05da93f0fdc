"""Where an expression is compiled, and what every part of the expression writer shares.

:class:`Scope` (the locals of a procedure, loop or lambda) and :class:`Cx` (the game being
compiled, the report, the statement context); ``gen_expr`` and the table of which function
writes which kind of node (``HANDLERS``: filled by exprs.py, which imports every writer);
statements written for parts of an expression (``nested``, ``in_block``); a zone as text
(``_ZoneText``, ``contents_of``); constants bound by name (``_value``).  The writers
themselves: names.py (literals, names, indexing, attributes), operators.py,
comprehensions.py (and lambdas), calls.py (the standard library and the rulebook's
functions).
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from dsl import ast
from dsl.diagnostics import Pos, Report, RuleRuntimeError

from . import types as T
from ..run.stdlib import BUILTINS
from .codegen import _as_rule_error, is_generated, with_outer
from ..run.values import Zone


# codes of the diagnostics raised here (documented in docs/diagnostics.md)
E_NAME = "RW101"
E_TYPE = "RW102"
E_ARITY = "RW103"
E_STATIC = "RW104"
E_LAMBDA = "RW105"


class Scope:
    """The local names of one procedure; each name is a slot of the frame."""

    def __init__(self, names=()):
        self.blocks: list[dict] = [{}]
        self.names: list[str] = []
        #: slot -> (lo, hi) for loop variables known to range over whole numbers
        self.ranges: dict = {}
        #: slot -> the Python local that holds it in generated code (comprehension and lambda variables)
        self.py: dict = {}
        for name, typ in names:
            self.declare(name, typ)

    def known_ranges(self) -> dict:
        """Visible names whose values lie in a known range (for the checks)."""
        out = {}
        for block in self.blocks:
            for name, (slot, _) in block.items():
                if slot in self.ranges:
                    out[name] = self.ranges[slot]
                else:
                    out.pop(name, None)
        return out

    @property
    def nslots(self) -> int:
        return len(self.names)

    def declare(self, name: str, typ: T.Type) -> int:
        slot = len(self.names)
        self.names.append(name)
        self.blocks[-1][name] = [slot, typ]
        return slot

    def lookup(self, name: str):
        for block in reversed(self.blocks):
            if name in block:
                return block[name]
        return None

    def all_names(self):
        for block in self.blocks:
            yield from block

    def push(self) -> None:
        self.blocks.append({})

    def pop(self) -> None:
        self.blocks.pop()


@dataclass
class Cx:
    """Where an expression is compiled."""

    game: object  # model.GameDef (being filled)
    report: Report
    scope: Scope | None = None
    #: static: evaluated when a game is laid out (no zones or variables yet)
    static: bool = False
    #: type of `event` in trigger bodies
    notes: dict = field(default_factory=dict)
    compiler: object = None
    #: the generated function being written (codegen.Gen), set by compile_expr
    gen: object = None
    #: statement context: where statements that compute parts of the expression go, before
    #: the line that uses it (None: the expression must stay one Python expression)
    stmts: list | None = None
    #: how deeply those statements already nest (see MAX_DEPTH)
    depth: int = 0

    def error(self, pos: Pos, message: str, code: str = E_TYPE):
        self.report.error(pos, message, code)
        return "None", T.ANY


def guard(fn, pos: Pos, what: str):
    """``fn`` with a failure anywhere in it reported as a rule error at ``pos``
    ("``what``: …").  A generated function gets the guard without a wrapper."""
    if is_generated(fn):
        return with_outer(fn, pos, what)

    def guarded(st, L):
        try:
            return fn(st, L)
        except RuleRuntimeError:
            raise
        except Exception as exc:  # noqa: BLE001 - every other failure is a rule error too
            raise _as_rule_error(exc, pos, what) from None

    return guarded


def suggest(name: str, candidates) -> str:
    hits = difflib.get_close_matches(str(name), [c for c in candidates if isinstance(c, str)], n=1, cutoff=0.7)
    return f"; did you mean '{hits[0]}'?" if hits else ""


def known_names(cx: Cx):
    g = cx.game
    names = set(BUILTINS) | {"players", "num_players", "num_seats", "option", "variant", "box"}
    for table in (g.variables, g.constants, g.enums, g.symbol_enum, g.zones, g.kinds, g.tables, g.functions):
        names |= set(table)
    if cx.scope:
        names |= set(cx.scope.all_names())
    return names


#: how deeply the statements written for parts of an expression may nest (Python compiles at
#: most 20 nested blocks; steps and functions add their own): deeper parts stay expressions
MAX_DEPTH = 6


def nested(cx: Cx):
    """A statement list for a block inside the current statements, or None (expression
    mode) when there is no statement context or it would nest too deeply."""
    return [] if cx.stmts is not None and cx.depth < MAX_DEPTH else None


def in_block(cx: Cx, stmts, fn, *args):
    """``fn(*args, cx)`` with statements going to ``stmts`` (a nested block, or None for
    expression mode)."""
    saved = cx.stmts, cx.depth
    cx.stmts, cx.depth = stmts, cx.depth + 1
    try:
        return fn(*args, cx)
    finally:
        cx.stmts, cx.depth = saved


def indented(lines) -> list:
    return ["    " + line for line in lines]


#: which function writes each kind of expression node: filled by exprs.py, which imports every
#: writer (names, operators, comprehensions, calls) — they call gen_expr for their parts, so
#: this module cannot import them
HANDLERS: dict = {}


def gen_expr(node: ast.Node, cx: Cx):
    """``(source, type)``: the expression as the text of a Python expression."""
    method = HANDLERS.get(type(node))
    if method is None:
        return cx.error(node.pos, f"unsupported expression {type(node).__name__}")
    return method(node, cx)


def gen_cond(node: ast.Node, cx: Cx, what: str = "a condition"):
    src, typ = gen_expr(node, cx)
    if typ != T.BOOL and not T.is_any(typ):
        hint = " (compare it, e.g. 'x > 0')" if T.is_numeric(typ) else ""
        cx.error(node.pos, f"{what} must be true or false, but this is {T.describe(typ)}{hint}")
    return src, T.BOOL


def gen_as_list(node: ast.Node, cx: Cx, what: str = "this"):
    """A list-valued expression; a zone stands for its contents."""
    src, typ = gen_expr(node, cx)
    return src_as_list(src, typ, node.pos, cx, what)


class _ZoneText(str):
    """The text of a zone of a family (``st.zf[family][key]``) that also knows the family,
    key and the key's parts: where only the zone's contents are needed, they are read
    through its id (``st.z[st.zi[family][key]]``), one lookup fewer — with a key of plain
    parts through the nested ids (``st.z[st.zn[family][a][b]]``): no tuple built and hashed."""

    def __new__(cls, text, fid: int, key: str, pos, custom, parts=()):
        self = super().__new__(cls, text)
        self.fid, self.key, self.pos, self.custom, self.parts = fid, key, pos, custom, parts
        return self


def contents_of(src, cx: Cx) -> str:
    """The contents (a list) of the zone ``src`` stands for."""
    if isinstance(src, _ZoneText):
        custom = src.custom
        if len(src.parts) > 1 and all(_PLAIN_ARG.match(p) for p in src.parts):
            zid = f"st.zn[{src.fid}]" + "".join(f"[{p}]" for p in src.parts)
            if custom is not None:
                custom = _whole_key(custom, src.parts)
        else:
            zid = f"st.zi[{src.fid}][{src.key}]"
        return f"st.z[{cx.gen.guard(zid, src.pos, 'zone', custom) if custom is not None else zid}]"
    return f"st.z[{src}.id]"


def _whole_key(custom, parts: list):
    """``custom`` (a guard's converter of a missing key) for a nested read
    (``st.zn[family][a][b]``), whose KeyError names one part only: it is given the
    whole key, the parts' values read again from the frame the read failed in (plain
    parts: a local, a slot, a variable, a number — nothing that runs)."""
    def convert(exc):
        if isinstance(exc, KeyError):
            tb = exc.__traceback__
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            if tb is not None:
                try:
                    key = tuple(_plain_value(tb.tb_frame, p) for p in parts)
                except Exception:           # noqa: BLE001 - not found: the part the error names
                    key = None
                if key is not None:
                    return custom(KeyError(key))
        return custom(exc)
    return convert


_LITERALS = {"None": None, "True": True, "False": False}


def _plain_value(frame, text: str):
    """The value of the plain argument ``text`` (_PLAIN_ARG) in ``frame``."""
    frame_locals = frame.f_locals
    if text[0] == "\x05":                   # a local slot: a Python local or the frame's list
        slot = int(text[1:-1])
        return frame_locals[f"_l{slot}"] if f"_l{slot}" in frame_locals else frame_locals["L"][slot]
    if text.startswith("L["):
        return frame_locals["L"][int(text[2:-1])]
    if text.startswith("st.v["):
        return frame_locals["st"].v[int(text[5:-1])]
    if text.lstrip("(-")[:1].isdigit():
        return int(text.strip("()"))
    if text in _LITERALS:
        return _LITERALS[text]
    return frame_locals[text] if text in frame_locals else frame.f_globals[text]


def src_as_list(src, typ, pos, cx: Cx, what="this"):
    if isinstance(typ, T.ZoneT):
        return contents_of(src, cx), T.ListT(T.elem_of(typ))
    if isinstance(typ, T.MapT):
        return f"tuple({src})", T.ListT(typ.key)
    if not T.is_listlike(typ):
        cx.error(pos, f"{what} must be a list or a zone, but this is {T.describe(typ)}")
        return src, T.ListT(T.ANY)
    if T.is_any(typ):
        return f"{cx.gen.bind(_dyn_list, 'dyn')}(st, {src})", T.ListT(T.ANY)
    return src, typ


def _dyn_list(st, v):
    return st.z[v.id] if isinstance(v, Zone) else v


def _use(cx: Cx, name: str) -> None:
    """Count a use of a global name (for the unused-definition check)."""
    uses = getattr(cx.game, "uses", None)
    if uses is not None:
        uses[name] = uses.get(name, 0) + 1
        if name in cx.game.symbol_enum:
            enum = cx.game.symbol_enum[name]
            uses[enum] = uses.get(enum, 0) + 1


def _dynamic_zone(cx: Cx, typ) -> None:
    """This value may be a zone the expression does not name (a variable's): whatever
    reads it may read any zone (dependencies.py)."""
    if T.may_hold_zone(typ) and hasattr(cx.game, "dynamic_reads"):
        cx.game.dynamic_reads += 1


def _value(cx: Cx, v) -> str:
    """A constant value in generated code: small numbers as text, the rest bound by name."""
    if v is None or v is True or v is False:
        return repr(v)
    if type(v) is int and -10**9 < v < 10**9:
        return f"({v})"
    return cx.gen.bind(v, "c")


#: an argument that costs nothing to evaluate twice and cannot fail: a local, a slot, a variable, a number
_PLAIN_ARG = re.compile(r"(?:[A-Za-z_]\w*|L\[\d+\]|\x05\d+\x06|st\.v\[\d+\]|-?\d+|\(-?\d+\))\Z")


def _plain(part: str, cx: Cx) -> str:
    """``part``, or (statement context) a new local holding its value: a plain argument."""
    if _PLAIN_ARG.match(part):
        return part
    t = cx.gen.temp()
    cx.stmts.append(f"{t} = {part}")
    return t
