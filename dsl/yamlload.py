"""Safe YAML loading that remembers where every value came from.

The loader composes the YAML node graph with PyYAML's safe machinery and
turns it into plain Python containers that also carry positions:

* :class:`LDict` — a ``dict`` with ``pos`` (the mapping's start) and
  ``key_pos`` / ``val_pos`` per key;
* :class:`LList` — a ``list`` with ``pos`` and ``item_pos`` per index;
* :class:`LStr` — a ``str`` with ``pos`` and a map from offsets inside the
  string to file positions, so that an expression error points at the exact
  column in the YAML file.

Only the plain YAML types are accepted.  Tags (``!!python/object`` and any
other), anchors and aliases, and duplicate keys are reported as errors.
"""
from __future__ import annotations

import os
import re
import stat
from bisect import bisect_right
from pathlib import Path

import yaml

from .diagnostics import Diagnostic, Pos, Report

_PLAIN_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:seq",
    "tag:yaml.org,2002:map",
}


class LDict(dict):
    pos: Pos
    key_pos: dict
    val_pos: dict

    def pos_of(self, key) -> Pos:
        return self.val_pos.get(key, self.pos)


class LList(list):
    pos: Pos
    item_pos: list

    def pos_of(self, index: int) -> Pos:
        if 0 <= index < len(self.item_pos):
            return self.item_pos[index]
        return self.pos


class LStr(str):
    """A string that knows the file position of each of its characters."""

    pos: Pos
    _offsets: list
    _points: list

    def pos_at(self, offset: int) -> Pos:
        if not getattr(self, "_offsets", None):
            return getattr(self, "pos", Pos("<string>"))
        i = bisect_right(self._offsets, offset) - 1
        if i < 0:
            return self.pos
        base, line, col = self._points[i]
        return Pos(self.pos.file, line, col + (offset - base))


def located_str(text: str, pos: Pos) -> LStr:
    s = LStr(text)
    s.pos = pos
    s._offsets = [0]
    s._points = [(0, pos.line, pos.col)]
    return s


def pos_of(value, default: Pos) -> Pos:
    return getattr(value, "pos", default)


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """A safe loader (libyaml's C parser when PyYAML has it).

    Booleans follow YAML 1.2: only true/false.  YAML 1.1 also reads yes, no,
    on and off as booleans, which would turn a trigger's ``on:`` key into
    ``True``.  Aliases are refused while the node graph is turned into data
    (an aliased node is met twice), which also defuses billion-laugh bombs.
    """

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


class _Builder:
    def __init__(self, file: str, text: str, report: Report):
        self.file = file
        self.lines = text.splitlines()
        self.report = report
        self.constructor = yaml.constructor.SafeConstructor()
        self.seen: set = set()

    def pos(self, mark) -> Pos:
        return Pos(self.file, mark.line + 1, mark.column + 1)

    def build(self, node):
        if id(node) in self.seen:
            self.report.error(self.pos(node.start_mark), "anchors and aliases are not allowed in a rulebook", "RW002")
            return None
        self.seen.add(id(node))
        if node.tag == "tag:yaml.org,2002:timestamp" and isinstance(node, yaml.ScalarNode):
            return self.located_scalar(node.value, node)  # a date-like word stays text
        if node.tag not in _PLAIN_TAGS:
            self.report.error(self.pos(node.start_mark), f"YAML tag '{node.tag}' is not allowed in a rulebook", "RW002")
            return None
        if isinstance(node, yaml.MappingNode):
            out = LDict()
            out.pos = self.pos(node.start_mark)
            out.key_pos, out.val_pos = {}, {}
            for knode, vnode in node.value:
                key = self.build(knode)
                if isinstance(key, (list, dict)):
                    self.report.error(self.pos(knode.start_mark), "a mapping key must be a plain value", "RW002")
                    continue
                if key in out:
                    self.report.error(
                        self.pos(knode.start_mark),
                        f"duplicate key '{key}' (first at line {out.key_pos[key].line})",
                        "RW003",
                    )
                    continue
                out[key] = self.build(vnode)
                out.key_pos[key] = self.pos(knode.start_mark)
                out.val_pos[key] = self.pos(vnode.start_mark)
            return out
        if isinstance(node, yaml.SequenceNode):
            out = LList()
            out.pos = self.pos(node.start_mark)
            out.item_pos = []
            for item in node.value:
                out.append(self.build(item))
                out.item_pos.append(self.pos(item.start_mark))
            return out
        # scalar
        try:
            value = self.constructor.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, KeyError) as exc:  # KeyError: !!bool maybe
            self.report.error(self.pos(node.start_mark), f"bad YAML value: {exc}", "RW001")
            return None
        if isinstance(value, str):
            return self.located_scalar(value, node)
        return value

    def located_scalar(self, value: str, node) -> LStr:
        s = LStr(value)
        s.pos = self.pos(node.start_mark)
        start, end = node.start_mark, node.end_mark
        quoted = node.style in ("'", '"')
        if start.line == end.line or not value:
            col = start.column + 1 + (1 if quoted else 0)
            s._offsets, s._points = [0], [(0, start.line + 1, col)]
            return s
        # multi-line (block, folded, or flowed plain/quoted): find each source
        # line's text inside the value, in order.
        offsets, points = [], []
        cursor = 0
        first = start.line + (1 if node.style in ("|", ">") else 0)
        for ln in range(first, min(end.line + 1, len(self.lines))):
            raw = self.lines[ln]
            if ln == start.line:
                raw_from = start.column + (1 if quoted else 0)
            else:
                raw_from = len(raw) - len(raw.lstrip())
            text = raw[raw_from:].rstrip()
            if quoted and ln == end.line and text.endswith(node.style):
                text = text[:-1]
            if not text:
                continue
            found = value.find(text, cursor)
            if found < 0:
                continue
            offsets.append(found)
            points.append((found, ln + 1, raw_from + 1))
            cursor = found + len(text)
        if not offsets:
            offsets, points = [0], [(0, start.line + 1, start.column + 1)]
        s._offsets, s._points = offsets, points
        return s


#: the deepest nesting of mappings and lists a rulebook or scenario file may have
MAX_DEPTH = 64


def _too_deep(text: str, file: str) -> Diagnostic | None:
    """Measure the nesting on the parser's event stream, before any node is built.

    Composing nodes recurses (in C, with libyaml): YAML nested thousands deep
    would overflow the stack and kill the process.  The event parser keeps
    its own stack, so counting here is safe at any depth.
    """
    depth = 0
    loader = _Loader(text)
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    mark = event.start_mark
                    return Diagnostic(Pos(file, mark.line + 1, mark.column + 1),
                                      f"nested more than {MAX_DEPTH} levels deep (mappings and lists)",
                                      "error", "RW006")
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.YAMLError:
        return None  # the composer below reports the syntax error with its position
    finally:
        loader.dispose()
    return None


def _reader_pos(text: str, file: str, position: int) -> Pos:
    before = text[:position]
    line = before.count("\n") + 1
    return Pos(file, line, position - (before.rfind("\n") + 1) + 1)


def load_yaml_text(text: str, file: str, report: Report):
    """Parse ``text`` (the contents of ``file``) into located data.

    Errors go to ``report``; on a syntax error the result is ``None``.
    """
    try:
        deep = _too_deep(text, file)
    except yaml.reader.ReaderError as exc:
        report.error(_reader_pos(text, file, exc.position), f"YAML: {_reader_problem(exc)}", "RW001")
        return None
    if deep is not None:
        report.extend([deep])
        return None
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.reader.ReaderError as exc:
        report.error(_reader_pos(text, file, exc.position), f"YAML: {_reader_problem(exc)}", "RW001")
        return None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        pos = Pos(file, mark.line + 1, mark.column + 1) if mark else Pos(file)
        body = text.rstrip("\n")
        lines = body.count("\n") + 1 if body else 0
        if mark and mark.line + 1 > lines and lines:       # past the file's last line (a cut file ends
            pos = Pos(file, lines, len(body.rsplit("\n", 1)[-1]) + 1)   # there): at the end of that line
        problem = exc.problem or str(exc)
        if exc.context and "alias" not in problem:
            problem = f"{exc.context}: {problem}" if "found" in problem else problem
        report.error(pos, f"YAML syntax: {problem}", "RW001")
        return None
    except yaml.YAMLError as exc:
        report.error(Pos(file), f"YAML: {exc}", "RW001")
        return None
    finally:
        loader.dispose()
    if node is None:
        return None
    return _Builder(file, text, report).build(node)


def _reader_problem(exc) -> str:
    char = exc.character
    shown = f"#x{ord(char):04x}" if isinstance(char, str) else f"#x{char:02x}"
    return f"the character {shown} is not allowed in YAML ({exc.reason})"


#: the bounds of what the front end reads: interpreter/engine/run/limits.py sets them from its limits of the
#: same names (file_bytes, expr_chars) whenever they change; the front end imports nothing of the engine
BOUNDS: dict = {"file_bytes": 1_000_000, "expr_chars": 20_000}


def limit(name: str, default: int) -> int:
    """The bound ``name`` in force (BOUNDS)."""
    return BOUNDS.get(name, default)


def read_source_file(path: Path, report: Report, display: str | None = None) -> str | None:
    """The text of a regular UTF-8 file, or None (the problem reported, located at the file)."""
    display = display or str(path)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):  # a FIFO or device would block or never end
            report.error(Pos(display), "not a regular file", "RW004")
            return None
        most = limit("file_bytes", 1_000_000)
        if info.st_size > most:
            report.error(Pos(display), f"the file has {info.st_size:,} bytes; at most {most:,} are allowed "
                                       f"(limit 'file_bytes')", "RW004")
            return None
        with open(path, "rb") as f:
            data = f.read(most + 1)              # it may have grown since
        if len(data) > most:
            report.error(Pos(display), f"the file has more than {most:,} bytes (limit 'file_bytes')", "RW004")
            return None
        return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except FileNotFoundError:
        report.error(Pos(display), "file not found", "RW004")
        return None
    except (OSError, UnicodeDecodeError) as exc:
        report.error(Pos(display), f"cannot read file: {exc}", "RW004")
        return None


def load_yaml_file(path: Path, report: Report, display: str | None = None):
    display = display or str(path)
    text = read_source_file(path, report, display)
    return None if text is None else load_yaml_text(text, display, report)


__all__ = ["LDict", "LList", "LStr", "load_yaml_file", "read_source_file", "load_yaml_text", "located_str", "pos_of",
           "Diagnostic"]
