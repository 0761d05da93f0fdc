"""Draw a view (:mod:`.model`) in the terminal with rich."""
from __future__ import annotations

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from dsl.diagnostics import printable

from ...game import words

#: a zone with more components than this is drawn as counts per label
SPELL_OUT = 8


def _comp(c) -> Text:
    """A component by its label; one whose kind has a look (`display: components:`) as it reads
    everywhere: its colours' glyphs and its text ("RY4")."""
    color = c.get("color")
    return Text(c["short"] if "face" in c else c["label"], style=f"bold {color}" if color else "bold")


def zone_text(cell, compact: bool = False) -> Text:
    """A zone's contents: labels (coloured), counts when many, a count when hidden."""
    if cell is None:
        return Text("")
    if cell["hidden"]:
        if compact:
            return Text("?" if cell["count"] == 1 else f"{cell['count']}?", style="dim")
        return Text(f"{cell['count']} hidden", style="dim italic")
    comps = cell["components"]
    if not comps:
        sp = cell.get("space")
        if sp and (sp.get("glyph") or sp.get("text")):      # what is printed on the empty space
            return Text(sp.get("text") or sp["glyph"].lower(), style=sp.get("color") or "dim")
        return Text("·", style="dim")
    if compact:
        out = Text()
        sep = " " if any(len(c.get("short") or c["label"]) > 1 for c in comps) else ""
        for i, c in enumerate(comps):
            color = c.get("color")
            if i and sep:
                out.append(sep)
            out.append(c.get("short") or c["label"], style=f"bold {color}" if color else "bold")
        return out
    out = Text()
    if len(comps) > SPELL_OUT:
        counts: dict = {}
        for c in comps:
            counts.setdefault(c["label"], [c, 0])[1] += 1
        for i, (c, n) in enumerate(counts.values()):
            if i:
                out.append(" ")
            out.append(f"{n}×")
            out.append_text(_comp(c))
        return out
    for i, c in enumerate(comps):
        if i:
            out.append(" ")
        out.append_text(_comp(c))
    return out


def family_renderable(fam):
    title = Text(fam.get("title") or fam["name"], style="bold underline")
    shape = fam["shape"]
    if shape == "single":
        line = Text.assemble(title, ": ", zone_text(fam["zone"]))
        return line
    if shape in ("row", "list"):
        zones = fam["zones"]
        if not zones:
            return Text.assemble(title, ": —")
        line = Text.assemble(title, "")
        rows = Table.grid(padding=(0, 1))
        rows.add_column(justify="right", style="dim")
        rows.add_column()
        for z in zones:
            rows.add_row(Text(", ".join(z["at"])), zone_text(z))
        return Group(line, rows)
    # grid
    t = Table(show_header=True, header_style="dim", box=None, padding=(0, 1), pad_edge=False)
    t.add_column(Text(f"{_axis(fam, fam['row_index'])}\\{_axis(fam, fam['column_index'])}"), style="dim", justify="right")
    for c in fam["columns"]:
        t.add_column(Text(str(c)), justify="center")
    rows, cells = fam["rows"], fam["cells"]
    flip = fam.get("flip_rows", False)
    keep = trimmed_rows(cells[::-1] if flip else cells)
    shown = range(len(rows) - keep, len(rows)) if flip else range(keep)
    if flip and keep < len(rows):
        t.add_row(Text("…"), Text(f"{_axis(fam, fam['row_index'])} {rows[0]}–{rows[len(rows) - keep - 1]} empty", style="dim"))
    for i in shown:
        t.add_row(Text(str(rows[i])), *[zone_text(cell, compact=True) if cell is not None else Text(" ") for cell in cells[i]])
    if not flip and keep < len(rows):
        t.add_row(Text("…"), Text(f"{_axis(fam, fam['row_index'])} {rows[keep]}–{rows[-1]} empty", style="dim"))
    return Group(title, t)


def trimmed_rows(cells, spare: int = 1) -> int:
    """How many rows of a grid to draw: up to the last row with something in it, plus ``spare``
    (a long run of empty rows at the end says nothing)."""
    last = -1
    for i, row in enumerate(cells):
        if any(c is not None and c["count"] for c in row):
            last = i
    keep = max(last + 1 + spare, min(len(cells), 5))
    return min(len(cells), keep) if len(cells) - keep > 2 else len(cells)


def header_text(view) -> Text:
    parts = [Text(view["game"], style="bold")]
    if view.get("round") is not None:
        parts.append(Text(f"{view['round_name']} {view['round']}"))
    if view.get("phase"):
        parts.append(Text(f"phase {view['phase']}"))
    if view["status"] == "over":
        parts.append(Text("game over", style="bold red"))
    elif view.get("to_move_name"):
        parts.append(Text(f"{view['to_move_name']} to decide", style="bold green"))
    out = Text()
    for i, p in enumerate(parts):
        if i:
            out.append(" · ", style="dim")
        out.append_text(p)
    return out


def clean(value):
    """A view with every text's control characters made visible (printable): a rulebook's
    names and labels never drive the terminal; they are given to rich as Text, never as markup."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


def track_text(track) -> Text:
    """A score track in one line: its title and span, then each seat's value (and the space its marker
    stands on, when the value went round the track)."""
    last = track["start"] + track["length"] - 1
    out = Text(f"{track['title']} ({track['start']}–{last}):", style="cyan")
    for i, m in enumerate(track["markers"]):
        out.append(" · " if i else " ")
        out.append(f"{m['name']} {m['value']}", style=m.get("color") or "")
        if m["laps"]:
            out.append(f" (space {m['space']}, round {m['laps'] + 1})", style="dim")
    return out


def view_renderable(view):
    """The whole view: header, shared variables and families, one panel per player."""
    view = clean(view)
    items = [header_text(view)]
    if view["variables"]:
        items.append(Text("  ".join(_variable(v) for v in view["variables"]), style="cyan"))
    for track in view.get("score_tracks") or []:
        items.append(track_text(track))
    for fam in view["shared"]:
        items.append(family_renderable(fam))
    for p in view["players"]:
        body = []
        if p["variables"]:
            body.append(Text("  ".join(_variable(v) for v in p["variables"]), style="cyan"))
        for fam in p["families"]:
            body.append(family_renderable(fam))
        title = p["name"] + (" (you)" if p["is_viewer"] else "") + (" ◀ to decide" if p["to_move"] else "")
        seat_color = (view.get("seat_colors") or [None] * (p["seat"] + 1))[p["seat"]]
        items.append(Panel(Group(*body), title=Text(title, style=f"bold {seat_color}" if seat_color else ""),
                           title_align="left", border_style="green" if p["to_move"] else "dim"))
    if "scores" in view:
        ranks = Table(title="final scores", box=None)
        ranks.add_column("place")
        ranks.add_column("seat")
        parts = view.get("score_parts") or []
        names = [n for n, _ in parts[0]] if parts and parts[0] else []
        for n in names:
            ranks.add_column(n, justify="right", style="dim")
        ranks.add_column("score", justify="right")
        for s in sorted(range(len(view["scores"])), key=lambda s: view["ranking"][s]):
            row = [str(v) for _, v in parts[s]] if names else []
            ranks.add_row(str(view["ranking"][s]), Text(view["seats"][s]), *row, str(view["scores"][s]))
        items.append(ranks)
    return Group(*items)


def actions_renderable(view):
    """The legal actions, numbered from 1 and grouped by action, each as its sentence."""
    view = clean(view)
    t = Table.grid(padding=(0, 1))
    t.add_column(justify="right", style="bold yellow")
    t.add_column()
    n = 0
    for group in view["actions"]:
        t.add_row("", Text(group.get("title") or group["action"], style="bold"))
        for o in group["options"]:
            n += 1
            t.add_row(str(n), Text(o.get("say") or o["id"]))
    return t


def _variable(v) -> str:
    """A variable (or a `display: facts:` function) as ``title: value`` in the rulebook's words
    (`display: titles:`, a fact's title), else ``name=value``."""
    title = v.get("title")
    if title and title != words(v["name"]):
        return f"{title}: {v['value']}"
    return f"{v['name']}={v['value']}"


def numbered_actions(view) -> list:
    """The legal action ids in the order :func:`actions_renderable` numbers them."""
    return [o["id"] for g in view["actions"] for o in g["options"]]


def _axis(fam, index: str) -> str:
    """An index of a family in the game's words (`titles: {board.s: star}`)."""
    return (fam.get("index_titles") or {}).get(index) or index.replace("_", " ")
