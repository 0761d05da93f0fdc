"""The rulebook's names in words: what a rules document calls each name a rule uses.

A rules document (``regelwerk rules``, interpreter/tools/rulesdoc) prints the rules back as
sentences.  Where a rule has words of its own (``description:``, ``say:``) it uses them; where
it has none it renders the expression, naming every name in the rulebook's own words:

* ``display: names:`` — any name a rule uses (a constant, function, enum symbol, parameter,
  action, scope …) and the words for it;
* ``display: titles:`` — a zone family's or variable's title (the view's headings);
* a name that is one plain word (``bag``, ``score``) reads as itself;
* a constant that is a plain number (or true or false) reads as its value.

Any other name (``draw_pile``, ``hand_limit``) would have to be printed as the raw name
in words ("draw pile"): :func:`unnamed` yields a warning (RW274) at the first place each such
name is used, in a rulebook drawn for people (one with a ``display:`` section).
"""
from __future__ import annotations

import re
from typing import Iterator

from dsl.diagnostics import Diagnostic, ERROR, WARNING, Pos

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_BRACED = re.compile(r"\{([^{}]*)\}")
#: the sections that hold rules (their step lists, actions, triggers and the end)
RULE_SECTIONS = ("setup", "flow", "actions", "procedures", "triggers", "end")
#: sections that declare names a rules document lists (in tables and headings)
DECLARING = ("components", "zones", "variables", "options", "variants", "functions", "constants")
#: keys whose value is words, never a name
_WORDS = {"description", "say", "source", "label"}
#: keys whose value is a text with {expression} parts
_TEXTS = {"log", "fail", "tell"}
#: keys whose value is a word of the language (an event, a scope kind), not a name of the rulebook
_LANGUAGE = {"on", "until", "better", "type", "visible_to"}
#: names of the language itself: a rules document has its own words for them
LANGUAGE_NAMES = {"num_players", "num_seats", "player", "players", "event", "viewer", "option", "variant",
                  "box", "true", "false", "none", "and", "or", "not", "in", "if", "else", "for"}


def display_words(display) -> dict:
    """name -> words, from ``display: titles:`` and ``display: names:`` (names win)."""
    out = {}
    if isinstance(display, dict):
        for key in ("titles", "names"):
            items = display.get(key)
            if isinstance(items, dict):
                out.update({str(k): str(v) for k, v in items.items() if isinstance(v, str) and v.strip()})
    return out


def plain_constants(source) -> dict:
    """The constants that read as their value: name -> a number or a boolean as written."""
    constants = source.sections.get("constants")
    if not isinstance(constants, dict):
        return {}
    return {str(k): v for k, v in constants.items() if isinstance(v, (int, bool))}


def needs_words(name: str, builtins=()) -> bool:
    """Would ``name`` have to be printed raw without words of its own (it is no plain word)?"""
    return "_" in name and name not in LANGUAGE_NAMES and name not in builtins


def _idents(text: str, textual: bool) -> Iterator[tuple[str, int]]:
    """(identifier, offset) of each name in an expression (or in the {…} parts of a text)."""
    if textual:
        for m in _BRACED.finditer(text):
            yield from ((n, m.start(1) + o) for n, o in _idents(m.group(1), False))
        return
    blank = _QUOTED.sub(lambda m: " " * len(m.group()), text)
    for m in IDENT.finditer(blank):
        start = m.start()
        if start and blank[start - 1].isdigit():
            continue
        yield m.group(), start


def _at(value, offset: int, fallback: Pos) -> Pos:
    pos_at = getattr(value, "pos_at", None)
    if pos_at is not None:
        try:
            return pos_at(offset)
        except Exception:  # noqa: BLE001 - a string without offsets: its own position
            pass
    return getattr(value, "pos", fallback)


def used_names(source) -> Iterator[tuple[str, Pos]]:
    """Every name the rules and declarations use, with where (in file order, repeats included)."""
    fallback = Pos(source.files[0] if source.files else "?")

    def walk(value, key, where):
        if isinstance(value, dict):
            for k, v in value.items():
                kp = value.key_pos.get(k, where) if hasattr(value, "key_pos") else where
                if isinstance(k, str) and key in ("actions", "procedures", "triggers", "params", "with", "bounds",
                                                  "parts", "components", "zones", "variables", "options",
                                                  "variants", "index", "functions", "constants"):
                    yield k, kp
                if k in _WORDS or k in _LANGUAGE:
                    continue
                yield from walk(v, k, kp)
        elif isinstance(value, list):
            for i, v in enumerate(value):
                yield from walk(v, key, value.pos_of(i) if hasattr(value, "pos_of") else where)
        elif isinstance(value, str):
            for name, offset in _idents(value, key in _TEXTS):
                yield name, _at(value, offset, where)

    for section in RULE_SECTIONS + DECLARING:
        if section in source.sections:
            yield from walk(source.sections[section], section, source.section_pos.get(section, fallback))
    enums = source.sections.get("enums")
    if isinstance(enums, dict):
        for name, symbols in enums.items():
            yield name, enums.key_pos.get(name, fallback)
            if isinstance(symbols, list):
                for i, sym in enumerate(symbols):
                    yield str(sym), symbols.pos_of(i)


def unnamed(source, game) -> Iterator[Diagnostic]:
    """RW274 (a warning): each name a rules document would print raw (no words of its own), once,
    where it is first used; RW254 (an error): a ``display: names:`` entry that names nothing the
    rulebook uses.  Only in a rulebook drawn for people (one with a ``display:`` section)."""
    display = source.sections.get("display")
    if not isinstance(display, dict):
        return
    from ..run.stdlib import BUILTINS
    words = display_words(display)
    plain = plain_constants(source)
    order = {f: i for i, f in enumerate(source.files)}
    first: dict = {}
    for name, pos in used_names(source):
        key = (order.get(pos.file, len(order)), pos.line, pos.col)
        if name not in first or key < first[name][0]:
            first[name] = (key, pos)
    seen = set(first)
    for name, (_, pos) in sorted(first.items(), key=lambda item: item[1][0]):
        if name in words or name in plain or not needs_words(name, BUILTINS):
            continue
        yield Diagnostic(pos, f"'{name}' has no words of its own: a rules document (regelwerk rules) would print "
                              f"it as '{name.replace('_', ' ')}'; name it in display: names: (or titles:)",
                         WARNING, "RW274")
    names = display.get("names")
    if isinstance(names, dict):
        for key in names:
            if str(key) not in seen and str(key) not in game.constants:
                yield Diagnostic(names.key_pos.get(key, display.pos), f"display: names names '{key}', which no "
                                                                        f"rule or declaration uses", ERROR, "RW254")
