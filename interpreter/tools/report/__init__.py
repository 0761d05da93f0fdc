"""Balance reports: ``regelwerk report RULEBOOK --games N --out DIR``.

Plays seeded games (interpreter/report/games.py) on a simulation backend
(interpreter/backends.py), summarises them (stats.py), draws the plots
(plots.py) and writes, in DIR:

* ``report.html`` — one self-contained page (page.py): win rates per seat and
  of the first player with 95 % intervals and flags, scores, score parts,
  length and margin, actions chosen, and with ``--compare`` the
  configurations side by side with their differences;
* the plots as PNG files;
* ``games.jsonl`` — one JSON object per game, the raw results every number
  of the report is computed from;
* ``summary.json`` — the numbers of the page.

The same plan gives the same numbers whatever the backend and the number of
workers: every game has its seed, and rows are kept in (configuration, seed)
order.
"""
from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

from .games import Config, Plan, run_games
from .stats import compare, summarise


class ReportError(ValueError):
    """A bad --compare or the like: one clear line."""


def configs_from(compare_specs: list, variants: list, options: dict, rulebook=None) -> list:
    """The configurations to play: ``variant=NAME`` compares without and with a
    variant; ``option=NAME=V1,V2,…`` compares the option's values; several specs
    combine (every combination).  Without specs: one configuration."""
    dims = []
    for spec in compare_specs or []:
        kind, _, rest = spec.partition("=")
        kind = kind.strip()
        if kind == "variant" and rest.strip():
            names = [v.strip() for v in rest.split(",") if v.strip()]
            for name in names:
                if rulebook is not None and name not in rulebook.game.variants:
                    known = ", ".join(sorted(rulebook.game.variants)) or "none"
                    raise ReportError(f"--compare {spec}: no variant '{name}' (variants: {known})")
            dims.append([("variant", None)] + [("variant", n) for n in names])
        elif kind == "option" and "=" in rest:
            name, _, values = rest.partition("=")
            vals = [v.strip() for v in values.split(",") if v.strip()]
            if not name.strip() or len(vals) < 1:
                raise ReportError(f"--compare {spec}: give option=NAME=V1,V2")
            if rulebook is not None and name.strip() not in rulebook.game.options:
                known = ", ".join(sorted(rulebook.game.options)) or "none"
                raise ReportError(f"--compare {spec}: no option '{name.strip()}' (options: {known})")
            dims.append([("option", (name.strip(), v)) for v in vals])
        else:
            raise ReportError(f"--compare takes variant=NAME or option=NAME=V1,V2, not '{spec}'")
    if not dims:
        return [Config("base", tuple(variants), tuple(sorted(options.items())))]
    out = []
    for combo in itertools.product(*dims):
        vs = list(variants)
        opts = dict(options)
        words = []
        for kind, value in combo:
            if kind == "variant":
                if value is None:
                    words.append("base")
                else:
                    vs.append(value)
                    words.append(f"+{value}")
            else:
                opts[value[0]] = value[1]
                words.append(f"{value[0]}={value[1]}")
        out.append(Config(" ".join(words), tuple(vs), tuple(sorted(opts.items()))))
    return out


def _slug(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_") or "base"


def write_report(plan: Plan, backend, out: Path, title: str, done=None, timing: dict | None = None) -> dict:
    """Play, summarise, draw and write the report; return the summary (also in summary.json).
    ``timing``, if given, receives the seconds spent playing (``play``) and writing (``write``)."""
    import time
    from . import page, plots
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    backend.start()                   # a cluster's start-up is not counted as playing
    started = time.perf_counter()
    rows = run_games(plan, backend, done)
    played = time.perf_counter()
    with (out / "games.jsonl").open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, sort_keys=True) + "\n")
    labels = [c.label for c in plan.configs]
    by_config = {label: [r for r in rows if r["config"] == label] for label in labels}
    summaries = {label: summarise(by_config[label]) for label in labels}
    comparisons = {}
    if len(labels) > 1 and summaries[labels[0]].get("seats"):
        for label in labels[1:]:
            if summaries[label].get("seats"):
                comparisons[label] = compare(summaries[labels[0]], by_config[labels[0]], summaries[label],
                                             by_config[label])
    sections = []
    for label in labels:
        summ = summaries[label]
        drawn = {}
        if summ.get("seats"):
            slug = _slug(label) + "-" if len(labels) > 1 else ""
            what = f"{title} — {label}" if len(labels) > 1 else title
            drawn = {
                "win_rates": plots.win_rates(summ, out / f"{slug}win_rates.png", f"Win rate per seat ({what})"),
                "scores": plots.scores(by_config[label], summ, out / f"{slug}scores.png", "Final scores per seat"),
                "lengths": plots.lengths(by_config[label], summ, out / f"{slug}lengths.png",
                                         "Game length and margin of victory"),
                "parts": plots.parts(summ, out / f"{slug}score_parts.png", "Score parts per seat"),
                "actions": plots.actions(summ, out / f"{slug}actions.png", "Actions chosen per seat"),
            }
        sections.append(page.section(label, summ, drawn))
    if comparisons:
        ok = [label for label in labels if summaries[label].get("seats")]
        plot = plots.compare_win_rates(ok, [summaries[x] for x in ok], out / "compare_win_rates.png",
                                       "Win rates side by side")
        sections.append(page.comparison([labels[0]] + list(comparisons), list(comparisons.values()), plot))
    meta = [f"{plan.games} games per configuration, {plan.players} players, seeds {plan.first_seed}–"
            f"{plan.first_seed + plan.games - 1}, bots: {plan.bots}",
            f"how strong the bots are: {bots_strength(plan.bots)}"]
    warning = random_play_warning(plan.bots)
    if warning:
        meta.append(f"Warning: {warning}")
    meta.append(f"rulebook: {plan.rulebook}; raw results: games.jsonl; numbers: summary.json")
    (out / "report.html").write_text(page.page(title, meta, sections), encoding="utf-8")
    for summ in summaries.values():               # the raw values are in games.jsonl
        if "margin" in summ:
            summ["margin"] = {k: v for k, v in summ["margin"].items() if k != "values"}
    result = {"rulebook": plan.rulebook, "players": plan.players, "games": plan.games, "bots": plan.bots,
              "bots_strength": bots_strength(plan.bots), "warning": warning,
              "first_seed": plan.first_seed, "configs": summaries, "comparisons": comparisons}
    (out / "summary.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if timing is not None:
        timing.update({"play": played - started, "write": time.perf_counter() - played})
    return result


#: what each bot is, in a line (docs/bots.md has the measurements; `regelwerk ladder` measures a game)
STRENGTH = {
    "random": "random: a uniformly random legal action (no skill at all: the floor of the ladder, Elo 0)",
    "first": "first: always the first legal action (no skill; for tests)",
    "greedy": "greedy: one ply, the largest score lead after its own move (blind to anything the score "
              "does not show yet: in three of the four shipped games no better than random by the ladder)",
    "ismcts": "ismcts: information-set MCTS, 1 s a decision (beat greedy in every one of 20 games on each "
              "of the four shipped games: docs/bots.md)",
}


def bots_strength(spec: str) -> str:
    """One line per distinct bot of ``spec`` saying how strong it is, and where to measure it."""
    names = []
    for n in spec.split(","):
        base, _, arg = n.strip().partition(":")
        line = STRENGTH.get(base, base)
        if arg:
            line = line.replace("1 s a decision", f"at most {arg} iterations a decision")
        if line not in names:
            names.append(line)
    return "; ".join(names) + " — `regelwerk ladder RULEBOOK` measures them at this game (Elo, 95 % intervals)"


def random_play_warning(spec: str) -> str | None:
    """A warning when any seat is played at random: balance then says how the rules treat seats
    under random play, which can differ from how they treat players who play the game."""
    bases = {n.strip().partition(":")[0] for n in spec.split(",")}
    if bases & {"random", "first"}:
        return ("balance measured with random play: a seat's win rate here says how the rules treat it when "
                "every choice is random, not when it plays well; for balance between players who play, "
                "use --bots ismcts, and see `regelwerk ladder` for how strong the bots are")
    return None
