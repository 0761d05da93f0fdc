"""A view drawn to fit a small terminal (80×24): the board in few lines, the choices as sentences.

:func:`compact_screen` lays a view (:mod:`.model`) out in at most ``height``
lines of ``width`` columns: a header, the shared zones one line each (a
grid one line per row), the viewer's own board, one line per other seat,
the glyphs' legend, the last lines of the story, and the numbered choices
in columns.  What does not fit goes, least useful first (the story, the
legend, the other seats' zones, then hidden piles); the choices always stay.
Components are written by their glyphs (coloured, so colour is never the
only signal); zone and variable names are written as words.
"""
from __future__ import annotations

from rich.text import Text

from ...game import words
from .steps import shape_lines
from .terminal import track_text, trimmed_rows

#: a zone with more components than this is written as counts per glyph
MANY = 6


def _comp(c) -> Text:
    color = c.get("color")
    return Text(c.get("short") or c["label"], style=f"bold {color}" if color else "bold")


def cell_text(cell) -> Text:
    """A zone's contents in glyphs: ``·`` empty, ``?``/``5?`` hidden, ``3×R`` when many."""
    if cell is None:
        return Text(" ")
    if cell["hidden"]:
        n = cell["count"]
        return Text("?" if n == 1 else f"{n}?", style="dim")
    comps = cell["components"]
    if not comps:
        sp = cell.get("space")
        if sp and (sp.get("glyph") or sp.get("text")):
            mark = sp.get("text") or sp["glyph"].lower()
            return Text(mark, style=f"{sp['color']}" if sp.get("color") else "dim")
        return Text("·", style="dim")
    out = Text()
    if len(comps) > MANY:
        counts: dict = {}
        for c in comps:
            counts.setdefault(c.get("short") or c["label"], [c, 0])[1] += 1
        for i, (c, n) in enumerate(counts.values()):
            if i:
                out.append(" ")
            out.append(f"{n}×")
            out.append_text(_comp(c))
        return out
    sep = " " if any(len(c.get("short") or c["label"]) > 1 for c in comps) else ""
    for i, c in enumerate(comps):
        if i and sep:
            out.append(sep)
        out.append_text(_comp(c))
    return out


def _fit(parts: list, width: int, indent: int = 2) -> list:
    """Text pieces joined by two spaces, wrapped into lines of ``width`` (continuations indented)."""
    lines, cur = [], Text()
    for p in parts:
        if cur.cell_len and cur.cell_len + 2 + p.cell_len > width:
            lines.append(cur)
            cur = Text(" " * indent)
        elif cur.cell_len and cur.plain.strip():
            cur.append("  ")
        cur.append_text(p)
    if cur.plain.strip():
        lines.append(cur)
    for line in lines:
        line.truncate(width, overflow="ellipsis")
    return lines


def _rows(fam):
    """The grid's rows worth drawing: a long run of empty rows at its open end is left out; with
    the words that say which ("row 6–62 empty", "" when none is)."""
    rows, cells = fam["rows"], fam["cells"]
    flip = fam.get("flip_rows", False)
    keep = trimmed_rows(cells[::-1] if flip else cells)
    idx = list(range(len(rows) - keep, len(rows))) if flip else list(range(keep))
    left = [r for i, r in enumerate(rows) if i not in set(idx)]
    if flip:
        left.reverse()
    said = f"{_axis(fam, fam['row_index'])} {words(str(left[0]))}–{words(str(left[-1]))} empty" if left else ""
    return [(rows[i], cells[i]) for i in idx], said


def family_lines(fam, width: int, mode: str = "grid") -> list:
    """A family in few lines: a single zone or a row of zones on one line (wrapped); a grid one line
    per row (``fold``: its rows side by side, wrapped; ``brief``: at most one line)."""
    name = Text((fam.get("title") or words(fam["name"])) + ":", style="bold")
    shape = fam["shape"]
    if shape == "single":
        return _fit([Text.assemble(name, " ", cell_text(fam["zone"]))], width)
    if shape in ("row", "list"):
        zones = fam["zones"]
        if not zones:
            return _fit([Text.assemble(name, " —")], width)
        parts = [name] + [Text.assemble(Text(words(",".join(z["at"])) + " ", style="dim"), cell_text(z))
                          for z in zones]
        lines = _fit(parts, width)
        return lines[:1] if mode == "brief" else lines
    shown, skipped = _rows(fam)
    if mode in ("fold", "brief"):
        parts = [name]
        for r, row in shown:
            line = Text(f"{words(str(r))}:", style="dim")
            texts = [cell_text(c) for c in row if c is not None]
            sep = " | " if any(c is not None and len(c["components"]) > 1 for c in row) else (
                " " if any(t.cell_len > 1 for t in texts) else "")
            for i, t in enumerate(texts):
                if i and sep:
                    line.append(sep)
                line.append_text(t)
            parts.append(line)
        lines = _fit(parts, width)
        if mode == "brief" and len(lines) > 1:
            filled = sum(c["count"] for row in fam["cells"] for c in row if c is not None and not c["hidden"])
            return [Text.assemble(name, f" {filled} placed")]
        return lines
    if fam.get("layout") == "pyramid":                  # rows of different lengths, centred
        rows = [(r, [c for c in row if c is not None]) for r, row in shown]
        texts = [(r, [cell_text(c) for c in row]) for r, row in rows]
        w = max([t.cell_len for _, row in texts for t in row] or [1])
        most = max([len(row) for _, row in texts] or [1])
        rw = max([len(words(str(r))) for r, _ in texts] or [1])
        out = [Text.assemble(name, Text(f"  {_axis(fam, fam['row_index'])} {'from the bottom' if fam.get('flip_rows') else 'down'}"
                                        + (f" ({skipped}, not shown)" if skipped else ""), style="dim"))]
        for r, row in texts:
            line = Text(words(str(r)).rjust(rw) + " ", style="dim")
            line.append(" " * ((most - len(row)) * (w + 1) // 2))
            for t in row:
                line.append(" " * (w - t.cell_len))
                line.append_text(t)
                line.append(" ")
            out.append(line)
        for line in out:
            line.truncate(width, overflow="ellipsis")
        return out
    cols = fam["columns"]
    widths = [max([len(str(c))] + [cell_text(row[j]).cell_len for _, row in shown if row[j] is not None])
              for j, c in enumerate(cols)]
    rw = max([len(words(str(r))) for r, _ in shown] or [1])
    note = f"  {_axis(fam, fam['row_index'])} down, {_axis(fam, fam['column_index'])} across"
    if skipped:
        note += f" ({skipped}, not shown)"
    out = [Text.assemble(name, Text(note, style="dim"))]
    head = Text(" " * (rw + 1), style="dim")
    for c, w in zip(cols, widths):
        head.append(str(c).center(w) + " ", style="dim")
    out.append(head)
    for r, row in shown:
        line = Text(words(str(r)).rjust(rw) + " ", style="dim")
        for c, w in zip(row, widths):
            t = cell_text(c)
            pad = w - t.cell_len
            line.append(" " * (pad // 2))
            line.append_text(t)
            line.append(" " * (pad - pad // 2) + " ")
        out.append(line)
    for line in out:
        line.truncate(width, overflow="ellipsis")
    return out


def _variables(items) -> list:
    return [Text.assemble(Text((v.get("title") or words(v["name"])) + " ", style="cyan"), str(v["value"]))
            for v in items]


def track_lines(view, width: int) -> list:
    out = []
    for t in view.get("score_tracks") or []:
        line = track_text(t)
        line.truncate(width, overflow="ellipsis")
        out.append(line)
    return out


def header_line(view, width: int) -> Text:
    parts = [Text(view["game"], style="bold")]
    if view.get("round") is not None:
        parts.append(Text(f"{words(view['round_name'])} {view['round']}"))
    if view.get("phase"):
        parts.append(Text(words(view["phase"])))
    if view["status"] == "over":
        parts.append(Text("game over", style="bold red"))
    elif view.get("to_move_name"):
        parts.append(Text(f"{view['to_move_name']} to decide", style="bold green"))
    out = Text()
    for i, p in enumerate(parts):
        if i:
            out.append(" · ", style="dim")
        out.append_text(p)
    out.truncate(width, overflow="ellipsis")
    return out


def legend_line(view, width: int) -> list:
    """The glyphs used by the view's components and what they stand for."""
    used = {}
    for c in _components(view):
        short = c.get("short") or ""
        if short and short != c["label"] and len(short) <= 2:
            used.setdefault(short, c)
    if not used:
        return []
    parts = [Text("key:", style="dim")]
    for short, c in sorted(used.items()):
        parts.append(Text.assemble(_comp(c), " " + words(c["label"])))
    lines = _fit(parts, width)
    return lines[:2]


def _components(view):
    fams = list(view["shared"]) + [f for p in view["players"] for f in p["families"]]
    for fam in fams:
        cells = [fam.get("zone")] if fam["shape"] == "single" else (
            fam.get("zones") or [c for row in fam.get("cells", []) for c in row])
        for c in cells:
            if c is not None:
                yield from c["components"]


def choice_lines(view, width: int) -> list:
    """The numbered choices (the numbers of :func:`numbered_actions`), grouped, in columns."""
    lines = []
    n = 0
    for group in view["actions"]:
        opts = group["options"]
        items = []
        for o in opts:
            n += 1
            items.append((str(n), o.get("say") or o["id"]))
        if len(view["actions"]) > 1:
            lines.append(Text(group.get("title") or group["action"], style="bold underline"))
        lines += _columns(items, width)
    return lines


def menu_lines(m, width: int) -> list:
    """The numbered entries of a step menu (:func:`.steps.menu`), grouped, in columns; a step's
    value ends in ``▸`` and how many choices it leads to; entries with a shape (`display: covers:`)
    are drawn as their shapes side by side; on a path, its title and how to go back."""
    lines = []
    if m["title"]:
        ask = f" — choose the {m['step']['title']}" if m.get("step") else ""
        lines.append(Text.assemble(Text(m["title"], style="bold underline"), Text(ask + "  (0: back)", style="dim")))
    ends = [e for e in m["entries"] if "id" in e and "cover" in e["option"]]
    if m["title"] and ends and len(ends) == len(m["entries"]) and \
            len({tuple(map(tuple, e["option"]["cover"]["shape"])) for e in ends}) == 1:
        # the last step, where the piece goes: the piece as it will lie, then the places
        lines += [Text("  " + x, style="bold cyan") for x in shape_lines(ends[0]["option"]["cover"]["shape"])]
    groups: dict = {}
    for n, e in enumerate(m["entries"], 1):
        groups.setdefault(e["group"], []).append((n, e))
    for name, items in groups.items():
        if len(groups) > 1:
            lines.append(Text(name, style="bold underline"))
        if len(items) > 1 and all(e.get("shape") and "path" in e for _, e in items):
            lines += _shape_boxes(items, width)          # each piece, each way of turning it: drawn
        else:
            lines += _columns([(str(n), e["text"] + (f" ▸{e['count']}" if "path" in e else "")) for n, e in items], width)
    return lines


def _shape_boxes(entries, width: int) -> list:
    """Entries drawn as their shapes, numbered, side by side (wrapped at ``width``)."""
    boxes = []
    for n, e in entries:
        head = f"{n} {e['text']} ▸{e['count']}"
        body = shape_lines(e["shape"])
        w = max([len(head)] + [len(x) for x in body]) + 2
        boxes.append((w, [Text(head, style="bold")] + [Text(x, style="bold cyan") for x in body]))
    out, row, used = [], [], 0
    for w, box in boxes + [(None, None)]:
        if box is None or (row and used + w > width):
            h = max(len(b) for _, b in row)
            for i in range(h):
                line = Text()
                for bw, b in row:
                    piece = b[i].copy() if i < len(b) else Text("")
                    piece.pad_right(bw - piece.cell_len)
                    line.append_text(piece)
                line.truncate(width, overflow="ellipsis")
                out.append(line)
            row, used = [], 0
        if box is not None:
            row.append((w, box))
            used += w
    return out


def _columns(items, width: int) -> list:
    lines = []
    num_w = max(len(k) for k, _ in items)
    cell = max(num_w + 1 + len(s) for _, s in items) + 2
    ncols = max(1, min(len(items), (width + 2) // cell))
    nrows = -(-len(items) // ncols)
    for r in range(nrows):
        line = Text()
        for c in range(ncols):
            i = c * nrows + r
            if i >= len(items):
                break
            k, s = items[i]
            piece = Text.assemble(Text(k.rjust(num_w), style="bold yellow"), " ", s)
            last = c == ncols - 1
            piece.truncate(width - c * cell if last else cell - 2, overflow="ellipsis")
            if not last:
                piece.pad_right(cell - piece.cell_len)
            line.append_text(piece)
        lines.append(line)
    return lines


def compact_screen(view, width: int = 80, height: int = 24, recent=(), menu=None, show_seat=None) -> list:
    """The lines of one screen (at most ``height`` when the choices leave room for the board);
    ``menu`` (:func:`.steps.menu`) in place of every choice; ``show_seat``: the other seat whose
    board is drawn in full (the others one line each)."""
    choices = menu_lines(menu, width) if menu is not None else choice_lines(view, width)
    me = next((p for p in view["players"] if p["is_viewer"]), None)
    story = [Text(s, style="dim") for s in list(recent)[-3:]]
    for t in story:
        t.truncate(width, overflow="ellipsis")
    scores = score_lines(view, width) if "scores" in view else []

    def layout(mode: str, others_mode: str) -> dict:
        shared, piles = [], []
        for fam in view["shared"]:
            (piles if _hidden_only(fam) else shared).extend(family_lines(fam, width, mode))
        mine = []
        if me is not None:
            title = Text(f"{me['name']} (you)", style="bold green" if me["to_move"] else "bold")
            mine = _fit([title] + _variables(me["variables"]), width)
            for fam in me["families"]:
                mine += family_lines(fam, width, mode)
        others, seen = [], []
        for p in view["players"]:
            if p is me:
                continue
            title = Text(p["name"] + (" ◀" if p["to_move"] else ""), style="bold")
            if p["seat"] == show_seat:                # the board the person asked to see, drawn in full
                seen = _fit([Text.assemble(title, Text("  (o: next board)", style="dim"))] + _variables(p["variables"]), width)
                for fam in p["families"]:
                    seen += family_lines(fam, width, mode)
                continue
            parts = [title] + _variables(p["variables"])
            if others_mode == "full":
                for fam in p["families"]:
                    parts += family_lines(fam, width, "brief")
            others += _fit(parts, width)[:2 if others_mode == "full" else 1]
        return {"header": [header_line(view, width)],
                "vars": _fit(_variables(view["variables"]), width) if view["variables"] else [],
                "tracks": track_lines(view, width),
                "shared": shared, "piles": piles, "mine": mine, "others": others, "seen": seen,
                "legend": legend_line(view, width), "scores": scores, "story": story, "choices": choices}

    budget = height - 1                               # the prompt's line
    blocks = layout("grid", "full")
    steps = [("drop", "story"), ("drop", "legend"), ("others", "brief"), ("drop", "piles"),
             ("mode", "fold"), ("drop", "vars"), ("drop", "others")] + ([("drop", "mine")] if show_seat is not None else [])
    others_mode, mode = "full", "grid"
    for kind, what in steps:
        if sum(len(x) for x in blocks.values()) <= budget:
            break
        dropped = {k for k, v in blocks.items() if not v}
        if kind == "drop":
            blocks[what] = []
            continue
        if kind == "others":
            others_mode = what
        else:
            mode = what
        blocks = layout(mode, others_mode)
        for k in dropped:
            blocks[k] = []
    if mode == "fold":                                 # the grids drawn as grids, if they fit now
        dropped = {k for k, v in blocks.items() if not v}
        grids = layout("grid", others_mode)
        for k in dropped:
            grids[k] = []
        if sum(len(x) for x in grids.values()) <= budget:
            blocks, mode = grids, "grid"
    full = layout(mode, "full")
    for key in ("mine", "piles", "others", "vars", "legend", "story"):   # what fits again after folding
        if not blocks[key] and full[key] and sum(len(x) for x in blocks.values()) + len(full[key]) <= budget:
            blocks[key] = full[key]
    order = ("header", "vars", "tracks", "shared", "piles", "mine", "seen", "others", "legend", "scores", "story",
             "choices")
    return [line for key in order for line in blocks[key]]


def _hidden_only(fam) -> bool:
    cells = [fam.get("zone")] if fam["shape"] == "single" else (
        fam.get("zones") or [c for row in fam.get("cells", []) for c in row])
    cells = [c for c in cells if c is not None]
    return bool(cells) and all(c["hidden"] for c in cells)


def score_lines(view, width: int) -> list:
    """Final scores, best first, with the score's named parts when the view has them."""
    out = [Text("final scores", style="bold")]
    parts = view.get("score_parts") or []
    for s in sorted(range(len(view["scores"])), key=lambda s: view["ranking"][s]):
        line = Text(f"{view['ranking'][s]}. {view['seats'][s]}: {view['scores'][s]}")
        mine = parts[s] if s < len(parts) else None
        if mine:
            line.append("  (" + ", ".join(f"{words(k)} {v}" for k, v in mine) + ")", style="dim")
        line.truncate(width, overflow="ellipsis")
        out.append(line)
    return out


def _axis(fam, index: str) -> str:
    """An index of a family in the game's words (`titles: {board.s: star}`)."""
    return (fam.get("index_titles") or {}).get(index) or index.replace("_", " ")
