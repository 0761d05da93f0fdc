"""regelwerk report: the numbers come from the games, whoever plays them.

The statistics are checked against published values (Newcombe 1998) and
against a direct count over the report's own JSON Lines; the page is checked
for what it must show.  A browser test (tests/test_report_browser.py) opens it.
"""
from __future__ import annotations

import json
import math

import pytest

from interpreter.cli import main
from interpreter.tools.report.stats import diff_of_proportions, mean_ci, wilson

from conftest import RULES

pytest.importorskip("matplotlib", reason="reports need the report extra (pip install -e '.[report]')")


# --- statistics against published values -------------------------------------------------------

def test_wilson_interval_matches_newcombe_1998():
    # Newcombe (1998), Statistics in Medicine 17:857-872, table I: 81/263 -> 0.2553 to 0.3662;
    # 15/148 -> 0.0624 to 0.1605; 0/20 -> 0 to 0.1611; 1/29 -> 0.0061 to 0.1718
    for k, n, lo, hi in [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611),
                         (1, 29, 0.0061, 0.1718)]:
        got = wilson(k, n)
        assert got[0] == pytest.approx(lo, abs=5e-5) and got[1] == pytest.approx(hi, abs=5e-5), (k, n, got)


def test_difference_of_proportions_matches_newcombe_1998_method_10():
    # Newcombe (1998b), Statistics in Medicine 17:873-890, table II, example (a): 56/70 - 48/80,
    # method 10 (score, no continuity correction): +0.0524 to +0.3339
    d, lo, hi = diff_of_proportions(56, 70, 48, 80)
    assert d == pytest.approx(0.2)
    assert lo == pytest.approx(0.0524, abs=5e-5) and hi == pytest.approx(0.3339, abs=5e-5)


def test_mean_interval_by_hand():
    # mean 3, sample sd sqrt(2.5) over 5 values: 3 ± 1.96 * 1.5811 / sqrt(5) = 3 ± 1.3859
    m, lo, hi = mean_ci([1, 2, 3, 4, 5])
    assert m == 3 and lo == pytest.approx(3 - 1.959964 * math.sqrt(2.5) / math.sqrt(5), abs=1e-5)
    assert hi == pytest.approx(6 - lo)


# --- the report ------------------------------------------------------------------------------

def _report(tmp_path, name, *args):
    out = tmp_path / name
    assert main(["report", *map(str, args), "--out", str(out)]) == 0
    rows = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    summary = json.loads((out / "summary.json").read_text())
    return out, rows, summary


def test_iquazu_report_numbers_are_a_direct_count_of_the_games(tmp_path, capsys):
    out, rows, summary = _report(tmp_path, "r", RULES / "iquazu", "--games", 30, "--players", 2, "--jobs", 1)
    assert len(rows) == 30 and [r["seed"] for r in rows] == list(range(1, 31))
    assert all(r["error"] is None for r in rows)
    base = summary["configs"]["base"]
    n = len(rows)
    wins = [sum(1 for r in rows if r["ranking"][s] == 1) for s in range(2)]
    fair = sum(wins) / (2 * n)
    html = (out / "report.html").read_text()
    for s, seat in enumerate(base["seats"]):
        assert seat["wins"] == wins[s]
        assert seat["win_rate"] == pytest.approx(wins[s] / n)
        # the Wilson interval, written out: (p + z²/2n ± z √(p(1-p)/n + z²/4n²)) / (1 + z²/n)
        z, p = 1.959963984540054, wins[s] / n
        centre, half = (p + z * z / (2 * n)), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        assert seat["ci"] == pytest.approx([(centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)])
        assert seat["significant"] == (not seat["ci"][0] <= fair <= seat["ci"][1])
        assert seat["mean_score"] == pytest.approx(sum(r["scores"][s] for r in rows) / n)
        assert f"{100 * wins[s] / n:.1f} %" in html             # the page shows the same numbers
    first = sum(1 for r in rows if r["first_player"] in r["winners"])
    assert base["first_player"]["wins"] == first
    assert base["length"]["decisions"]["max"] == max(r["decisions"] for r in rows)
    # score parts: the rulebook names bonus tiles and the rest, rock majorities; they add up
    assert list(base["parts"]) == ["bonus tiles", "rock majorities"]
    for r in rows:
        assert [sum(p.values()) for p in r["parts"]] == r["scores"]
    assert base["parts"]["bonus tiles"][0] == pytest.approx(sum(r["parts"][0]["bonus tiles"] for r in rows) / n)
    # actions per seat, by name
    assert sum(base["actions"][0].values()) + sum(base["actions"][1].values()) == sum(r["decisions"] for r in rows)
    for png in ("win_rates", "scores", "lengths", "score_parts", "actions"):
        assert (out / f"{png}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert 'src="data:image/png;base64,' in html and "http" not in html.replace("http-equiv", "")
    assert "Who wins" in html and "95 % CI" in html
    printed = capsys.readouterr().out
    assert "Player 1" in printed and "report.html" in printed


@pytest.mark.slow
def test_the_numbers_do_not_depend_on_the_workers(tmp_path):
    args = (RULES / "yak", "--games", 8, "--players", 2)
    _, rows1, s1 = _report(tmp_path, "one", *args, "--jobs", 1)
    _, rows2, s2 = _report(tmp_path, "two", *args, "--jobs", 2)
    assert rows1 == rows2 and s1 == s2


@pytest.mark.slow     # starting a ray cluster: 14 s of the default run on a loaded machine
def test_the_ray_backend_gives_the_same_numbers(tmp_path):
    pytest.importorskip("ray", reason="the ray backend needs the ray extra (pip install -e '.[ray]')")
    import ray
    args = (RULES / "yak", "--games", 6, "--players", 2)
    _, rows1, s1 = _report(tmp_path, "local", *args, "--jobs", 2)
    try:
        _, rows2, s2 = _report(tmp_path, "ray", *args, "--backend", "ray", "--jobs", 2)
    finally:
        ray.shutdown()
    assert rows1 == rows2 and s1 == s2


@pytest.mark.slow
def test_compare_a_variant_side_by_side(tmp_path):
    out, rows, summary = _report(tmp_path, "c", RULES / "yak", "--games", 6, "--players", 2,
                                 "--compare", "variant=bonus_cards", "--jobs", 1)
    assert list(summary["configs"]) == ["base", "+bonus_cards"]
    assert [r["variants"] for r in rows] == [[]] * 6 + [["bonus_cards"]] * 6
    # the bonus cards part is 0 without the variant in every game
    assert all(p["bonus cards"] == 0 for r in rows[:6] for p in r["parts"])
    html = (out / "report.html").read_text()
    assert 'id="config-base"' in html and 'id="config-+bonus_cards"' in html and 'id="comparison"' in html
    d = summary["comparisons"]["+bonus_cards"]
    base, other = summary["configs"]["base"], summary["configs"]["+bonus_cards"]
    for ds, sb, so in zip(d["seats"], base["seats"], other["seats"]):
        assert ds["win_rate"][0] == pytest.approx(so["win_rate"] - sb["win_rate"])
        assert ds["mean_score"][0] == pytest.approx(so["mean_score"] - sb["mean_score"])
        assert ds["win_rate"][1] <= ds["win_rate"][0] <= ds["win_rate"][2]
    assert (out / "compare_win_rates.png").exists()


@pytest.mark.slow
def test_compare_option_values_with_an_automaton(tmp_path):
    out, rows, summary = _report(tmp_path, "m", RULES / "moonlight_market", "--games", 4, "--players", 3,
                                 "--compare", "option=automata=0,1", "--jobs", 1)
    assert list(summary["configs"]) == ["automata=0", "automata=1"]
    seats0 = [s["name"] for s in summary["configs"]["automata=0"]["seats"]]
    seats1 = [s["name"] for s in summary["configs"]["automata=1"]["seats"]]
    assert len(seats1) == len(seats0) + 1                         # the automaton takes a seat
    # compared seat by seat, by name: the automaton has nothing to compare with
    assert [s["name"] for s in summary["comparisons"]["automata=1"]["seats"]] == seats0


@pytest.mark.parametrize("spec, message", [
    ("colour=red", "--compare takes variant=NAME or option=NAME=V1,V2"),
    ("variant=nosuch", "no variant 'nosuch'"),
    ("option=nosuch=1,2", "no option 'nosuch'"),
])
def test_a_bad_compare_is_one_clear_line(tmp_path, capsys, spec, message):
    assert main(["report", str(RULES / "yak"), "--games", "2", "--compare", spec, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_nonsense_numbers_and_bots_are_refused(tmp_path, capsys):
    for args in (["--games", "0"], ["--games", "-3"], ["--players", "9"], ["--bots", "random,,greedy"],
                 ["--bots", "nosuch"]):
        assert main(["report", str(RULES / "yak"), *args, "--out", str(tmp_path)]) == 2, args
    err = capsys.readouterr().err
    assert "Traceback" not in err
