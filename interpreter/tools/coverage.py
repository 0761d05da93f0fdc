"""Rule coverage: which rules do a rulebook's scenarios exercise?

``regelwerk coverage RULEBOOK`` loads the rulebook with a :class:`Recorder`
compiled in (``Rulebook.load(path, coverage=recorder)``), runs every scenario
of the rulebook and reports, per file and line:

* **steps** — every step of setup, flow, scoring, actions, procedures and
  triggers: run or not;
* **branches** — each ``if`` (then and else/skip taken), each ``decide``
  with ``otherwise`` (a decision offered, and the otherwise block), each
  action's ``where:`` and each trigger's ``when:`` (seen true and seen false);
* **table rows** — every row of every table: read or not;
* **triggers** — fired or not;
* **actions** — taken or not, and the values each parameter took.

Only a rulebook loaded with a recorder is instrumented (the compiler calls
:meth:`Recorder.instrument` at the end, and wraps table lookups while
compiling); normal play compiles exactly as before and pays nothing.

A line may carry ``# coverage: ignore <reason>``: what is on it is listed as
an exception with its reason instead of as uncovered.
"""
from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from dsl.yamlload import LDict, LList, LStr

from ..game import STEP_KINDS
from ..game import format_value

from .coverage_html import NAMES, label

__all__ = ["Recorder", "Point", "CoverageReport", "measure", "format_text", "format_json", "cmd_coverage",
           "add_parser", "step_spans"]

IGNORE = re.compile(r"#\s*coverage:\s*ignore\b\s*(.*)$")


@dataclass
class Point:
    """One thing a scenario can exercise, at a place in the rulebook."""

    file: str
    line: int
    col: int
    kind: str          # step, branch, row, trigger, action
    what: str          # a short description: the step kind, "if … (else)", "table t: 3-5", …
    hits: int = 0
    #: for actions: parameter -> values seen (formatted)
    values: dict = field(default_factory=dict)

    @property
    def key(self):
        return (self.file, self.line, self.col, self.kind, self.what)


def _pkey(pos):
    return (pos.file, pos.line, pos.col)


def _max_line(value, line: int) -> int:
    """The last line a YAML value reaches (for a step: where it ends)."""
    for p in ("pos",):
        pos = getattr(value, p, None)
        if pos is not None:
            line = max(line, pos.line)
    if isinstance(value, LStr):
        for _, ln, _ in getattr(value, "_points", ()) or ():
            line = max(line, ln)
    if isinstance(value, LDict):
        for k, v in value.items():
            for table in (value.key_pos, value.val_pos):
                if k in table:
                    line = max(line, table[k].line)
            line = _max_line(v, line)
    elif isinstance(value, LList):
        for i, v in enumerate(value):
            line = max(line, value.pos_of(i).line)
            line = _max_line(v, line)
    return line


def step_spans(source) -> list:
    """Every step written in a rulebook: ``(pos, kind, step mapping, last line)``, in file order."""
    found = []

    def walk(value):
        if isinstance(value, LList):
            for i, item in enumerate(value):
                if isinstance(item, LDict):
                    kind = next((k for k in item if k in STEP_KINDS), None)
                    if kind is not None:
                        pos = value.pos_of(i)
                        found.append((pos, kind, item, _max_line(item, pos.line)))
                walk(item)
        elif isinstance(value, LDict):
            for v in value.values():
                walk(v)

    for name in ("setup", "flow", "end", "actions", "procedures", "triggers"):
        walk(source.sections.get(name))
    found.sort(key=lambda s: _pkey(s[0]))
    return found


class Recorder:
    """Records what runs; compiled into a rulebook by ``Rulebook.load(path, coverage=Recorder())``."""

    def __init__(self):
        self.points: dict = {}        # key -> Point
        self.scenarios: list = []     # ScenarioResult

    def _point(self, pos, kind, what) -> Point:
        p = Point(pos.file, pos.line, pos.col, kind, what)
        return self.points.setdefault(p.key, p)

    # --- compile-time hooks ---------------------------------------------------------
    def table(self, decl, lookup):
        """Wrap a table's lookup so that each row read is counted (called by the compiler)."""
        rows = []
        for lo, hi, _, kpos in decl.ranges:
            text = f"{lo}" if lo == hi else (f"{lo}+" if hi is None else f"{lo}-{hi}")
            rows.append((lo, hi, self._point(kpos, "row", f"table {decl.name}: row {text}")))
        exact = {}
        table_pos = decl.pos
        for sym in decl.exact:
            exact[sym] = self._point(table_pos, "row", f"table {decl.name}: row {sym}")

        def recording(key):
            value = lookup(key)
            if key in exact:
                exact[key].hits += 1
            else:
                for lo, hi, point in rows:
                    if key >= lo and (hi is None or key <= hi):
                        point.hits += 1
                        break
            return value
        return recording

    def instrument(self, game, source) -> None:
        """Wrap every instruction of ``game`` (a freshly compiled GameDef) to record what runs."""
        spans = step_spans(source)
        by_file = defaultdict(list)
        for pos, kind, step, last in spans:
            point = self._point(pos, "step", kind)
            by_file[pos.file].append((pos, kind, step, last, point))
        branch_of = {}
        for pos, kind, step, last in spans:
            if kind == "if":
                cond = str(step.get("if"))
                branch_of[_pkey(pos)] = ("if", self._point(pos, "branch", f"if {cond}: then"),
                                         self._point(pos, "branch", f"if {cond}: " +
                                                     ("else" if "else" in step else "not taken (false)")))
            elif kind == "decide" and "otherwise" in step:
                branch_of[_pkey(pos)] = ("decide", self._point(pos, "branch", "decide: a decision offered"),
                                         self._point(pos, "branch", "decide: otherwise (nothing legal)"))

        def step_at(pos):
            best = None
            for spos, kind, step, last, point in by_file.get(pos.file, ()):
                if _pkey(spos) > _pkey(pos):
                    break
                if pos.line <= last:
                    best = point
            return best

        actions = {a.proc.name: a for a in list(game.actions.values()) + list(game.inline_actions.values())}
        triggers = {t.proc.name: t for t in game.triggers}
        for name, proc in game.all_procs.items():
            seen_first = set()
            for pc, ins in enumerate(proc.code):
                pos = proc.pos_at(pc)
                point = step_at(pos)
                branch = None
                if _pkey(pos) in branch_of and _pkey(pos) not in seen_first:
                    branch = branch_of[_pkey(pos)]
                seen_first.add(_pkey(pos))
                proc.code[pc] = _wrap(ins, point, branch)
            action = actions.get(name)
            if action is not None:
                apoint = self._point(action.pos, "action", f"action {action.name}")
                proc.code[0] = _wrap_action(proc.code[0], apoint, action)
                if action.where is not None and action.where_pos is not None:
                    action.where = _wrap_cond(action.where,
                                              self._point(action.where_pos, "branch", f"{action.name} where: true"),
                                              self._point(action.where_pos, "branch", f"{action.name} where: false"))
            trig = triggers.get(name)
            if trig is not None:
                tpoint = self._point(trig.pos, "trigger", f"trigger {trig.name} fired")
                if proc.code:
                    proc.code[0] = _wrap(proc.code[0], tpoint, None)
                if trig.when is not None:
                    trig.when = _wrap_cond(trig.when, self._point(trig.pos, "branch", f"{trig.name} when: true"),
                                           self._point(trig.pos, "branch", f"{trig.name} when: false"))


def _wrap(ins, point, branch):
    if branch is None:
        if point is None:
            return ins

        def counted(st, fr):
            point.hits += 1
            return ins(st, fr)
        return counted
    kind, first, second = branch

    if kind == "if":
        def branch_if(st, fr):
            if point is not None:
                point.hits += 1
            pc = fr.pc
            result = ins(st, fr)
            (first if fr.pc == pc else second).hits += 1
            return result
        return branch_if

    def branch_decide(st, fr):
        if point is not None:
            point.hits += 1
        result = ins(st, fr)
        (first if result else second).hits += 1
        return result
    return branch_decide


def _wrap_action(ins, point, action):
    params = [(p.name, p.slot) for p in action.params]

    def taken(st, fr):
        point.hits += 1
        for name, slot in params:
            point.values.setdefault(name, set()).add(format_value(fr.L[slot]))
        return ins(st, fr)
    return taken


def _wrap_cond(fn, yes, no):
    def cond(st, L):
        value = fn(st, L)
        (yes if value else no).hits += 1
        return value
    return cond


# --- measuring ------------------------------------------------------------------------
@dataclass
class CoverageReport:
    rulebook: str
    points: list                  # Point, in file order
    scenarios: list               # ScenarioResult
    ignored: dict = field(default_factory=dict)   # point key -> reason

    def summary(self) -> dict:
        out = {}
        for kind in ("step", "branch", "row", "trigger", "action"):
            pts = [p for p in self.points if p.kind == kind]
            out[kind] = {"total": len(pts), "covered": sum(1 for p in pts if p.hits),
                         "excepted": sum(1 for p in pts if not p.hits and p.key in self.ignored)}
        return out

    def uncovered(self) -> list:
        return [p for p in self.points if not p.hits and p.key not in self.ignored]


def measure(path) -> CoverageReport:
    """Run the scenarios of the rulebook at ``path`` with a recorder compiled in."""
    from ..game import Rulebook
    from .scenarios import ScenarioRunner, find_scenarios
    recorder = Recorder()
    rb = Rulebook.load(path, coverage=recorder)
    results = [ScenarioRunner(rb, file).run() for _, file in find_scenarios([path])]
    points = sorted(recorder.points.values(), key=lambda p: (p.file, p.line, p.col, p.kind, p.what))
    ignored = {}
    lines_of = {}
    for p in points:
        if p.file not in lines_of:
            try:
                lines_of[p.file] = Path(p.file).read_text(encoding="utf-8").splitlines()
            except OSError:
                lines_of[p.file] = []
        lines = lines_of[p.file]
        if 0 < p.line <= len(lines):
            m = IGNORE.search(lines[p.line - 1])
            if m:
                ignored[p.key] = m.group(1).strip() or "(no reason given)"
    report = CoverageReport(str(path), points, results, ignored)
    report.lines = lines_of
    return report


_NAMES = NAMES


def format_text(report: CoverageReport) -> str:
    out = []
    summary = report.summary()
    failed = [r for r in report.scenarios if not r.ok]
    parts = []
    for kind, s in summary.items():
        if s["total"]:
            pct = 100.0 * s["covered"] / s["total"]
            extra = f", {s['excepted']} excepted" if s["excepted"] else ""
            parts.append(f"{s['covered']}/{s['total']} {_NAMES[kind]} ({pct:.0f}%{extra})")
    out.append(f"{report.rulebook}: {len(report.scenarios)} scenarios"
               + (f" ({len(failed)} failed)" if failed else "") + ": " + ", ".join(parts))
    lines = getattr(report, "lines", {})
    for p in report.points:
        if p.hits:
            continue
        text = ""
        src = lines.get(p.file) or []
        if 0 < p.line <= len(src):
            text = src[p.line - 1].strip()
        if p.key in report.ignored:
            out.append(f"{p.file}:{p.line}:{p.col}: excepted: {_label(p)}: {report.ignored[p.key]}")
        else:
            out.append(f"{p.file}:{p.line}:{p.col}: not covered: {_label(p)}" + (f"  | {text}" if text else ""))
    for r in failed:
        out.append(r.line())
    return "\n".join(out)


_label = label


def format_json(report: CoverageReport) -> str:
    files: dict = {}
    for p in report.points:
        item = {"line": p.line, "col": p.col, "kind": p.kind, "what": p.what, "hits": p.hits}
        if p.values:
            item["values"] = {k: sorted(v) for k, v in p.values.items()}
        if p.key in report.ignored:
            item["excepted"] = report.ignored[p.key]
        files.setdefault(p.file, []).append(item)
    return json.dumps({"rulebook": report.rulebook, "summary": report.summary(),
                       "scenarios": [{"name": r.name, "file": r.file, "ok": r.ok} for r in report.scenarios],
                       "files": files}, indent=2)
