"""A decision among many options made in small steps: the options of an action grouped by its
parameters, one step (a parameter, or several chosen together: `display: steps:`) at a time.

:func:`menu` reads a view (:mod:`.model`) and a path (the action and the values chosen so far)
and gives the numbered entries of the next step: an entry is either one option (its id) or a
value of the next step (a longer path).  A step where every remaining option has the same value
is taken at once; a value that leaves one option is that option.  The terminal numbers the
entries; the page draws the same steps as buttons (and the grid cells, with `display: covers:`).
"""
from __future__ import annotations

#: an action with more options than this is chosen in steps (when the screen asks for steps)
MANY = 8


def _value(option, step) -> tuple:
    return tuple(option["params"][p] for p in step["params"])


def _text(option, step) -> str:
    """A step's value in words: "star 3", "red", "patch 4", "(3, 4)" for a step of several numbers."""
    shown = [option["shown"].get(p, option["params"][p]) for p in step["params"]]
    raw = [option["params"][p] for p in step["params"]]
    if len(shown) > 1:
        return ", ".join(shown)
    if shown[0] != raw[0] or not raw[0].lstrip("-").isdigit():
        return shown[0]                     # a name says what it is ("patch 4", "red")
    return f"{step['title']} {shown[0]}"


def remaining(group, chosen) -> list:
    """The options of ``group`` whose values of the first steps are ``chosen``."""
    steps = group["steps"]
    return [o for o in group["options"] if all(_value(o, steps[i]) == v for i, v in enumerate(chosen))]


def advance(group, chosen) -> tuple:
    """``chosen`` with every following step that leaves one value taken at once."""
    chosen = tuple(chosen)
    steps = group["steps"]
    while len(chosen) < len(steps):
        values = {_value(o, steps[len(chosen)]) for o in remaining(group, chosen)}
        if len(values) != 1:
            break
        chosen += (next(iter(values)),)
    return chosen


def stepped_groups(view, many: int = MANY) -> set:
    """The actions of ``view`` with more than ``many`` options and more than one step."""
    return {g["action"] for g in view["actions"] if len(g["options"]) > many and len(g.get("steps") or []) > 1}


def menu(view, path=None, stepped=frozenset()) -> dict:
    """{"title": str or None, "step": the step asked or None, "entries": [...]}: at the top (``path``
    None) every action's options, those of a ``stepped`` action by its first step; on a path
    (action, chosen values) the values of the next step.  An entry: {"text", "group", "id"} for one
    option or {"text", "group", "path", "count"} for a step, with "shape" ([[row, column], …]) when
    its options cover cells of a grid in one shape, and "option" (one of its options)."""
    entries = []
    groups = view["actions"]
    if path is not None:
        group = next((g for g in groups if g["action"] == path[0]), None)
        if group is None:
            return menu(view, None, stepped)
        groups = [group]
    title, asked = None, None
    for g in groups:
        gtitle = g.get("title") or g["action"]
        if path is None and g["action"] not in stepped:
            entries += [{"text": o.get("say") or o["id"], "group": gtitle, "id": o["id"], "option": o}
                        for o in g["options"]]
            continue
        chosen = advance(g, path[1] if path is not None else ())
        opts = remaining(g, chosen)
        steps = g["steps"]
        if path is not None:
            said = [_text(opts[0], steps[i]) for i in range(len(chosen))] if opts else []
            title = " · ".join([gtitle] + said)
        if len(chosen) >= len(steps) or len(opts) <= 1:
            entries += [{"text": o.get("say") or o["id"], "group": gtitle, "id": o["id"], "option": o} for o in opts]
            continue
        step = steps[len(chosen)]
        asked = step
        by: dict = {}
        for o in opts:
            by.setdefault(_value(o, step), []).append(o)
        for value, under in by.items():
            if len(under) == 1:
                o = under[0]
                # many values: each in few words (the step's title says the rest); few: the whole sentence
                text = _text(o, step) if len(by) > MANY else o.get("say") or o["id"]
                entry = {"text": text, "group": gtitle, "id": o["id"], "option": o}
            else:
                entry = {"text": _text(under[0], step), "group": gtitle, "path": (g["action"], chosen + (value,)),
                         "count": len(under), "option": under[0]}
            shapes = {tuple(map(tuple, o["cover"]["shape"])) for o in under if "cover" in o}
            if "cover" in under[0]:
                entry["shape"] = under[0]["cover"]["shape"]
                entry["one_shape"] = len(shapes) == 1
            entries.append(entry)
    return {"title": title, "step": asked, "entries": entries}


def back(view, path):
    """The path one step back (None: the top), skipping steps that were taken at once."""
    if path is None:
        return None
    group = next((g for g in view["actions"] if g["action"] == path[0]), None)
    if group is None:
        return None
    chosen = tuple(path[1])
    full = advance(group, chosen)
    while chosen:
        chosen = chosen[:-1]
        if advance(group, chosen) != full:
            break
    return (path[0], chosen) if chosen else None


def shape_lines(shape, fill: str = "█") -> list:
    """A shape ([[row, column], …] from the top left) drawn in lines, two characters a cell."""
    rows = max(r for r, _ in shape) + 1
    cols = max(c for _, c in shape) + 1
    cells = {(r, c) for r, c in shape}
    return ["".join(fill * 2 if (r, c) in cells else "  " for c in range(cols)).rstrip() for r in range(rows)]
