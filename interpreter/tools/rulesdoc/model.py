"""What a rules document holds, before it is written as HTML or Markdown.

A document is a list of sections; a section holds blocks: paragraphs, tables and lists of
rules.  Every rule (a :class:`Line`) carries the place in the rulebook it was read from, so
that each sentence links back to its ``file:line``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Source:
    """A place in the rulebook: the file (a path) and the line."""
    path: Path
    line: int
    label: str                 # as shown: the file inside the rulebook folder and the line, "actions.yaml:24"


@dataclass
class Line:
    """One rule as a sentence, with what it was read from and the rules it holds (a loop's body …)."""
    text: str
    src: Source | None
    kind: str                  # a step kind ("move", "if" …) or "action", "trigger", "procedure", "part" …
    children: list = field(default_factory=list)
    #: a short bold lead ("Build", "As soon as …") before the text
    lead: str | None = None


@dataclass
class Para:
    text: str
    src: Source | None = None


@dataclass
class Rules:
    """A list of rules (numbered where the order matters)."""
    lines: list
    ordered: bool = True


@dataclass
class Table:
    caption: str
    headers: list
    rows: list                 # [[cell text, …]]
    srcs: list                 # a Source (or None) per row
    kinds: list = field(default_factory=list)   # a kind per row ("part", "component" …)
    #: the pictures of each row (data: URLs), shown in the first column
    pictures: list = field(default_factory=list)


@dataclass
class Sub:
    """A titled part of a section (one action, one trigger …)."""
    title: str
    blocks: list
    anchor: str | None = None


@dataclass
class Section:
    key: str                   # "game", "components", "setup", "flow", "actions", "triggers", "scoring", "end",
    #                            "options", "visibility"
    title: str
    blocks: list = field(default_factory=list)


@dataclass
class Document:
    title: str
    subtitle: str
    sections: list
    root: Path                 # the rulebook folder


def lines_of(doc: Document):
    """Every Line of the document, depth first (for tests and tools)."""
    def walk(blocks):
        for b in blocks:
            if isinstance(b, Rules):
                stack = list(reversed(b.lines))
                while stack:
                    line = stack.pop()
                    yield line
                    stack.extend(reversed(line.children))
            elif isinstance(b, Sub):
                yield from walk(b.blocks)
    for s in doc.sections:
        yield from walk(s.blocks)
