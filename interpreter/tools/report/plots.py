"""The report's plots as PNG files (matplotlib, drawn off-screen)."""
from __future__ import annotations

from pathlib import Path


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"figure.dpi": 100, "font.size": 9, "axes.spines.top": False, "axes.spines.right": False,
                         "text.parse_math": False})    # names are the rulebook's text, never mathtext ($…$)
    return plt


SIG = "#c0392b"
PLAIN = "#4a7ab5"
FIRST = "#8e7cc3"


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, format="png", metadata={"Software": None})
    _plt().close(fig)
    return path


def win_rates(summary: dict, path: Path, title: str) -> Path:
    plt = _plt()
    seats = summary["seats"]
    labels = [s["name"] for s in seats] + ["first player"]
    rates = [s["win_rate"] for s in seats] + [summary["first_player"]["win_rate"]]
    cis = [s["ci"] for s in seats] + [summary["first_player"]["ci"]]
    sig = [s["significant"] for s in seats] + [summary["first_player"]["significant"]]
    colours = [SIG if g else PLAIN for g in sig[:-1]] + [SIG if sig[-1] else FIRST]
    fig, ax = plt.subplots(figsize=(1.2 * len(labels) + 2.5, 3.4))
    x = range(len(labels))
    err = [[r - lo for r, (lo, hi) in zip(rates, cis)], [hi - r for r, (lo, hi) in zip(rates, cis)]]
    ax.bar(x, rates, color=colours, yerr=err, capsize=5, width=0.6)
    ax.axhline(summary["fair_rate"], color="#555", linestyle="--", linewidth=1,
               label=f"fair: {summary['fair_rate']:.1%}")
    for i, r in enumerate(rates):
        ax.text(i, cis[i][1] + 0.02, f"{r:.1%}" + (" *" if sig[i] else ""), ha="center", fontsize=8)
    ax.set_xticks(list(x), labels, rotation=0)
    ax.set_ylim(0, min(1.0, max(hi for lo, hi in cis) + 0.12))
    ax.set_ylabel("win rate (95 % CI)")
    ax.set_title(title)
    ax.legend(loc="upper right", fontsize=8, frameon=False)
    return _save(fig, path)


def scores(rows: list, summary: dict, path: Path, title: str) -> Path:
    plt = _plt()
    seats = summary["seats"]
    data = [[r["scores"][s["seat"]] for r in rows if not r.get("error")] for s in seats]
    fig, ax = plt.subplots(figsize=(1.3 * len(seats) + 2.5, 3.4))
    if all(len(set(d)) > 1 for d in data):
        parts = ax.violinplot(data, showmedians=True)
        for body in parts["bodies"]:
            body.set_facecolor(PLAIN)
            body.set_alpha(0.5)
    else:
        ax.boxplot(data)
    ax.set_xticks(range(1, len(seats) + 1), [s["name"] for s in seats])
    ax.set_ylabel("final score")
    ax.set_title(title)
    return _save(fig, path)


def lengths(rows: list, summary: dict, path: Path, title: str) -> Path:
    plt = _plt()
    ok = [r for r in rows if not r.get("error")]
    fig, (a, b) = plt.subplots(1, 2, figsize=(8, 3.2))
    a.hist([r["decisions"] for r in ok], bins=30, color=PLAIN)
    a.set_xlabel("decisions per game")
    a.set_ylabel("games")
    b.hist(summary["margin"]["values"], bins=30, color=FIRST)
    b.set_xlabel("margin of victory (points)")
    fig.suptitle(title)
    return _save(fig, path)


def parts(summary: dict, path: Path, title: str) -> Path | None:
    if not summary.get("parts"):
        return None
    plt = _plt()
    names = list(summary["parts"])
    seats = summary["seats"]
    fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(names) + 2), 3.4))
    width = 0.8 / len(seats)
    for k, s in enumerate(seats):
        xs = [i + (k - (len(seats) - 1) / 2) * width for i in range(len(names))]
        ax.bar(xs, [summary["parts"][n][k] for n in names], width=width, label=s["name"])
    ax.axhline(0, color="#555", linewidth=0.8)
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right")
    ax.set_ylabel("mean points")
    ax.set_title(title)
    ax.legend(fontsize=8, frameon=False)
    return _save(fig, path)


def actions(summary: dict, path: Path, title: str, top: int = 12) -> Path | None:
    per_seat = summary.get("actions") or []
    totals: dict = {}
    for counts in per_seat:
        for name, c in counts.items():
            totals[name] = totals.get(name, 0) + c
    if not totals:
        return None
    plt = _plt()
    names = sorted(totals, key=lambda n: -totals[n])[:top]
    seats = summary["seats"]
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(names) * max(1, len(seats)) / 2 + 1.6))
    height = 0.8 / len(seats)
    for k, s in enumerate(seats):
        total = sum(per_seat[k].values()) or 1
        ys = [i + (k - (len(seats) - 1) / 2) * height for i in range(len(names))]
        ax.barh(ys, [per_seat[k].get(n, 0) / total for n in names], height=height, label=s["name"])
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlabel("share of the seat's decisions")
    ax.set_title(title)
    ax.legend(fontsize=8, frameon=False)
    return _save(fig, path)


def compare_win_rates(labels: list, summaries: list, path: Path, title: str) -> Path:
    """Win rates side by side; seats matched by name (an automaton may play in one configuration only)."""
    plt = _plt()
    seats: list = []
    for summ in summaries:
        seats += [s["name"] for s in summ["seats"] if s["name"] not in seats]
    seats.append("first player")
    fig, ax = plt.subplots(figsize=(1.4 * len(seats) + 3, 3.4))
    width = 0.8 / len(labels)
    for k, (label, summ) in enumerate(zip(labels, summaries)):
        rows = {s["name"]: (s["win_rate"], s["ci"]) for s in summ["seats"]}
        rows["first player"] = (summ["first_player"]["win_rate"], summ["first_player"]["ci"])
        xs, rates, lows, highs = [], [], [], []
        for i, name in enumerate(seats):
            if name in rows:
                r, (lo, hi) = rows[name]
                xs.append(i + (k - (len(labels) - 1) / 2) * width)
                rates.append(r)
                lows.append(r - lo)
                highs.append(hi - r)
        ax.bar(xs, rates, width=width, yerr=[lows, highs], capsize=3, label=label)
    ax.set_xticks(range(len(seats)), seats)
    ax.set_ylabel("win rate (95 % CI)")
    ax.set_title(title)
    ax.legend(fontsize=8, frameon=False)
    return _save(fig, path)
