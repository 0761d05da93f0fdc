"""A rules document as Markdown (CommonMark with pipe tables), each rule linked to its file:line."""
from __future__ import annotations

import os
from pathlib import Path

from .model import Document, Para, Rules, Sub, Table


def _esc(text: str) -> str:
    return (str(text).replace("\\", "\\\\").replace("*", "\\*").replace("_", "\\_").replace("<", "&lt;")
            .replace("[", "\\[").replace("]", "\\]"))


def _cell(text: str) -> str:
    return _esc(text).replace("|", "\\|").replace("\n", " ")


class _Writer:
    def __init__(self, out_dir: Path):
        self.out_dir = out_dir

    def link(self, src) -> str:
        if src is None:
            return ""
        try:
            rel = os.path.relpath(src.path, self.out_dir)
        except ValueError:
            rel = str(src.path)
        return f" [{src.label}](<{Path(rel).as_posix()}>)"

    def rules(self, lines, ordered: bool, depth: int = 0) -> list:
        out = []
        for i, line in enumerate(lines, 1):
            mark = f"{i}." if ordered else "-"
            lead = f"**{_esc(line.lead)}.** " if line.lead else ""
            out.append("   " * depth + f"{mark} {lead}{_esc(line.text)}{self.link(line.src)}")
            out.extend(self.rules(line.children, ordered, depth + 1))
        return out

    def blocks(self, blocks, level: int) -> list:
        out = []
        for b in blocks:
            if isinstance(b, Para):
                out += [f"{_esc(b.text)}{self.link(b.src)}", ""]
            elif isinstance(b, Rules):
                out += self.rules(b.lines, b.ordered) + [""]
            elif isinstance(b, Table):
                out += [f"**{_esc(b.caption)}**", "",
                        "| " + " | ".join(_cell(h) for h in b.headers + ["Source"]) + " |",
                        "|" + "---|" * (len(b.headers) + 1)]
                for i, row in enumerate(b.rows):
                    src = self.link(b.srcs[i] if i < len(b.srcs) else None).strip()
                    out.append("| " + " | ".join(_cell(c) for c in row) + f" | {src} |")
                out.append("")
            elif isinstance(b, Sub):
                out += ["#" * level + " " + _esc(b.title), ""] + self.blocks(b.blocks, level + 1)
        return out


def write_markdown(doc: Document, out_dir: Path) -> str:
    w = _Writer(Path(out_dir))
    out = [f"# {_esc(doc.title)}", "", f"The rules, {_esc(doc.subtitle)}, printed from the rulebook; each rule "
                                       f"links to the file and line it was read from.", ""]
    for s in doc.sections:
        out += [f"## {_esc(s.title)}", ""] + w.blocks(s.blocks, 3)
    return "\n".join(out).rstrip() + "\n"
