"""Choices in words: an action's ``say:`` template, read once, checked by ``regelwerk validate``.

The ``display:`` section gives each action a sentence with its parameters in
braces (beside the other drawing hints, so the rules' files and their line
numbers stay as they are)::

    display:
      say:
        take_row: "Take all {color} cards from row {row_no}"
        build: "Build {n:wall}[ ({towers:tower})], paying [{wood} wood][{ore} ore][{grain} grain|nothing]"

``{name}`` is the value of parameter ``name`` (or ``player``, the seat that
decides) in words: a number as it is, a symbol with spaces for underscores,
a seat by its name, a component by its label, a list as "a, b and c".
``{name:noun}`` writes a count and a noun ("1 stone", "3 stones";
``{name:child/children}`` for an irregular plural).  A part in ``[brackets]``
is left out when a parameter in it is 0, false, none or empty; parts in
brackets written one right after the other are a list: those kept are
joined as "a, b and c", and ``[...|instead]`` says what to write when every
part of the list is left out.  ``{{``, ``}}``, ``[[``, ``]]`` and ``||``
write a brace, a bracket or a bar.  Brackets nest at most LIMITS.depth (100)
deep: deeper is RW251 at the bracket (rendering recurses once per level).

Sentences are made from action ids (the parameters' values as written in
the id), so the page, the terminal and the story say the same thing; a
value another seat may not know (``…`` in its id) stays ``…``.  A template
never changes what happens: it is read only here.

:func:`check_say` yields every name in a template that is no parameter
(RW251, located at the name), a template that does not parse (RW251) and,
in a rulebook that has a ``display:`` section (it is drawn for people), every
action without a ``say:`` (RW252, a warning).  A template serves every action
of its name (inline actions of one name share it).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from dsl.diagnostics import Diagnostic, ERROR, WARNING

from ..compile import types as T
from ..run.limits import LIMITS

_EMPTY = {"0", "false", "none", "[]", "()", ""}
_NAME = re.compile(r"[A-Za-z_]\w*\Z")


class TemplateError(ValueError):
    def __init__(self, offset: int, message: str):
        super().__init__(message)
        self.offset = offset


@dataclass
class Opt:
    """A ``[...]`` part: left out when a parameter in it is empty; ``alt``: what ``|`` says instead."""
    parts: list
    alt: list | None = None


@dataclass
class Slot:
    name: str
    offset: int                     # where the name starts in the template
    noun: tuple | None = None       # (singular, plural) for {name:noun}


def parse_template(text: str) -> list:
    """The parts of a template: strings, :class:`Slot` and :class:`Opt` (a ``[...]`` part).
    Raises :class:`TemplateError` (with the offset of the problem)."""
    stack: list = [[]]
    opened: list = []              # (offset, Opt) of the open brackets
    i, n = 0, len(text)
    buf = []

    def flush():
        if buf:
            stack[-1].append("".join(buf))
            buf.clear()

    while i < n:
        ch = text[i]
        if ch in "{}[]|" and i + 1 < n and text[i + 1] == ch:
            buf.append(ch)
            i += 2
            continue
        if ch == "{":
            end = text.find("}", i)
            if end < 0:
                raise TemplateError(i, "a '{' without its '}'")
            inner = text[i + 1:end]
            name, _, noun = inner.partition(":")
            name = name.strip()
            if not _NAME.match(name):
                raise TemplateError(i + 1, f"'{{{inner}}}' names no parameter (write {{name}} or {{name:noun}})")
            slot = Slot(name, i + 1 + (len(inner) - len(inner.lstrip())))
            if noun.strip():
                one, _, many = noun.strip().partition("/")
                slot.noun = (one.strip(), many.strip() or _plural(one.strip()))
            flush()
            stack[-1].append(slot)
            i = end + 1
            continue
        if ch == "}":
            raise TemplateError(i, "a '}' without its '{' (write }} for a brace)")
        if ch == "[":
            if len(opened) >= LIMITS.depth:     # _render and slots recurse once per level
                raise TemplateError(i, f"[brackets] nested more than {LIMITS.depth} deep (limit 'depth')")
            flush()
            opt = Opt([])
            stack[-1].append(opt)
            stack.append(opt.parts)
            opened.append((i, opt))
            i += 1
            continue
        if ch == "|":
            if not opened or opened[-1][1].alt is not None:
                raise TemplateError(i, "a '|' outside [brackets] (write || for a bar)")
            flush()
            stack.pop()
            opened[-1][1].alt = []
            stack.append(opened[-1][1].alt)
            i += 1
            continue
        if ch == "]":
            if not opened:
                raise TemplateError(i, "a ']' without its '[' (write ]] for a bracket)")
            flush()
            stack.pop()
            opened.pop()
            i += 1
            continue
        buf.append(ch)
        i += 1
    flush()
    if opened:
        raise TemplateError(opened[-1][0], "a '[' without its ']'")
    return stack[0]


def slots(parts) -> Iterator[Slot]:
    for p in parts:
        if isinstance(p, Slot):
            yield p
        elif isinstance(p, Opt):
            yield from slots(p.parts)
            yield from slots(p.alt or [])


def _plural(noun: str) -> str:
    if not noun:
        return noun
    if re.search(r"(s|x|z|ch|sh)$", noun):
        return noun + "es"
    if re.search(r"[^aeiou]y$", noun):
        return noun[:-1] + "ies"
    return noun + "s"


def words(text: str) -> str:
    """A symbol or label as words: ``no_milk`` -> ``no milk``."""
    return text.replace("_", " ")


def join_words(items: list) -> str:
    if not items:
        return "nothing"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def split_id(action_id: str, names: list) -> dict | None:
    """``take(f=3,c=red)`` with names [f, c] -> {"f": "3", "c": "red"} (values as written); None when
    the id is not one of an action with these parameters."""
    _, sep, rest = action_id.partition("(")
    if not names:
        return {} if not sep else None
    if not sep or not rest.endswith(")"):
        return None
    body = rest[:-1]
    out, at = {}, 0
    for i, pname in enumerate(names):
        key = pname + "="
        if not body.startswith(key, at):
            return None
        start = at + len(key)
        end = body.find("," + names[i + 1] + "=", start) if i + 1 < len(names) else len(body)
        if end < 0:
            return None
        out[pname] = body[start:end]
        at = end + 1
    return out


class Phrases:
    """The sentences of one game's actions (templates parsed once, sentences remembered)."""

    def __init__(self, game, seat_names, names: dict | None = None):
        self.game = game
        self.seat_names = list(seat_names)
        #: component label -> how it reads (`display: components: name:`); else its label in words
        self.names = names or {}
        from .display import symbol_names
        #: enum symbol -> how it reads (`display: symbols: <symbol>: name:`); else its name in words
        self.symbol_names = symbol_names(getattr(game, "display", None))
        self.decls: dict = {}        # action name -> [(ActionDecl, parts or None)]
        templates = says_of(game)
        parsed = {}
        for name, text in templates.items():
            try:
                parsed[name] = parse_template(str(text))
            except TemplateError:
                pass
        for a in list(game.actions.values()) + list(game.inline_actions.values()):
            self.decls.setdefault(a.name, []).append((a, parsed.get(a.name)))
        self._memo: dict = {}

    def has_say(self, name: str) -> bool:
        return any(parts is not None for _, parts in self.decls.get(name, ()))

    def sentence(self, action_id: str, seat: int | None = None) -> str:
        """How ``action_id`` (as a seat is told it: secret values ``…``) reads, chosen by ``seat``;
        without a template, the id itself (what a person can type)."""
        key = (action_id, seat)
        got = self._memo.get(key)
        if got is None:
            got = self._make(action_id, seat)
            if len(self._memo) < 200_000:
                self._memo[key] = got
        return got

    def _make(self, action_id: str, seat) -> str:
        name = action_id.partition("(")[0]
        for decl, parts in self.decls.get(name, ()):
            values = split_id(action_id, [p.name for p in decl.params])
            if values is None:
                if action_id.endswith("(…)") and decl.params:
                    values = {p.name: "…" for p in decl.params}
                else:
                    continue
            types = {p.name: p.type for p in decl.params}
            if seat is not None:
                values.setdefault("player", str(seat))
                types.setdefault("player", T.PLAYER)
            if parts is None:
                return action_id
            return _tidy(self._render(parts, values, types))
        return action_id

    def _render(self, parts, values, types) -> str:
        out = []
        i = 0
        while i < len(parts):
            p = parts[i]
            if isinstance(p, str):
                out.append(p)
            elif isinstance(p, Slot):
                out.append(self._slot(p, values, types))
            else:
                run = [p]                               # brackets one right after the other: a list
                while i + 1 < len(parts) and isinstance(parts[i + 1], Opt):
                    i += 1
                    run.append(parts[i])
                kept = [self._render(o.parts, values, types).strip() for o in run
                        if not any(values.get(s.name, "") in _EMPTY for s in slots(o.parts))]
                if kept:
                    out.append(join_words(kept) if len(run) > 1 else self._render(run[0].parts, values, types))
                else:
                    alt = next((o.alt for o in run if o.alt is not None), None)
                    if alt is not None:
                        out.append(self._render(alt, values, types))
            i += 1
        return "".join(out)

    def _slot(self, p: Slot, values, types) -> str:
        raw = values.get(p.name, "…")
        if p.noun is None:
            return self._value(raw, types.get(p.name))
        one, many = p.noun
        return f"{self._value(raw, types.get(p.name))} {one if raw == '1' else many}".rstrip()

    def _value(self, raw: str, typ) -> str:
        if typ == T.PLAYER and raw.isdigit() and int(raw) < len(self.seat_names):
            return self.seat_names[int(raw)]
        if raw == "true":
            return "yes"
        if raw == "false":
            return "no"
        if raw == "none":
            return "nothing"
        if len(raw) >= 2 and raw[0] in "[(" and raw[-1] in "])":
            inner = raw[1:-1]
            elem = typ.elem if isinstance(typ, T.ListT) else None
            return join_words([self._value(x, elem) for x in inner.split(",")] if inner else [])
        if isinstance(typ, T.Comp) and raw in self.names:
            return self.names[raw]
        if raw in self.symbol_names:
            return self.symbol_names[raw]
        return words(raw)


def _tidy(text: str) -> str:
    return re.sub(r"\s{2,}", " ", text).strip()


def says_of(game) -> dict:
    """action name -> its template as written (``display: say:``)."""
    d = game.display if isinstance(game.display, dict) else {}
    says = d.get("say")
    return {str(k): v for k, v in says.items() if isinstance(v, str)} if isinstance(says, dict) else {}


def check_say(source, game) -> Iterator[Diagnostic]:
    """Every template that names no action, names what is no parameter of its action, or does not
    parse (RW251), and, when the rulebook has a ``display:`` section, every action without a
    template (RW252)."""
    d = source.sections.get("display")
    if not isinstance(d, dict):
        return
    says = d.get("say") if isinstance(d.get("say"), dict) else {}
    decls: dict = {}
    for a in list(game.actions.values()) + list(game.inline_actions.values()):
        decls.setdefault(a.name, []).append(a)
    for name, text in says.items():
        if name not in decls:
            pos = says.key_pos.get(name) if hasattr(says, "key_pos") else None
            yield Diagnostic(pos or getattr(text, "pos", None) or source.section_pos.get("display"),
                             f"display: say: names '{name}', which is no action", ERROR, "RW251")
            continue
        if not isinstance(text, str):
            continue
        at = getattr(text, "pos_at", None)

        def pos(offset):
            return at(offset) if at is not None else says.pos_of(name)
        try:
            parts = parse_template(str(text))
        except TemplateError as exc:
            yield Diagnostic(pos(exc.offset), f"say: of '{name}': {exc}", ERROR, "RW251")
            continue
        for s in slots(parts):
            for a in decls[name]:
                names = [p.name for p in a.params]
                if s.name not in names and s.name != "player":
                    known = ", ".join(names + ["player"])
                    yield Diagnostic(pos(s.offset), f"say: of '{name}' names '{s.name}', which is no parameter "
                                                    f"of it (its parameters: {known})", ERROR, "RW251")
                    break
    seen = set()
    for a in list(game.actions.values()) + list(game.inline_actions.values()):
        if a.name in says or a.name in seen:
            continue
        seen.add(a.name)
        yield Diagnostic(a.pos, f"action '{a.name}' has no sentence in display: say: (how a choice of it "
                                f"reads, e.g. {a.name}: \"{_example(a)}\")", WARNING, "RW252")


def _example(a) -> str:
    if not a.params:
        return words(a.name).capitalize()
    return words(a.name).capitalize() + " " + " ".join("{" + p.name + "}" for p in a.params)


__all__ = ["Phrases", "TemplateError", "check_say", "parse_template", "says_of", "split_id"]
