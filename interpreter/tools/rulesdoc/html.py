"""A rules document as one self-contained HTML file that prints well (A4 and letter).

No script, no outside file: the style sheet is inline, pictures are ``data:`` addresses.  Every
rule is a list item with its kind (``data-kind``) and a link to the ``file:line`` it was read
from; tables have captions and header cells, the language is declared, colours keep a contrast
of at least 4.5:1 (axe-core's rules).
"""
from __future__ import annotations

import os
from html import escape
from pathlib import Path

from .model import Document, Para, Rules, Sub, Table

STYLE = """
:root { color-scheme: light; }
body { font: 11pt/1.45 Georgia, "Times New Roman", serif; color: #1a1a1a; background: #fff;
       max-width: 46rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 2rem; margin: 0 0 .2rem; }
h2 { font-size: 1.4rem; border-bottom: 1px solid #999; margin-top: 2rem; }
h3 { font-size: 1.1rem; margin: 1.2rem 0 .3rem; }
.subtitle { margin-top: 0; color: #404040; }
nav ol { columns: 2; padding-left: 1.4rem; }
ol.rules, ul.rules { padding-left: 1.4rem; }
ol.rules ol, ol.rules ul, ul.rules ol { padding-left: 1.2rem; }
li.rule { margin: .15rem 0; }
a { color: #1d4f91; }
a.src { font: 8pt/1 ui-monospace, "DejaVu Sans Mono", monospace; color: #505050; text-decoration: none;
        white-space: nowrap; margin-left: .3rem; }
a.src:hover, a.src:focus { text-decoration: underline; }
table { border-collapse: collapse; width: 100%; margin: .6rem 0 1rem; font-size: 10pt; }
caption { text-align: left; font-weight: bold; padding: .2rem 0; }
th, td { border: 1px solid #b3b3b3; padding: .25rem .4rem; vertical-align: top; text-align: left;
         overflow-wrap: anywhere; }
th { background: #eeeeee; }
tr > :last-child { width: 8.5rem; }
td img { max-width: 2.5rem; max-height: 2.5rem; vertical-align: middle; margin-right: .3rem; }
@page { margin: 16mm 14mm; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 10pt; }
  nav { break-after: page; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
  tr, li.rule, p { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  a { color: #1a1a1a; }
  a.src { color: #404040; }
}
"""


def _href(src, out_dir: Path) -> str:
    try:
        rel = os.path.relpath(src.path, out_dir)
    except ValueError:
        rel = str(src.path)
    return escape(Path(rel).as_posix(), quote=True)


class _Writer:
    def __init__(self, out_dir: Path):
        self.out_dir = out_dir
        self.parts: list = []

    def link(self, src) -> str:
        if src is None:
            return ""
        return (f' <a class="src" href="{_href(src, self.out_dir)}" '
                f'data-src="{escape(src.label, quote=True)}">{escape(src.label)}</a>')

    def rules(self, lines, ordered: bool) -> str:
        tag = "ol" if ordered else "ul"
        items = []
        for line in lines:
            lead = f"<strong>{escape(line.lead)}.</strong> " if line.lead else ""
            inner = self.rules(line.children, ordered) if line.children else ""
            src = f' data-src="{escape(line.src.label, quote=True)}"' if line.src else ""
            items.append(f'<li class="rule" data-kind="{escape(line.kind, quote=True)}"{src}>'
                         f'<span class="text">{lead}{escape(line.text)}</span>{self.link(line.src)}{inner}</li>')
        return f'<{tag} class="rules">' + "".join(items) + f"</{tag}>"

    def table(self, t: Table) -> str:
        head = "".join(f'<th scope="col">{escape(h)}</th>' for h in t.headers) + '<th scope="col">Source</th>'
        rows = []
        for i, row in enumerate(t.rows):
            kind = t.kinds[i] if i < len(t.kinds) else "row"
            pics = t.pictures[i] if i < len(t.pictures) else None
            cells = []
            for j, cell in enumerate(row):
                img = "".join(f'<img src="{escape(p, quote=True)}" alt="">' for p in pics or ()) if j == 0 else ""
                tag = "th" if j == 0 else "td"
                scope = ' scope="row"' if j == 0 else ""
                cells.append(f"<{tag}{scope}>{img}{escape(str(cell))}</{tag}>")
            src = t.srcs[i] if i < len(t.srcs) else None
            cells.append(f"<td>{self.link(src).strip()}</td>")
            data = f' data-src="{escape(src.label, quote=True)}"' if src else ""
            rows.append(f'<tr data-kind="{escape(kind, quote=True)}"{data}>' + "".join(cells) + "</tr>")
        return (f"<table><caption>{escape(t.caption)}</caption><thead><tr>{head}</tr></thead>"
                f"<tbody>{''.join(rows)}</tbody></table>")

    def blocks(self, blocks) -> str:
        out = []
        for b in blocks:
            if isinstance(b, Para):
                out.append(f"<p>{escape(b.text)}{self.link(b.src)}</p>")
            elif isinstance(b, Rules):
                out.append(self.rules(b.lines, b.ordered))
            elif isinstance(b, Table):
                out.append(self.table(b))
            elif isinstance(b, Sub):
                anchor = f' id="{escape(b.anchor, quote=True)}"' if b.anchor else ""
                out.append(f"<h3{anchor}>{escape(b.title)}</h3>" + self.blocks(b.blocks))
        return "".join(out)


def write_html(doc: Document, out_dir: Path) -> str:
    w = _Writer(Path(out_dir))
    nav = "".join(f'<li><a href="#{s.key}">{escape(s.title)}</a></li>' for s in doc.sections)
    body = "".join(f'<section id="{s.key}" aria-labelledby="h-{s.key}"><h2 id="h-{s.key}">{escape(s.title)}</h2>'
                   f"{w.blocks(s.blocks)}</section>" for s in doc.sections)
    title = escape(f"{doc.title}: the rules")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="generator" content="regelwerk rules"><title>{title}</title><style>{STYLE}</style></head>'
            f'<body><header><h1>{escape(doc.title)}</h1><p class="subtitle">The rules, {escape(doc.subtitle)}, '
            f'printed from the rulebook; each rule links to the file and line it was read from.</p></header>'
            f'<nav aria-label="Contents"><h2 id="contents">Contents</h2><ol>{nav}</ol></nav>'
            f"<main>{body}</main></body></html>\n")
