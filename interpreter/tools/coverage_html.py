"""``regelwerk coverage RULEBOOK --html FILE``: the rulebook's files as one page a designer
reads — every line with what the scenarios exercised on it (steps, branches, table rows,
triggers, actions: covered, not covered, excepted) and, from a ``regelwerk mutate --state``
file, the mutants that survived at that line.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

__all__ = ["format_html", "survivors_from_state", "NAMES", "label"]

#: what each kind of point is called in a summary (also coverage.format_text's)
NAMES = {"step": "steps", "branch": "branches", "row": "table rows", "trigger": "triggers fired",
         "action": "actions taken"}


def label(p) -> str:
    """A point of coverage.py named for a reader: "set step", "if n == 3 (else)", …"""
    if p.kind == "step":
        return f"{p.what} step"
    return p.what

_STYLE = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 2em; }
table.src { border-collapse: collapse; font-family: monospace; font-size: 13px; width: 100%; }
table.src td { padding: 0 .5em; vertical-align: top; white-space: pre-wrap; }
td.n { color: #888; text-align: right; user-select: none; width: 3em; }
tr.covered td.code { background: #e6f4e6; } tr.partly td.code { background: #fff4cc; }
tr.uncovered td.code { background: #fadcdc; } tr.excepted td.code { background: #eeeeee; }
td.notes { color: #444; font-family: sans-serif; font-size: 12px; width: 40%; }
.miss { color: #a00; } .hit { color: #060; } .exc { color: #666; } .mut { color: #a0a; font-weight: bold; }
.legend span { padding: 0 .6em; margin-right: .5em; }
"""


def survivors_from_state(path) -> dict:
    """(file relative to the rulebook, line) -> ["before → after", …] of the mutants a
    ``regelwerk mutate --state`` file records as survived (wrong marks included)."""
    out: dict = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if rec.get("stage") != "survived":
            continue
        file, line_no, _col, kind, rest = str(rec.get("id", "")).split(":", 4)
        if not line_no.isdigit():
            continue
        before, _, after = rest.partition("→")
        note = f"{kind}: {before} → {after}" + (" (wrong mark)" if rec.get("mark") == "wrong" else "")
        out.setdefault((file, int(line_no)), []).append(note)
    return out


def format_html(report, survivors: dict | None = None) -> str:
    """The page for a coverage.CoverageReport; ``survivors`` as survivors_from_state gives them."""
    root = Path(report.rulebook)
    root = root.parent if root.is_file() else root
    survivors = survivors or {}
    by_line: dict = {}
    for p in report.points:
        by_line.setdefault((str(Path(p.file).resolve()), p.line), []).append(p)
    files = sorted(root.glob("*.yaml"))
    summary = report.summary()
    head = ", ".join(f"{s['covered']}/{s['total']} {NAMES[k]}" + (f" ({s['excepted']} excepted)" if s["excepted"] else "")
                     for k, s in summary.items() if s["total"])
    failed = [r for r in report.scenarios if not r.ok]
    alive = sum(len(v) for v in survivors.values())
    out = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'>",
           f"<title>Coverage: {html.escape(report.rulebook)}</title><style>{_STYLE}</style></head><body>",
           f"<h1>{html.escape(report.rulebook)}: what the scenarios exercise</h1>",
           f"<p>{len(report.scenarios)} scenarios" + (f" ({len(failed)} failed)" if failed else "") + f": {html.escape(head)}"
           + (f"; {alive} surviving mutants shown at their lines" if survivors else "") + "</p>",
           "<p class='legend'><span class='hit' style='background:#e6f4e6'>all covered</span>"
           "<span style='background:#fff4cc'>partly</span><span class='miss' style='background:#fadcdc'>not covered</span>"
           "<span class='exc' style='background:#eee'>excepted</span><span class='mut'>● surviving mutant</span></p>"]
    out.append("<ul>" + "".join(f"<li><a href='#{html.escape(f.name)}'>{html.escape(f.name)}</a></li>" for f in files)
               + "</ul>")
    for f in files:
        rel = f.name
        out.append(f"<h2 id='{html.escape(rel)}'>{html.escape(rel)}</h2><table class='src'>")
        for i, text in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            points = by_line.get((str(f.resolve()), i), [])
            notes = []
            states = set()
            for p in points:
                if p.hits:
                    states.add("covered")
                    notes.append(f"<span class='hit'>✓ {html.escape(label(p))}</span>")
                elif p.key in report.ignored:
                    states.add("excepted")
                    notes.append(f"<span class='exc'>excepted: {html.escape(label(p))}: "
                                 f"{html.escape(report.ignored[p.key])}</span>")
                else:
                    states.add("uncovered")
                    notes.append(f"<span class='miss'>✗ not covered: {html.escape(label(p))}</span>")
            for m in survivors.get((rel, i), []):
                notes.append(f"<span class='mut'>● survived: {html.escape(m)}</span>")
            if not states:
                cls = ""
            elif states == {"covered"}:
                cls = "covered"
            elif "covered" in states:
                cls = "partly"
            elif "uncovered" in states:
                cls = "uncovered"
            else:
                cls = "excepted"
            out.append(f"<tr class='{cls}'><td class='n'>{i}</td><td class='code'>{html.escape(text)}</td>"
                       f"<td class='notes'>{'<br>'.join(notes)}</td></tr>")
        out.append("</table>")
    out.append("</body></html>")
    return "\n".join(out)
