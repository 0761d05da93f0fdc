"""The report as one self-contained HTML page (plots inlined, no script, no network)."""
from __future__ import annotations

import base64
from html import escape
from pathlib import Path

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em} h2{margin-top:2em;border-bottom:2px solid #ddd;padding-bottom:.2em}
h3{margin-top:1.4em} .meta{color:#555} table{border-collapse:collapse;margin:.6em 0}
th,td{padding:.25em .7em;border-bottom:1px solid #e3e3e3;text-align:right} th{background:#f4f4f4}
td:first-child,th:first-child{text-align:left} .flag{color:#c0392b;font-weight:600}
.plots{display:flex;flex-wrap:wrap;gap:1em} .plots img{max-width:100%;border:1px solid #eee}
.note{color:#555;font-size:.92em} .err{color:#c0392b}
"""


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _num(x: float) -> str:
    return f"{x:.2f}" if isinstance(x, float) else str(x)


def _signed(x: float, pct: bool = False) -> str:
    return (f"{100 * x:+.1f} %" if pct else f"{x:+.2f}")


def _img(path: Path | None, alt: str) -> str:
    if path is None:
        return ""
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{escape(alt)}" title="{escape(path.name)}">'


def _flag(s: dict, fair: float) -> str:
    if not s["significant"]:
        return ""
    word = "advantage" if s["win_rate"] > fair else "disadvantage"
    return f'<span class="flag">{word}</span>'


def section(label: str, summary: dict, plots: dict) -> str:
    out = [f'<section class="config" id="config-{escape(label)}"><h2>{escape(label)}</h2>']
    out.append(f'<p class="meta">{summary["finished"]} of {summary["games"]} games finished'
               + (f', <span class="err">{len(summary["failed"])} failed</span>' if summary["failed"] else "")
               + "</p>")
    if not summary.get("seats"):
        return "\n".join(out + ["</section>"])
    fair = summary["fair_rate"]
    out.append("<h3>Who wins</h3>")
    out.append('<table class="winrates"><tr><th>seat</th><th>wins</th><th>win rate</th><th>95 % CI</th>'
               '<th>significant</th></tr>')
    for s in summary["seats"]:
        out.append(f'<tr data-seat="{s["seat"]}"><td>{escape(s["name"])}</td><td>{s["wins"]}</td>'
                   f'<td>{_pct(s["win_rate"])}</td><td>{_pct(s["ci"][0])} – {_pct(s["ci"][1])}</td>'
                   f'<td>{_flag(s, fair)}</td></tr>')
    if summary.get("together"):
        t = summary["together"]
        out.append(f'<tr data-seat="together"><td>all seats together</td><td>{t["wins"]}</td>'
                   f'<td>{_pct(t["win_rate"])}</td><td>{_pct(t["ci"][0])} – {_pct(t["ci"][1])}</td><td></td></tr>')
    fp = summary["first_player"]
    out.append(f'<tr data-seat="first"><td>first player</td><td>{fp["wins"]}</td><td>{_pct(fp["win_rate"])}</td>'
               f'<td>{_pct(fp["ci"][0])} – {_pct(fp["ci"][1])}</td><td>{_flag(fp, fair)}</td></tr></table>')
    out.append(f'<p class="note">A win is first place, shared places included ({summary["shared_wins"]} games '
               f'had a shared first place). In a fair game every seat would win {_pct(fair)} of games; a seat is '
               f'flagged when that rate lies outside its 95 % interval (Wilson).</p>')
    out.append(f'<div class="plots">{_img(plots.get("win_rates"), "win rate per seat")}</div>')
    out.append("<h3>Scores</h3><table><tr><th>seat</th><th>mean</th><th>95 % CI</th><th>median</th><th>sd</th>"
               "<th>min – max</th></tr>")
    for s in summary["seats"]:
        out.append(f'<tr><td>{escape(s["name"])}</td><td>{s["mean_score"]:.2f}</td><td>{s["score_ci"][0]:.2f} – '
                   f'{s["score_ci"][1]:.2f}</td><td>{_num(s["median_score"])}</td><td>{s["sd_score"]:.2f}</td>'
                   f'<td>{s["min_score"]} – {s["max_score"]}</td></tr>')
    out.append("</table>")
    out.append(f'<div class="plots">{_img(plots.get("scores"), "score distribution per seat")}</div>')
    if summary.get("parts"):
        names = list(summary["parts"])
        out.append("<h3>Score parts (mean points)</h3><table><tr><th>seat</th>"
                   + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr>")
        for k, s in enumerate(summary["seats"]):
            out.append(f'<tr><td>{escape(s["name"])}</td>'
                       + "".join(f"<td>{summary['parts'][n][k]:.2f}</td>" for n in names) + "</tr>")
        out.append("</table>")
        out.append(f'<div class="plots">{_img(plots.get("parts"), "score parts")}</div>')
    ln = summary["length"]
    out.append("<h3>Length and margin</h3><table><tr><th></th><th>mean</th><th>median</th><th>min</th><th>max</th></tr>")
    for key in ("decisions", "turns", "rounds"):
        if ln.get(key):
            v = ln[key]
            out.append(f"<tr><td>{key}</td><td>{v['mean']:.1f}</td><td>{_num(v['median'])}</td><td>{v['min']}</td>"
                       f"<td>{v['max']}</td></tr>")
    m = summary["margin"]
    out.append(f"<tr><td>margin of victory</td><td>{m['mean']:.2f}</td><td>{_num(m['median'])}</td>"
               f"<td>{min(m['values'])}</td><td>{max(m['values'])}</td></tr></table>")
    out.append('<p class="note">A turn is a run of decisions by one seat; the margin is the winner\'s score against '
               'the best-placed seat that did not win.</p>')
    out.append(f'<div class="plots">{_img(plots.get("lengths"), "game length and margin")}</div>')
    if plots.get("actions"):
        out.append("<h3>Actions chosen</h3>")
        out.append(f'<div class="plots">{_img(plots.get("actions"), "actions per seat")}</div>')
    if summary["failed"]:
        out.append('<h3 class="err">Failed games</h3><ul>')
        for f in summary["failed"][:50]:
            out.append(f'<li>seed {f["seed"]}: {escape(f["error"])}</li>')
        out.append("</ul>")
    out.append("</section>")
    return "\n".join(out)


def comparison(labels: list, diffs: list, plot: Path | None) -> str:
    base = labels[0]
    out = ['<section id="comparison"><h2>Comparison</h2>',
           f'<p class="note">Each configuration against {escape(base)} (the same seeds): the difference and its '
           '95 % interval (Newcombe for win rates, Welch for means); flagged where the interval excludes 0.</p>']
    for label, d in zip(labels[1:], diffs):
        out.append(f"<h3>{escape(label)} − {escape(base)}</h3>")
        out.append('<table class="diffs"><tr><th>seat</th><th>win rate</th><th>95 % CI</th><th></th>'
                   '<th>mean score</th><th>95 % CI</th><th></th></tr>')
        for s in d["seats"]:
            w, sc = s["win_rate"], s["mean_score"]
            out.append(f'<tr><td>{escape(s["name"])}</td><td>{_signed(w[0], True)}</td>'
                       f'<td>{_signed(w[1], True)} … {_signed(w[2], True)}</td>'
                       f'<td>{"<span class=flag>significant</span>" if s["win_significant"] else ""}</td>'
                       f'<td>{_signed(sc[0])}</td><td>{_signed(sc[1])} … {_signed(sc[2])}</td>'
                       f'<td>{"<span class=flag>significant</span>" if s["score_significant"] else ""}</td></tr>')
        if d["first_player"]:
            f = d["first_player"]
            out.append(f'<tr><td>first player</td><td>{_signed(f[0], True)}</td>'
                       f'<td>{_signed(f[1], True)} … {_signed(f[2], True)}</td>'
                       f'<td>{"<span class=flag>significant</span>" if not f[1] <= 0 <= f[2] else ""}</td>'
                       '<td></td><td></td><td></td></tr>')
        if d["decisions"]:
            x = d["decisions"]
            out.append(f'<tr><td>decisions per game</td><td></td><td></td><td></td><td>{_signed(x[0])}</td>'
                       f'<td>{_signed(x[1])} … {_signed(x[2])}</td><td></td></tr>')
        out.append("</table>")
    out.append(f'<div class="plots">{_img(plot, "win rates side by side")}</div></section>')
    return "\n".join(out)


def page(title: str, meta: list, sections: list) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
            f"<h1>{escape(title)}</h1>"
            + "".join(f'<p class="meta">{escape(m)}</p>' for m in meta)
            + "\n".join(sections) + "</body></html>\n")
