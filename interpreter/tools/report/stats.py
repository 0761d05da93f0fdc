"""The statistics of a balance report, from the rows of interpreter/report/games.py.

Only the standard library: proportions get Wilson score intervals, a
difference of two proportions Newcombe's hybrid score interval (built from
the two Wilson intervals), means and differences of means a normal
approximation (mean ± z·sd/√n; Welch's standard error for a difference).

A *win* is first place, shared places included (two seats tied for first both
win).  A seat's advantage is *significant* when the rate every seat would have
in a fair game — all wins over all seat-games, so that shared wins count —
lies outside the seat's 95 % interval.
"""
from __future__ import annotations

import math
from statistics import fmean, median, pstdev, stdev

Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple:
    """The Wilson score interval of k successes in n trials, as (low, high)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def diff_of_proportions(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> tuple:
    """p1 − p2 and Newcombe's hybrid score interval, as (difference, low, high)."""
    p1, p2 = (k1 / n1 if n1 else 0.0), (k2 / n2 if n2 else 0.0)
    l1, u1 = wilson(k1, n1, z)
    l2, u2 = wilson(k2, n2, z)
    d = p1 - p2
    return (d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def mean_ci(xs: list, z: float = Z95) -> tuple:
    """(mean, low, high) of a sample; the interval is 0 wide for fewer than 2 values."""
    if not xs:
        return (0.0, 0.0, 0.0)
    m = fmean(xs)
    if len(xs) < 2:
        return (m, m, m)
    half = z * stdev(xs) / math.sqrt(len(xs))
    return (m, m - half, m + half)


def diff_of_means(xs: list, ys: list, z: float = Z95) -> tuple:
    """mean(xs) − mean(ys) with a normal interval on Welch's standard error."""
    if not xs or not ys:
        return (0.0, 0.0, 0.0)
    d = fmean(xs) - fmean(ys)
    var = (stdev(xs) ** 2 / len(xs) if len(xs) > 1 else 0.0) + (stdev(ys) ** 2 / len(ys) if len(ys) > 1 else 0.0)
    half = z * math.sqrt(var)
    return (d, d - half, d + half)


def summarise(rows: list) -> dict:
    """Everything the report shows for one configuration."""
    ok = [r for r in rows if not r.get("error")]
    failed = [r for r in rows if r.get("error")]
    out = {"games": len(rows), "finished": len(ok), "failed": [{"seed": r["seed"], "error": r["error"]} for r in failed]}
    if not ok:
        return out
    seats = len(ok[0]["scores"])
    names = ok[0].get("seat_names") or [f"seat {i + 1}" for i in range(seats)]
    n = len(ok)
    wins = [sum(1 for r in ok if s in r["winners"]) for s in range(seats)]
    fair = sum(wins) / (n * seats)
    seat_rows = []
    for s in range(seats):
        lo, hi = wilson(wins[s], n)
        scores = [r["scores"][s] for r in ok]
        seat_rows.append({
            "seat": s, "name": names[s], "wins": wins[s], "win_rate": wins[s] / n, "ci": [lo, hi],
            "significant": not (lo <= fair <= hi),
            "mean_score": fmean(scores), "score_ci": list(mean_ci(scores)[1:]), "median_score": median(scores),
            "sd_score": pstdev(scores), "min_score": min(scores), "max_score": max(scores),
        })
    first_wins = sum(1 for r in ok if r["first_player"] in r["winners"])
    first_ci = wilson(first_wins, n)
    shared = sum(1 for r in ok if len(r["winners"]) > 1)
    margins = []            # the winner's score against the best-placed seat that did not win
    for r in ok:
        places = r["ranking"]
        winner = min(range(seats), key=lambda s: places[s])
        others = [s for s in range(seats) if places[s] != 1]
        if others:
            second = min(others, key=lambda s: places[s])
            margins.append(abs(r["scores"][winner] - r["scores"][second]))
        else:
            margins.append(0)
    parts = {}
    for r in ok:
        for s, row in enumerate(r.get("parts") or []):
            for name, value in row.items():
                parts.setdefault(name, [[] for _ in range(seats)])[s].append(value)
    actions = [dict() for _ in range(seats)]
    for r in ok:
        for s, counts in enumerate(r["actions"]):
            for name, c in counts.items():
                actions[s][name] = actions[s].get(name, 0) + c
    rounds = [r["rounds"] for r in ok if r.get("rounds") is not None]
    out.update({
        "seats": seat_rows, "fair_rate": fair,
        "first_player": {"wins": first_wins, "win_rate": first_wins / n, "ci": list(first_ci),
                         "significant": not (first_ci[0] <= fair <= first_ci[1])},
        "shared_wins": shared,
        "margin": {"mean": fmean(margins), "median": median(margins), "values": margins},
        "length": {
            "decisions": _spread([r["decisions"] for r in ok]),
            "turns": _spread([r["turns"] for r in ok]),
            "rounds": _spread(rounds) if rounds else None,
        },
        "parts": {name: [fmean(v) if v else 0.0 for v in per_seat] for name, per_seat in parts.items()},
        "actions": actions,
    })
    together = [r["together"] for r in ok if r.get("together") is not None]
    if together:                # a cooperative game: the seats win or lose together
        won = sum(1 for t in together if t)
        out["together"] = {"wins": won, "win_rate": won / len(together), "ci": list(wilson(won, len(together)))}
    return out


def _spread(xs: list) -> dict:
    return {"mean": fmean(xs), "median": median(xs), "min": min(xs), "max": max(xs)}


def compare(base: dict, base_rows: list, other: dict, other_rows: list) -> dict:
    """Differences other − base: each seat's win rate and mean score, the first player's
    win rate and the mean game length, each with its 95 % interval."""
    ok_b = [r for r in base_rows if not r.get("error")]
    ok_o = [r for r in other_rows if not r.get("error")]
    out = {"seats": [], "first_player": None, "decisions": None}
    if not ok_b or not ok_o:
        return out
    nb, no = len(ok_b), len(ok_o)
    by_name = {s["name"]: s for s in base["seats"]}
    for so in other["seats"]:             # seats matched by name: an automaton may join in one of them
        sb = by_name.get(so["name"])
        if sb is None:
            continue
        d, lo, hi = diff_of_proportions(so["wins"], no, sb["wins"], nb)
        sd, slo, shi = diff_of_means([r["scores"][so["seat"]] for r in ok_o], [r["scores"][sb["seat"]] for r in ok_b])
        out["seats"].append({"seat": sb["seat"], "name": sb["name"], "win_rate": [d, lo, hi],
                             "win_significant": not (lo <= 0 <= hi),
                             "mean_score": [sd, slo, shi], "score_significant": not (slo <= 0 <= shi)})
    d, lo, hi = diff_of_proportions(other["first_player"]["wins"], no, base["first_player"]["wins"], nb)
    out["first_player"] = [d, lo, hi]
    dd = diff_of_means([r["decisions"] for r in ok_o], [r["decisions"] for r in ok_b])
    out["decisions"] = list(dd)
    return out
