"""Mutation testing of a rulebook: would its scenarios notice a wrong rule?

``regelwerk mutate RULEBOOK [--sample N] [--seed S] [--jobs J] [--state FILE]``
makes seeded one-point changes ("mutants") of the rulebook's *source text*
and runs each through ``validate`` → the scenarios → a short ``check`` (a few
random games per player count).  A mutant is *killed* by the first stage
that fails (validate: an error or a warning; scenarios: one fails; check: a
game breaks; timeout: it runs too long) and *survives* if all pass.

The kinds of change, each located by the positions the YAML loader keeps
(``dsl/yamlload.py``: every value, and every character of an expression):

======== ==============================================================
int      a whole number ±1 (a YAML number or one inside an expression)
cmp      a comparison changed: < ↔ <=, > ↔ >=, == ↔ !=
arith    ``+`` ↔ ``-``, ``*`` ↔ ``//``, ``+=`` ↔ ``-=`` (written between blanks)
logic    ``and`` ↔ ``or``
not      a ``not`` dropped
minmax   ``min(`` ↔ ``max(``; a ``min:`` key ↔ ``max:`` (a mapping without the other)
bool     ``true`` ↔ ``false`` (a YAML boolean or one in an expression)
range    a range's end that is not a number one more or one less
         (``1..rows`` → ``1..rows - 1``; ``frame..x`` → ``frame + 1..x``)
index    a subscript's index one more or one less (``hand[p]`` → ``hand[p + 1]``)
bound    a ``min: N``/``max: N`` entry dropped
zone     a destination (``to:`` of a step) sent to a sibling: another zone family
         of the same shape (as many indices, kinds it may hold); for an
         unindexed zone also the box, and ``to: box`` to an unindexed zone
delete   a step deleted (written block-style; not a ``log`` step, which never
         changes a game); a list's only step deleted leaves ``[]``
swap     a step swapped with the next one (neither a ``log`` step)
======== ==============================================================

The set of all mutants is enumerated in a fixed order; ``--sample N``
takes N of them with ``random.Random(seed)``, so a run is reproducible.
``--state FILE`` records each finished mutant (JSON lines) and skips the
ones already there, so an interrupted run goes on where it stopped; a record
counts only for the same rulebook and scenarios (a hash of their files, the
``# mutate:`` and ``# coverage:`` marks left out).

A mutant the author judges *equivalent* (it cannot change any game) is
marked in the rulebook with a comment on the line where it is located::

    - if: "count(hand) >= 1"   # mutate: equivalent the hand is never empty here

Every mutant on that line is then counted as equivalent and not run;
``# mutate: equivalent(swap) …``, ``equivalent(75, 79) …`` or ``equivalent(0..7) …``
marks only the mutants of those kinds, at those columns, or writing that text;
``31:16=0`` is only the mutant that writes ``0`` at 31:16.
Inside a block scalar (``key: >``) a comment would be text, so such a mark
goes on the ``key: >`` line: without a list it covers the whole block, with
one it names places: ``equivalent(22:32, 22:77) …``.
"""
from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import signal
import stat
import tempfile
import time
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path

from dsl.diagnostics import Report
from dsl.loader import load_rulebook
from dsl.yamlload import LDict, LList, LStr

from ..game import STEP_KINDS

__all__ = ["Mutant", "Result", "enumerate_mutants", "sample", "run_mutant", "mutate", "MutationRun",
           "format_text", "add_parser", "cmd_mutate", "STAGES"]

EQUIVALENT = re.compile(r"#\s*mutate:\s*equivalent\b(?:\(([^)]*)\))?\s*(.*)$")
STAGES = ("validate", "scenarios", "check", "timeout")
#: side-by-side games per player count that verify a `# mutate: equivalent` mark (--verify-marks)
VERIFY_GAMES = 4
#: a marked mutant's verification may take this many times ``--timeout``: it plays VERIFY_GAMES games
#: per player count side by side and compares what every seat is shown at every decision
#: (measured on a shipped game: an observation per seat and decision makes a game about 20 times slower)
VERIFY_TIME = 3
#: keys whose values are prose or names, never rules
PROSE_KEYS = {"log", "fail", "end_game", "label", "name", "names", "automaton_names", "source", "scenario",
              "description", "note", "title", "text", "help", "doc"}
SKIP_SECTIONS = {"display", "regelwerk", "include"}

_TOKEN = re.compile(r"""(?P<q>'[^']*'|"[^"]*")|(?P<arrow>->)|(?P<range>\.\.)|(?P<sub>(?<=[\w\])])\[)"""
                    r"""|(?P<arith>(?<=\s)(?:[-+]=?|\*|//)(?=\s))"""
                    r"""|(?P<num>(?<![\w])\d+(?![\w]))|(?P<cmp><=|>=|==|!=|<|>)"""
                    r"""|(?P<word>\b(?:and|or|true|false)\b)|(?P<not>\bnot\b\s*)|(?P<mm>\b(?:min|max)(?=\s*\())""")
_CMP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
#: a binary operator (written between blanks) and its counterpart; += and -= too
_ARITH = {"+": "-", "-": "+", "*": "//", "//": "*", "+=": "-=", "-=": "+="}
_WORD = {"and": "or", "or": "and", "true": "false", "false": "true", "min": "max", "max": "min"}


@dataclass(frozen=True)
class Mutant:
    file: str        # relative to the rulebook folder
    line: int
    col: int
    kind: str
    before: str
    after: str
    start: int       # character offsets of the edit in the file's text
    end: int
    replacement: str
    #: another line whose `# mutate:` mark may name this mutant (a block scalar's `key: >` line)
    anchor: int = 0
    #: the text the edit replaces, as it was when the mutants were listed
    was: str = ""

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}:{self.col}:{self.kind}:{self.before}→{self.after}"


@dataclass
class Result:
    id: str
    stage: str       # validate, scenarios, check, timeout (killed); survived; equivalent
    detail: str = ""
    seconds: float = 0.0
    #: for a mutant marked equivalent and verified (``--verify-marks``): "verified" when side-by-side
    #: play found no difference, "wrong" when the mutant is killed or plays differently
    mark: str = ""


# --- finding mutants -------------------------------------------------------------------
class _File:
    def __init__(self, rel: str, text: str):
        self.rel = rel
        self.text = text
        self.lines = text.split("\n")
        self.starts = [0]
        for ln in self.lines[:-1]:
            self.starts.append(self.starts[-1] + len(ln) + 1)

    def offset(self, line: int, col: int) -> int | None:
        if not 0 < line <= len(self.lines) or col < 1 or col - 1 > len(self.lines[line - 1]):
            return None
        return self.starts[line - 1] + col - 1

    def at(self, line: int, col: int, token: str) -> int | None:
        """The offset of ``token`` written at line:col, or None if it is not there."""
        off = self.offset(line, col)
        if off is None or self.text[off:off + len(token)] != token:
            return None
        return off


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _window(text: str, start: int, end: int, new: str, around: int = 30) -> tuple[str, str]:
    """``text`` before and after replacing [start, end) by ``new``, cut to the part around the change."""
    lo = max(0, start - around)
    hi = min(len(text), end + around)
    head = ("…" if lo > 0 else "") + text[lo:start]
    tail = text[end:hi] + ("…" if hi < len(text) else "")
    return head + text[start:end] + tail, head + new + tail


class _Finder:
    def __init__(self, root: Path, game):
        self.root = root
        self.game = game
        self.out: list[Mutant] = []
        self.files: dict[str, _File] = {}

    def file(self, shown: str) -> _File | None:
        if shown not in self.files:
            path = Path(shown)
            try:
                rel = str(path.resolve().relative_to(self.root.resolve()))
                self.files[shown] = _File(rel, path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                self.files[shown] = None
        return self.files[shown]

    def add(self, f: _File, off: int, length: int, replacement: str, kind: str, before: str, after: str,
            line: int, col: int, anchor: int = 0):
        self.out.append(Mutant(f.rel, line, col, kind, _short(before), _short(after), off, off + length,
                               replacement, anchor if anchor != line else 0, f.text[off:off + length]))

    # values ------------------------------------------------------------------------------
    def walk(self, value, pos, key=None, parent=None):
        if isinstance(value, LDict):
            if _step_kind(value) is not None and "to" in value:
                self.zone(value["to"], value.pos_of("to"))
            for k, v in value.items():
                if k in PROSE_KEYS:
                    continue
                if k in ("min", "max") and isinstance(v, int) and not isinstance(v, bool):
                    self.bound_key(value, k)
                self.walk(v, value.pos_of(k), k, value)
        elif isinstance(value, LList):
            self.steps(value)
            for i, v in enumerate(value):
                self.walk(v, value.pos_of(i), key, value)
        elif isinstance(value, bool):
            self.scalar_bool(value, pos)
        elif isinstance(value, int):
            self.scalar_int(value, pos)
        elif isinstance(value, LStr):
            self.expression(value)

    def scalar_bool(self, value: bool, pos):
        f = self.file(pos.file)
        if f is None:
            return
        word = f.lines[pos.line - 1][pos.col - 1:].split(None, 1)[0].rstrip(",}]") if 0 < pos.line <= len(f.lines) else ""
        if word.lower() not in ("true", "false"):
            return
        off = f.at(pos.line, pos.col, word)
        if off is not None:
            new = "false" if value else "true"
            self.add(f, off, len(word), new, "bool", word, new, pos.line, pos.col)

    def scalar_int(self, value: int, pos):
        f = self.file(pos.file)
        if f is None or not 0 < pos.line <= len(f.lines):
            return
        m = re.match(r"-?\d+", f.lines[pos.line - 1][pos.col - 1:])
        if not m or int(m.group()) != value:
            return
        off = f.offset(pos.line, pos.col)
        for new in (value - 1, value + 1):
            self.add(f, off, len(m.group()), str(new), "int", m.group(), str(new), pos.line, pos.col)

    def expression(self, s: LStr):
        f = self.file(s.pos.file)
        if f is None:
            return
        text = str(s)
        for m in _TOKEN.finditer(text):
            group = m.lastgroup
            if group in ("q", "arrow"):
                continue
            if group in ("range", "sub"):
                self.bounds(f, s, text, m, group)
                continue
            token = m.group()
            start = m.start()
            if group == "not":
                core = "not"
            else:
                core = token
            p = s.pos_at(start)
            off = f.at(p.line, p.col, core)
            if off is None:
                continue
            if group == "num":
                news = [(str(int(token) - 1), "int"), (str(int(token) + 1), "int")]
            elif group == "cmp":
                news = [(_CMP[token], "cmp")]
            elif group == "arith":
                news = [(_ARITH[token], "arith")]
            elif group == "word":
                news = [(_WORD[token], "bool" if token in ("true", "false") else "logic")]
            elif group == "mm":
                news = [(_WORD[token], "minmax")]
            else:  # not: drop it and the blanks after it (when they are on the same line)
                tail = f.text[off + 3:off + len(token)]
                if tail != token[3:]:
                    continue
                before, after = _window(text, start, m.end(), "")
                self.add(f, off, len(token), "", "not", before, after, p.line, p.col, s.pos.line)
                continue
            for new, kind in news:
                before, after = _window(text, start, m.end(), new)
                self.add(f, off, len(core), new, kind, before, after, p.line, p.col, s.pos.line)

    def bounds(self, f: _File, s: LStr, text: str, m, group: str):
        """range: a range's end that is not a number (a number is the ``int`` kind's) one more or
        one less (``1..rows`` → ``1..rows - 1``, ``frame..x`` → ``frame + 1..x``); index: a
        subscript's index (each of a tuple's) one more or one less (``hand[p]`` → ``hand[p + 1]``)."""
        if group == "range":
            lo = _scan_back(text, m.start())
            hi = _scan_on(text, m.end())
            ends = []
            if not text[lo:m.start()].strip().isdigit():
                ends.append(len(text[:m.start()].rstrip()))
            if not text[m.end():hi].strip().isdigit():
                ends.append(len(text[:hi].rstrip()))
            kind = "range"
        else:
            close = _scan_on(text, m.end())
            if close >= len(text) or text[close] != "]":
                return
            ends, start = [], m.end()
            for part_end in _top_commas(text, m.end(), close) + [close]:
                part = text[start:part_end]
                if part.strip() and not part.strip().isdigit() and _ARITHMETIC.fullmatch(part):
                    ends.append(len(text[:part_end].rstrip()))
                start = part_end + 1
            kind = "index"
        for end in ends:            # located where the text is inserted: each end has a place of its own
            last = s.pos_at(end - 1)
            off = f.at(last.line, last.col, text[end - 1])
            if off is None:
                continue
            for new in (" - 1", " + 1"):
                before, after = _window(text, end, end, new)
                self.add(f, off + 1, 0, new, kind, before, after, last.line, last.col + 1, s.pos.line)

    def bound_key(self, d: LDict, key: str):
        """bound: a ``min:``/``max:`` entry dropped; minmax: its key made the other (when the
        mapping does not have both)."""
        kp, vp = d.key_pos.get(key), d.pos_of(key)
        f = self.file(kp.file) if kp is not None else None
        if f is None or kp.line != vp.line:
            return
        off = f.at(kp.line, kp.col, key)
        value = re.match(r"-?\d+", f.lines[vp.line - 1][vp.col - 1:])
        if off is None or value is None:
            return
        line = f.lines[kp.line - 1]
        end = f.offset(vp.line, vp.col) + len(value.group())
        rest = f.text[end:f.starts[kp.line - 1] + len(line)]
        head = line[:kp.col - 1]
        entry = f.text[off:end]
        if not head.strip() and (not rest.strip() or rest.lstrip().startswith("#")):      # a block mapping's line
            start, stop = f.starts[kp.line - 1], f.starts[kp.line - 1] + len(line) + 1
        elif re.match(r"\s*,\s*", rest):                                                # {min: 1, …}
            start, stop = off, end + len(re.match(r"\s*,\s*", rest).group())
        elif re.search(r",\s*$", head) and rest.lstrip().startswith("}"):               # {…, min: 1}
            start, stop = off - len(re.search(r",\s*$", head).group()), end
        else:
            return
        self.add(f, start, stop - start, "", "bound", entry, "(dropped)", kp.line, kp.col)
        other = "max" if key == "min" else "min"
        if other not in d:
            self.add(f, off, len(key), other, "minmax", entry, other + entry[len(key):], kp.line, kp.col)

    def zone(self, dest, pos):
        if not isinstance(dest, LStr):
            return
        m = re.match(r"\s*([A-Za-z_]\w*)", str(dest))
        if not m:
            return
        fams = self.game.zones
        fam = fams.get(m.group(1))
        if m.group(1) == "box" and "box" not in fams:      # out of the game → an unindexed zone
            alternatives = sorted(name for name, other in fams.items() if not other.index)
        elif fam is None:
            return
        else:
            alternatives = sorted(
                name for name, other in fams.items()
                if name != fam.name and len(other.index) == len(fam.index)
                and (not fam.holds or not other.holds or fam.holds & other.holds))
            if not fam.index and "box" not in fams:
                alternatives.append("box")               # its sibling out of the game
        if not alternatives:
            return
        f = self.file(dest.pos.file)
        p = dest.pos_at(m.start(1))
        if f is None:
            return
        off = f.at(p.line, p.col, m.group(1))
        if off is None:
            return
        rng = random.Random(zlib.crc32(f"{f.rel}:{p.line}:{p.col}".encode()))
        chosen = rng.sample([a for a in alternatives if a != "box"], min(2, len([a for a in alternatives if a != "box"])))
        for new in chosen + (["box"] if "box" in alternatives else []):
            before, after = _window(str(dest), m.start(1), m.end(1), new)
            self.add(f, off, len(m.group(1)), new, "zone", before, after, p.line, p.col)

    # steps -------------------------------------------------------------------------------
    def steps(self, items: LList):
        blocks = []
        for i, item in enumerate(items):
            if not isinstance(item, LDict) or _step_kind(item) is None:
                return
            pos = items.pos_of(i)
            f = self.file(pos.file)
            if f is None:
                return
            block = _block(f, pos)
            if block is None:
                return
            blocks.append((pos, f, block))
        if len(blocks) == 1 and _step_kind(items[0]) != "log":     # a list's only step: the list left empty
            pos, f, (first, end, dash) = blocks[0]
            start_off = f.starts[first]
            end_off = f.starts[end] if end < len(f.lines) else len(f.text)
            tail = "\n" if f.text[start_off:end_off].endswith("\n") else ""
            self.add(f, start_off, end_off - start_off, " " * (dash + 2) + "[]" + tail, "delete",
                     f.lines[first].strip(), "(only step deleted: [])", pos.line, pos.col)
        if len(blocks) < 2:
            return
        for i, (pos, f, (first, end, dash)) in enumerate(blocks):
            if _step_kind(items[i]) == "log":
                continue  # a log line never changes a game: deleting or moving it is equivalent
            head = f.lines[first].strip()
            start_off = f.starts[first]
            end_off = f.starts[end] if end < len(f.lines) else len(f.text)
            self.add(f, start_off, end_off - start_off, "", "delete", head, "(step deleted)", pos.line, pos.col)
            if i + 1 < len(blocks):
                npos, nf, (nfirst, nend, ndash) = blocks[i + 1]
                if ndash != dash or nf is not f or _step_kind(items[i + 1]) == "log":
                    continue
                n_end_off = f.starts[nend] if nend < len(f.lines) else len(f.text)
                this = f.text[start_off:end_off]
                between = f.text[end_off:f.starts[nfirst]]
                nxt = f.text[f.starts[nfirst]:n_end_off]
                if not this.endswith("\n") or not nxt.endswith("\n"):
                    continue
                self.add(f, start_off, n_end_off - start_off, nxt + between + this, "swap", head,
                         "swapped with: " + f.lines[nfirst].strip(), pos.line, pos.col)


#: an index that is arithmetic (names, numbers, calls, attributes, + - * // %): one more is still an index
_ARITHMETIC = re.compile(r"[\w\s+\-*/%().,\[\]]*")
_STOP_WORDS = {"if", "else", "for", "and", "or", "in", "not"}


def _scan_on(text: str, i: int) -> int:
    """Where the ``sum`` starting at ``i`` ends: at depth 0, a closing bracket, a comma, a
    comparison or ``:``, or a word of lower precedence (if, else, for, and, or, in, not)."""
    depth = 0
    while i < len(text):
        ch = text[i]
        if ch in "'\"":
            close = text.find(ch, i + 1)
            i = len(text) if close < 0 else close + 1
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and (ch in ",<>=!:" or (ch == "-" and text[i + 1:i + 2] == ">") or text[i:i + 2] == ".."):
            return i
        elif depth == 0 and (ch.isalpha() or ch == "_") and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_.")):
            word = re.match(r"\w+", text[i:]).group()
            if word in _STOP_WORDS:
                return i
            i += len(word)
            continue
        i += 1
    return i


def _scan_back(text: str, i: int) -> int:
    """Where the ``sum`` ending just before ``i`` starts (the mirror of :func:`_scan_on`)."""
    depth = 0
    j = i - 1
    while j >= 0:
        ch = text[j]
        if ch in "'\"":
            open_ = text.rfind(ch, 0, j)
            j = open_ - 1 if open_ >= 0 else -1
            continue
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            if depth == 0:
                return j + 1
            depth -= 1
        elif depth == 0 and ch in ",<>=!:":
            return j + 1
        elif depth == 0 and (ch.isalnum() or ch == "_"):
            word = re.search(r"\w+$", text[:j + 1]).group()
            if word in _STOP_WORDS and not text[j - len(word):j - len(word) + 1] == ".":
                return j + 1
            j -= len(word)
            continue
        j -= 1
    return 0


def _top_commas(text: str, start: int, end: int) -> list:
    """The offsets of the commas at depth 0 between ``start`` and ``end``."""
    out, depth, i = [], 0, start
    while i < end:
        ch = text[i]
        if ch in "'\"":
            close = text.find(ch, i + 1)
            i = end if close < 0 else close + 1
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(i)
        i += 1
    return out


def _step_kind(d) -> str | None:
    return next((k for k in d if k in STEP_KINDS), None) if isinstance(d, dict) else None


def _block(f: _File, pos):
    """(first line index, end line index, dash column) of a block-style list item, or None."""
    first = pos.line - 1
    line = f.lines[first]
    prefix = line[:pos.col - 1].rstrip()
    if not prefix.endswith("-") or prefix[:-1].strip():
        return None
    dash = len(prefix) - 1
    end = first + 1
    while end < len(f.lines):
        s = f.lines[end]
        if s.strip() and not s.lstrip().startswith("#"):
            if len(s) - len(s.lstrip()) <= dash:
                break
        end += 1
    while end > first + 1 and (not f.lines[end - 1].strip() or f.lines[end - 1].lstrip().startswith("#")):
        end -= 1
    return first, end, dash


def enumerate_mutants(path) -> tuple[list[Mutant], dict]:
    """Every mutant of the rulebook at ``path``, in a fixed order, and the equivalent ones
    (mutant id -> the reason written in the rulebook)."""
    from ..game import check_rulebook
    report, game = check_rulebook(path, semantic=False)
    if game is None:
        from dsl.diagnostics import RulebookError
        raise RulebookError(report.sorted())
    root = Path(path)
    root = root.parent if root.is_file() else root
    source = load_rulebook(path, Report())
    finder = _Finder(root, game)
    for name, section in source.sections.items():
        if name in SKIP_SECTIONS:
            continue
        finder.walk(section, source.section_pos.get(name), name)
    seen = {}
    for m in finder.out:
        seen.setdefault(m.id, m)
    mutants = sorted(seen.values(), key=lambda m: (m.file, m.line, m.col, m.kind, m.after))
    equivalent = {}
    for m in mutants:
        f = next((f for f in finder.files.values() if f is not None and f.rel == m.file), None)
        if f is None:
            continue
        for line in (m.line, m.anchor):
            hit = EQUIVALENT.search(f.lines[line - 1]) if 0 < line <= len(f.lines) else None
            if hit and _marks(hit.group(1), m):
                equivalent[m.id] = hit.group(2).strip() or "(no reason given)"
                break
    return mutants, equivalent


def _marks(which: str | None, m: Mutant) -> bool:
    """Whether ``equivalent(which)`` covers ``m``: no list covers every mutant on the line; a list
    names kinds (``swap``, ``int``, …), columns (``75``), places (``22:75``) or what a mutant
    writes (``0..7``); ``PLACE=TEXT`` (``31:16=0``) is only the mutant writing TEXT there."""
    if which is None:
        return True
    for item in (w.strip() for w in which.split(",")):
        where, eq, new = item.partition("=")
        if eq and new != m.replacement:
            continue  # PLACE=TEXT: only the mutant that writes TEXT there
        if where in (m.kind, str(m.col), m.after, f"{m.line}:{m.col}") or (eq and not where):
            return True
    return False


def sample(mutants: list, n: int | None, seed: int) -> list:
    if n is None or n >= len(mutants):
        return list(mutants)
    chosen = random.Random(seed).sample(range(len(mutants)), n)
    return [mutants[i] for i in sorted(chosen)]


# --- running one mutant ----------------------------------------------------------------
class _OutOfTime(BaseException):
    """Raised by the alarm; a BaseException so that the rules' error wrappers let it through."""


def _alarm(signum, frame):
    raise _OutOfTime()


def folder_files(root) -> tuple[list, list]:
    """The regular files under ``root`` (relative paths, sorted) and what else is there (links,
    FIFOs, devices), walked without following a link: what a copy of the rulebook may take."""
    root = Path(root)
    files, others = [], []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        for name in list(dirnames):
            if (here / name).is_symlink():
                dirnames.remove(name)
                others.append((here / name).relative_to(root))
        for name in filenames:
            path = here / name
            info = os.lstat(path)
            (files if stat.S_ISREG(info.st_mode) else others).append(path.relative_to(root))
    return sorted(files), sorted(others)


def copy_rulebook(root, dest) -> None:
    """Copy the regular files of the rulebook folder ``root`` to ``dest``; a link is not followed
    and a FIFO or device not opened (a mutant is the rulebook's own files and nothing else)."""
    files, _ = folder_files(root)
    for rel in files:
        (Path(dest) / rel).parent.mkdir(parents=True, exist_ok=True)
        with open(Path(root) / rel, "rb", opener=_no_follow) as src, open(Path(dest) / rel, "wb") as out:
            shutil.copyfileobj(src, out)


def _no_follow(path, flags):
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))


def run_mutant(root: str, mutant: Mutant, games: int = 2, max_decisions: int = 2000, timeout: int = 60,
               verify: int = 0) -> Result:
    """Write ``mutant`` into a copy of the rulebook folder and run validate → scenarios → check
    (the alarm runs from the start: the copy is part of the mutant's time).

    ``verify``: the mutant is marked equivalent; check the mark instead: validate and the
    scenarios (killed: the mark is wrong, it was not needed), then ``verify`` seeded random games
    per player count played side by side with the original rulebook (see :func:`side_by_side`):
    any difference makes the mark wrong and the mutant a survivor; none: ``equivalent``, verified."""
    if verify:      # side-by-side play compares every seat's view at every decision: it gets more time
        return _verify_mark(root, mutant, verify, max_decisions, timeout * VERIFY_TIME)
    started = time.perf_counter()
    try:
        with _mutant_copy(root, mutant, timeout) as book:
            stage, detail = _stages(book, games, max_decisions)
    except _OutOfTime:
        stage, detail = "timeout", f"more than {timeout}s"
    return Result(mutant.id, stage, detail, round(time.perf_counter() - started, 2))


@contextlib.contextmanager
def _mutant_copy(root: str, mutant: Mutant, timeout: int):
    """A copy of the rulebook folder with ``mutant`` written into it, removed afterwards; the
    alarm (``_OutOfTime`` after ``timeout`` seconds) runs from the start of the copy."""
    tmp = Path(tempfile.mkdtemp(prefix="regelwerk-mutant-"))
    old = None
    try:
        if timeout and hasattr(signal, "SIGALRM"):
            old = signal.signal(signal.SIGALRM, _alarm)
            signal.alarm(timeout)
        book = tmp / Path(root).resolve().name
        copy_rulebook(root, book)
        target = book / mutant.file
        text = target.read_text(encoding="utf-8")
        _unchanged(mutant, text)
        target.write_text(text[:mutant.start] + mutant.replacement + text[mutant.end:], encoding="utf-8")
        yield book
    finally:
        if old is not None:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
        shutil.rmtree(tmp, ignore_errors=True)


class RulebookChanged(Exception):
    """The rulebook's text changed after its mutants were listed: their places are stale."""


def _unchanged(mutant: Mutant, text: str) -> None:
    if mutant.was and text[mutant.start:mutant.end] != mutant.was:
        raise RulebookChanged(f"{mutant.file} changed after its mutants were listed (at {mutant.line}:{mutant.col} "
                              f"'{mutant.was[:40]}' is no longer written); run mutate again")


def _stages(book: Path, games: int, max_decisions: int, out: dict | None = None) -> tuple[str, str]:
    """validate → scenarios → ``games`` random games per player count; ``out["rulebook"]``:
    the mutant's Rulebook when it compiled."""
    from ..game import Rulebook, check_rulebook
    from .scenarios import ScenarioRunner, find_scenarios
    try:
        report, game = check_rulebook(book)
    except Exception as exc:  # noqa: BLE001 - a mutant that breaks the loader is caught by validate
        return "validate", f"{type(exc).__name__}: {exc}"
    if game is None or report.items:
        first = (report.sorted() or report.items)[0] if report.items else None
        return "validate", first.format(with_source=False) if first else "does not compile"
    rb = Rulebook(game, book, report)
    if out is not None:
        out["rulebook"] = rb
    for _, file in find_scenarios([book]):
        try:
            result = ScenarioRunner(rb, file).run()
        except Exception as exc:  # noqa: BLE001 - an engine error on a mutant still fails the scenario
            return "scenarios", f"{file.name}: {type(exc).__name__}: {exc}"
        if not result.ok:
            msg = result.messages[0].format(with_source=False) if result.messages else ""
            return "scenarios", f"{file.name}: {msg}"
    for players in range(game.min_players, game.max_players + 1):
        for seed in range(1, games + 1):
            problem = _short_game(rb, players, seed, max_decisions)
            if problem:
                return "check", f"{players} players, seed {seed}: {problem}"
    return "survived", ""


def _short_game(rb, players: int, seed: int, max_decisions: int) -> str:
    """One random game, checked as `regelwerk check` checks it; what broke, or ''."""
    from dsl.diagnostics import RuleRuntimeError
    from ..ai.bots import make_bots
    from .simulate import structure_problems
    try:
        from ..game import space_of
        st = rb.new_game(players, seed, logging=False)
        bots = make_bots("random", st.lay.num_seats, seed)
        space = space_of(rb.game, st.lay)
        unbounded = {id(u[0]) for u in space.unbounded}
        n = 0
        while not st.is_terminal():
            if n >= max_decisions:
                return f"RW901 the game has not ended after {max_decisions} decisions"
            outside = [a for a in st.legal_actions() if a not in space.index
                       and id(st.pending.by_id[a].action) not in unbounded]
            if outside:
                return f"RW906 legal action '{outside[0]}' is not in the fixed action space"
            st.apply_action(bots[st.current_player()].choose(st))
            n += 1
            for name, fn, _ in rb.game.invariants:
                if not fn(st, [None]):
                    return f"RW903 invariant '{name}' is broken"
            if st.broken:
                return f"RW903 invariant '{st.broken[0][0]}' is broken at the end of a {st.broken[0][2]}"
        problems = structure_problems(st)
        if problems:
            return f"RW904 {problems[0]}"
    except RuleRuntimeError as exc:
        return f"RW905 {exc.message}"
    except Exception as exc:  # noqa: BLE001 - the engine failing on a mutant is a finding too
        return f"{type(exc).__name__}: {exc}"
    return ""


# --- verifying a mark ---------------------------------------------------------------------
_ORIGINALS: dict = {}


def _original(root: str):
    """The unchanged rulebook at ``root``, loaded once per process."""
    key = str(Path(root).resolve())
    if key not in _ORIGINALS:
        from ..game import Rulebook
        _ORIGINALS[key] = Rulebook.load(root)
    return _ORIGINALS[key]


def _verify_mark(root: str, mutant: Mutant, games: int, max_decisions: int, timeout: int) -> Result:
    started = time.perf_counter()
    try:
        with _mutant_copy(root, mutant, timeout) as book:
            original = _original(root)
            out: dict = {}
            stage, detail = _stages(book, 0, max_decisions, out)
            if stage != "survived":
                result = Result(mutant.id, stage, f"wrong mark: the mutant is killed ({detail})", mark="wrong")
            else:
                diff = side_by_side(original, out["rulebook"], games, max_decisions)
                result = (Result(mutant.id, "survived", f"wrong mark: {diff}", mark="wrong") if diff
                          else Result(mutant.id, "equivalent", "", mark="verified"))
    except _OutOfTime:
        result = Result(mutant.id, "survived", f"wrong mark: verifying took more than {timeout}s", mark="wrong")
    result.seconds = round(time.perf_counter() - started, 2)
    return result


def side_by_side(original, mutant, games: int, max_decisions: int = 2000) -> str:
    """Play ``games`` seeded random games per player count (every count either rulebook allows)
    with both rulebooks at once (seeds 1..games; even seeds with every variant on): the same index of the legal actions is
    chosen in both. The first difference — setup refused by one, the legal actions (ids, in
    order), whose turn it is, what any seat is shown (its observation: the zones whose contents
    it sees and what is in them, the variables and facts it is shown) at any decision or at the
    end, the game's end, the scores, the score's parts (``State.score_parts``), an error in one —
    as text; '' if none."""
    game, other = original.game, mutant.game
    variants = sorted(game.variants)
    # every player count either allows: a count only one of them sets up is a difference
    for players in range(min(game.min_players, other.min_players), max(game.max_players, other.max_players) + 1):
        for seed in range(1, games + 1):
            chosen = variants if seed % 2 == 0 else []
            diff = _pair(original, mutant, players, seed, chosen, max_decisions)
            if diff:
                return f"{players} players, seed {seed}{' (variants: ' + ', '.join(chosen) + ')' if chosen else ''}: {diff}"
    return ""


def _pair(a, b, players: int, seed: int, variants: list, max_decisions: int) -> str:
    from ..game import GameSetupError

    def start(rb):
        try:
            return rb.new_game(players, seed, {}, variants, logging=False)
        except GameSetupError as exc:
            return exc
    sa, sb = start(a), start(b)
    if isinstance(sa, Exception) or isinstance(sb, Exception):
        if isinstance(sa, Exception) and isinstance(sb, Exception):
            return ""
        return f"setup: the {'original' if isinstance(sa, Exception) else 'mutant'} refuses the game"
    pick = random.Random(seed)
    n = 0
    while n < max_decisions:
        try:
            ta, tb = sa.is_terminal(), sb.is_terminal()
            if ta != tb:
                return f"after {n} decisions only the {'original' if ta else 'mutant'} has ended"
            if ta:
                break
            la, lb = sa.legal_actions(), sb.legal_actions()
            if la != lb:
                extra = [x for x in lb if x not in la][:3]
                missing = [x for x in la if x not in lb][:3]
                return (f"after {n} decisions the legal actions differ (mutant: {len(lb)}, original: {len(la)}; "
                        f"only in the mutant {extra or 'none'}, only in the original {missing or 'none'})")
            if sa.current_player() != sb.current_player():
                return f"after {n} decisions seat {sa.current_player()} decides, in the mutant seat {sb.current_player()}"
            seen = _seen_differently(sa, sb)
            if seen:
                return f"after {n} decisions {seen}"
            i = pick.randrange(len(la))
            sa.apply_index(i)
        except Exception as exc:  # noqa: BLE001 - the original breaking is a finding too
            return f"the original fails after {n} decisions: {type(exc).__name__}: {exc}"
        try:
            sb.apply_index(i)
        except Exception as exc:  # noqa: BLE001 - the mutant breaking where the original does not
            return f"the mutant fails after {n} decisions: {type(exc).__name__}: {exc}"
        n += 1
    if sa.is_terminal():
        pa, pb = sa.scores(), sb.scores()
        if pa != pb:
            return f"the scores differ: {pb} (mutant), {pa} (original)"
        try:
            ba, bb = sa.score_parts(), sb.score_parts()
        except Exception as exc:  # noqa: BLE001 - a part that fails to evaluate is a difference
            return f"the score's parts fail: {type(exc).__name__}: {exc}"
        for seat, (ra, rb) in enumerate(zip(ba, bb)):
            if ra != rb:
                names = [k for k in dict.fromkeys(list(ra) + list(rb)) if ra.get(k) != rb.get(k)]
                return (f"seat {seat}'s score breakdown differs at the end: {names[0]} "
                        f"{rb.get(names[0], '(none)')} (mutant), {ra.get(names[0], '(none)')} (original)")
        seen = _seen_differently(sa, sb)
        if seen:
            return f"at the end {seen}"
    return ""


def _seen_differently(sa, sb) -> str:
    """The first difference in what a seat is shown (``State.observation`` for every seat:
    which zones it sees the contents of, what it sees there, the variables and facts it is
    shown, the decisions as it is told them), as text; '' when every seat sees the same in
    both.  A zone that only one version has (a family's index one wider) is a difference only
    when it holds something."""
    for seat in sa.lay.seats:
        oa, ob = sa.observation(seat), sb.observation(seat)
        if oa == ob:
            continue
        za, zb = oa.get("zones", {}), ob.get("zones", {})
        for name in dict.fromkeys(list(za) + list(zb)):
            a, b = za.get(name), zb.get(name)
            if a == b or (a is None and _empty(b)) or (b is None and _empty(a)):
                continue        # a zone only one version has, empty: nothing to see in it
            if isinstance(a, dict) != isinstance(b, dict):
                shown = "sees the contents of" if isinstance(b, list) else "sees only a count of"
                return f"seat {seat} {shown} {name} in the mutant, not in the original"
            return f"seat {seat} sees {name} as {_brief(b)} (mutant), {_brief(a)} (original)"
        for key in dict.fromkeys(list(oa) + list(ob)):
            if key == "zones" or oa.get(key) == ob.get(key):
                continue
            a, b = oa.get(key), ob.get(key)
            if isinstance(a, dict) and isinstance(b, dict):
                for name in dict.fromkeys(list(a) + list(b)):
                    if a.get(name, _NONE) != b.get(name, _NONE):
                        return (f"seat {seat} is shown {key} '{name}' as {_brief(b.get(name, '(nothing)'))} "
                                f"(mutant), {_brief(a.get(name, '(nothing)'))} (original)")
            return f"seat {seat} is shown {key} as {_brief(b)} (mutant), {_brief(a)} (original)"
    return ""


_NONE = object()


def _empty(seen) -> bool:
    """Whether a zone as a seat sees it holds nothing (its contents, or only its count)."""
    return seen == [] or seen == {"count": 0}


def _brief(value) -> str:
    if isinstance(value, dict) and set(value) == {"count"}:
        return f"{value['count']} (a count only)"
    return _short(json.dumps(value, ensure_ascii=False, default=str), 80)


def _run_packed(args) -> Result:
    root, mutant, games, max_decisions, timeout, verify = args
    return run_mutant(root, mutant, games, max_decisions, timeout, verify)


# --- a whole run -------------------------------------------------------------------------
@dataclass
class MutationRun:
    rulebook: str
    seed: int
    possible: int
    mutants: list           # Mutant (the sample)
    results: dict           # id -> Result
    equivalent: dict        # id -> reason

    def counts(self) -> dict:
        out = {s: 0 for s in STAGES + ("survived", "equivalent")}
        for r in self.results.values():
            out[r.stage] = out.get(r.stage, 0) + 1
        return out

    def wrong_marks(self) -> list:
        """The marked mutants whose verification found them killed or playing differently."""
        return [m for m in self.mutants if m.id in self.results and self.results[m.id].mark == "wrong"]

    def verified(self) -> int:
        return sum(1 for r in self.results.values() if r.mark == "verified")

    def killed(self) -> int:
        c = self.counts()
        return sum(c[s] for s in STAGES)

    def kill_rate(self) -> float:
        c = self.counts()
        alive = self.killed() + c["survived"]
        return 100.0 * self.killed() / alive if alive else 100.0

    def survivors(self) -> list:
        return [m for m in self.mutants if m.id in self.results and self.results[m.id].stage == "survived"]


_MARK = re.compile(r"\s*#\s*(?:mutate|coverage):.*$")


def fingerprint(root) -> str:
    """A hash of the rulebook's files and its scenarios (``# mutate:`` and ``# coverage:``
    marks left out): a state file's records count only for the same rulebook and scenarios."""
    import hashlib
    h = hashlib.sha256()
    for rel in folder_files(root)[0]:
        if rel.suffix != ".yaml":
            continue
        f = Path(root) / rel
        h.update(str(rel).encode())
        for line in f.read_text(encoding="utf-8", errors="replace").splitlines():
            h.update(_MARK.sub("", line).encode() + b"\n")
    return h.hexdigest()[:16]


def mutate(path, n: int | None = None, seed: int = 1, jobs: int = 1, state: str | None = None,
           only=None, games: int = 2, max_decisions: int = 2000, timeout: int = 60, progress=None,
           verify_marks: int = 0) -> MutationRun:
    """Sample mutants of the rulebook at ``path`` and run them (see the module's doc).

    ``only(mutant) -> bool`` restricts the mutants before sampling; ``progress(done, total)``
    is called as each finishes. ``verify_marks``: the mutants in the sample marked equivalent
    are verified (validate, the scenarios, then ``verify_marks`` side-by-side games per player
    count) instead of trusted; 0 trusts the marks."""
    mutants, equivalent = enumerate_mutants(path)
    possible = len(mutants)
    if only is not None:
        mutants = [m for m in mutants if only(m)]
    chosen = sample(mutants, n, seed)
    root = str(Path(path).parent if Path(path).is_file() else Path(path))
    results: dict = {}
    if not verify_marks:
        for m in chosen:
            if m.id in equivalent:
                results[m.id] = Result(m.id, "equivalent", equivalent[m.id])
    book = fingerprint(root) + (f"/verify{verify_marks}" if verify_marks else "")
    if state and Path(state).exists():
        wanted = {m.id for m in chosen}
        for line in Path(state).read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec.pop("book", None) != book:
                continue  # recorded for another version of the rulebook or its scenarios
            if rec.get("id") in wanted and rec["id"] not in results:
                results[rec["id"]] = Result(**rec)
    todo = [m for m in chosen if m.id not in results]
    out = open(state, "a", encoding="utf-8") if state else None

    def finished(result: Result):
        if result.mark == "verified":
            result.detail = equivalent.get(result.id, "")
        results[result.id] = result
        if out is not None:
            out.write(json.dumps(dict(asdict(result), book=book), ensure_ascii=False) + "\n")
            out.flush()
        if progress is not None:
            progress(len(results), len(chosen))
    try:
        args = [(root, m, games, max_decisions, timeout, verify_marks if m.id in equivalent else 0) for m in todo]
        if jobs > 1 and len(todo) > 1:
            from .backends import worker_pool
            with worker_pool(jobs) as pool:             # workers that exit when this process dies
                for result in pool.map(_run_packed, args, chunksize=1):
                    finished(result)
        else:
            for a in args:
                finished(_run_packed(a))
    finally:
        if out is not None:
            out.close()
    return MutationRun(str(path), seed, possible, chosen, results, equivalent)


def format_text(run: MutationRun) -> str:
    c = run.counts()
    killed = run.killed()
    lines = []
    root = Path(run.rulebook)
    wrong = {m.id for m in run.wrong_marks()}
    for m in run.survivors():
        if m.id not in wrong:
            lines.append(f"{root / m.file}:{m.line}:{m.col}: survived: {m.before} → {m.after}")
    for m in run.wrong_marks():
        detail = run.results[m.id].detail.removeprefix("wrong mark: ")
        lines.append(f"{root / m.file}:{m.line}:{m.col}: wrong mark: {m.before} → {m.after}: {detail}")
    by_stage = ", ".join(f"{s} {c[s]}" for s in STAGES if c[s])
    verified = run.verified()
    marks = (f"; marks: {verified} verified, {len(wrong)} wrong" if verified or wrong else "")
    lines.append(f"{run.rulebook}: {len(run.mutants)} mutants (seed {run.seed}, of {run.possible} possible): "
                 f"killed {killed} ({by_stage or 'none'}), survived {c['survived']}, equivalent {c['equivalent']}; "
                 f"kill rate {run.kill_rate():.1f}% of {killed + c['survived']} non-equivalent{marks}")
    return "\n".join(lines)


def format_json(run: MutationRun) -> str:
    return json.dumps({
        "rulebook": run.rulebook, "seed": run.seed, "possible": run.possible, "sampled": len(run.mutants),
        "counts": run.counts(), "kill_rate": round(run.kill_rate(), 2),
        "marks": {"verified": run.verified(), "wrong": len(run.wrong_marks())},
        "mutants": [dict(asdict(run.results[m.id]), file=m.file, line=m.line, col=m.col, kind=m.kind,
                         before=m.before, after=m.after) for m in run.mutants if m.id in run.results],
    }, indent=2, ensure_ascii=False)


# --- the command -----------------------------------------------------------------------
def add_parser(sub) -> None:
    from ..commands import SEED as _SEED, whole as _whole
    p = sub.add_parser("mutate", help="seeded one-point changes of a rulebook: do its scenarios notice them?")
    p.add_argument("rulebook", metavar="RULEBOOK")
    p.add_argument("--sample", type=_whole(1), metavar="N", help="how many mutants (default: all)")
    p.add_argument("--seed", type=_SEED, default=1, help="which sample (default 1)")
    p.add_argument("--jobs", type=_whole(1, 256), default=1, help="processes (default 1)")
    p.add_argument("--state", metavar="FILE", help="record finished mutants here and skip those already in it")
    p.add_argument("--only", metavar="FILE[:LINE]", action="append",
                   help="only mutants in this file (relative to the rulebook), or at this line (repeatable)")
    p.add_argument("--games", type=_whole(0), default=2, help="check: random games per player count (default 2)")
    p.add_argument("--timeout", type=_whole(1), default=60,
                   help=f"seconds one mutant may take (default 60; verifying a mark {VERIFY_TIME} times as long)")
    p.add_argument("--verify-marks", type=_whole(1), nargs="?", const=VERIFY_GAMES, default=VERIFY_GAMES,
                   metavar="N", help=f"play each marked mutant side by side with the original over N seeded random "
                                     f"games per player count; a difference is a wrong mark, counted as a survivor "
                                     f"(the default, N={VERIFY_GAMES})")
    p.add_argument("--trust-marks", action="store_true", help="count marked mutants as equivalent without verifying")
    p.add_argument("--marked", action="store_true", help="only the mutants marked equivalent (to verify the marks)")
    p.add_argument("--kind", action="append", metavar="KIND", help="only mutants of this kind (int, cmp, arith, …; repeatable)")
    p.add_argument("--list", action="store_true", help="list the sampled mutants, run nothing")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=cmd_mutate)


def _only(specs):
    if not specs:
        return None
    wanted = []
    for spec in specs:
        file, _, line = spec.partition(":")
        wanted.append((file, int(line) if line.isdigit() else None))

    def keep(m: Mutant) -> bool:
        return any(m.file == f and (ln is None or m.line == ln) for f, ln in wanted)
    return keep


def _selection(args):
    """``--only``, ``--kind`` and ``--marked`` as one test of a mutant (None: every mutant)."""
    only = _only(args.only)
    if args.kind:
        by_place, kinds = only, set(args.kind)
        only = lambda m: m.kind in kinds and (by_place is None or by_place(m))  # noqa: E731
    if args.marked:
        _, marked = enumerate_mutants(args.rulebook)
        keep = only
        only = lambda m: m.id in marked and (keep is None or keep(m))  # noqa: E731
    return only


def cmd_mutate(args) -> int:
    import sys
    only = _selection(args)
    if args.list:
        mutants, equivalent = enumerate_mutants(args.rulebook)
        if only:
            mutants = [m for m in mutants if only(m)]
        for m in sample(mutants, args.sample, args.seed):
            mark = "  (equivalent)" if m.id in equivalent else ""
            print(f"{Path(args.rulebook) / m.file}:{m.line}:{m.col}: {m.kind}: {m.before} → {m.after}{mark}")
        return 0
    from ..commands import raw
    _, others = folder_files(args.rulebook)
    if others:
        raise ValueError(f"{Path(args.rulebook) / others[0]} is a link or a special file; mutate copies a rulebook "
                         f"folder of regular files only ({len(others)} such entr{'y' if len(others) == 1 else 'ies'})")
    show = sys.stderr.isatty() and args.format == "text"

    def progress(done, total):
        if show:
            print(f"\r{done}/{total} mutants", end="", file=raw(sys.stderr), flush=True)   # our own \r
    try:
        run = mutate(args.rulebook, args.sample, args.seed, args.jobs, args.state, only, args.games,
                     timeout=args.timeout, progress=progress, verify_marks=0 if args.trust_marks else args.verify_marks)
    except RulebookChanged as exc:
        from ..commands import UsageError
        raise UsageError(str(exc)) from None
    if show:
        print(file=sys.stderr)
    print(format_json(run) if args.format == "json" else format_text(run))
    return 0
