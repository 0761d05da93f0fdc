"""Rulebooks that validated once keep validating (tests/compat/README.md, docs/compatibility.md).

tests/compat/<commit>/ holds every rulebook of rules/ (and tests/rulebooks) as it
was at that commit, and tests/compat/outside/ rulebooks written outside the project,
copied unchanged.  Each must still validate with no error and play a game to its end;
in the slow suite each passes its scenarios (`regelwerk test`) and `regelwerk check
--games 30`, and so does every rulebook of ../shared/compat/ where that folder is.  A
change of the language that breaks one is a language version change, made
deliberately, with a located migration message."""
import os
from pathlib import Path

import pytest

from interpreter.cli import main
from interpreter.game import Rulebook, check_rulebook
from interpreter.game import Rng
from dsl.diagnostics import Diagnostic

COMPAT = Path(__file__).parent / "compat"
ROOT = Path(__file__).resolve().parent.parent


def _shared_compat() -> Path | None:
    """The compatibility corpus kept beside the project (never edited, not in a clean clone):
    ``$REGELWERK_SHARED_COMPAT``, else ``shared/compat`` beside the project or beside its worktrees."""
    if os.environ.get("REGELWERK_SHARED_COMPAT"):
        return Path(os.environ["REGELWERK_SHARED_COMPAT"])
    for up in (ROOT.parent, ROOT.parent.parent):
        if (up / "shared" / "compat").is_dir():
            return up / "shared" / "compat"
    return None


SHARED = _shared_compat()
BOOKS = sorted(p.parent for p in [*COMPAT.glob("*/*/*/game.yaml"), *COMPAT.glob("outside/*/game.yaml")])
EVERY = BOOKS + (sorted(p.parent for p in SHARED.glob("*/game.yaml")) if SHARED else [])


def _name(p: Path) -> str:
    if SHARED and p.is_relative_to(SHARED):
        return "shared/" + p.name
    if p.parent.name == "outside":
        return "outside/" + p.name
    return "/".join(p.parts[-3:])


def test_the_compat_corpus_is_there():
    # the shipped games at 41d7473 and at 49f91fa, and the test rulebooks at 49f91fa
    names = {_name(p) for p in BOOKS}
    for game in ("azul_summer_pavilion", "iquazu", "moonlight_market", "yak"):
        assert f"41d7473/rules/{game}" in names and f"49f91fa/rules/{game}" in names
    assert "49f91fa/rulebooks/dice" in names and len(BOOKS) >= 15
    # this release's shipped games and test rulebooks, and the four written outside the project
    for game in ("azul_summer_pavilion", "iquazu", "moonlight_market", "yak"):
        assert f"c929670/rules/{game}" in names
    assert "c929670/rulebooks/hidden_die" in names
    assert {"outside/no_thanks", "outside/cant_stop", "outside/sushi_go", "outside/love_letter"} <= names


def _sized(folders):
    """The newest snapshot (c929670: today's rules/ and tests/rulebooks, which the default run
    validates and plays already) only in the slow suite: the default run stays under 5 minutes."""
    return [pytest.param(f, marks=pytest.mark.slow) if f.parent.parent.name == "c929670" else f for f in folders]


@pytest.mark.parametrize("folder", _sized(EVERY), ids=_name)
def test_an_old_rulebook_validates_and_plays(folder):
    report, game = check_rulebook(folder)
    errors = [d for d in report.items if d.severity == "error"]
    assert game is not None and not errors, "\n".join(map(str, errors))
    assert (folder / "game.yaml").read_text(encoding="utf-8").lstrip().startswith(("regelwerk: 1", "#"))
    rb = Rulebook.load(folder)
    players = rb.game.min_players
    st = rb.new_game(players, seed=11)
    rng = Rng(11, 5)
    n = 0
    while not st.is_terminal():
        legal = st.legal_actions()
        assert legal
        st.apply_action(legal[rng.below(len(legal))])
        n += 1
        assert n < 20_000, "the game does not end"
    assert len(st.returns()) == st.lay.num_seats


#: the rulebooks written to show a finding of `check`: that finding (a warning since issue 36), no error
SHOWS = {"c929670/rulebooks/leaky_param": {"RW920"}}      # tests/test_leaks.py: legal ids that name hidden cards


@pytest.mark.slow           # 2-20 s each (on two cores); a rulebook without scenarios has nothing to run
@pytest.mark.parametrize("folder", [f for f in EVERY if any((f / "scenarios").glob("*.yaml"))], ids=_name)
def test_an_old_rulebooks_scenarios_pass(folder, capsys):
    code = main(["test", str(folder)])
    out = capsys.readouterr()
    assert code == 0, out.out[-3000:] + out.err[-2000:]
    assert "Traceback" not in out.out + out.err


@pytest.mark.slow           # 10-60 s each (on two cores)
@pytest.mark.parametrize("folder", EVERY, ids=_name)
def test_an_old_rulebook_plays_clean_random_games(folder, capsys, tmp_path):
    """`check` finds no error (a new check is a warning for them: RW907, RW920); the rulebooks written
    outside the project with 30 games each, as the promise says, the snapshots of earlier releases with 8."""
    import json
    games = "30" if _name(folder).startswith(("outside/", "shared/")) else "8"
    code = main(["check", str(folder), "--games", games, "--format", "json", "--replays", str(tmp_path)])
    out = capsys.readouterr()
    findings = json.loads(out.out) if out.out.strip().startswith("[") else None
    assert findings is not None, out.out[-2000:] + out.err[-2000:]
    errors = [f for f in findings if f["severity"] == "error"]
    if _name(folder) in SHOWS:
        assert {f["code"] for f in findings} == SHOWS[_name(folder)]
    assert code == 0 and not errors, "\n".join(f"{f['file']}:{f['line']}:{f['column']}: {f['message']} "
                                                f"[{f['code']}]" for f in errors)


def test_another_language_version_is_a_located_error(tmp_path):
    # what a rulebook written for a version this engine does not know is told: where, and which
    (tmp_path / "game.yaml").write_text("regelwerk: 2\ngame: {name: X, players: {min: 2, max: 2}}\n"
                                        "flow: []\nend: {score: '0'}\n", encoding="utf-8")
    report, _ = check_rulebook(tmp_path)
    [d] = [d for d in report.items if d.severity == "error"]
    assert (d.pos.line, d.pos.col) == (1, 12) and "regelwerk" in d.message and "1" in d.message


def test_a_rulebook_may_define_every_standard_library_name(rulebook):
    # docs/compatibility.md: a rulebook's own names win over the standard library's, so the
    # library can grow without breaking anyone (issue 37: a rulebook's own `inside(r, c)` was
    # refused once the library gained `inside(cells, rows, cols)`)
    from interpreter.engine.run.stdlib import BUILTINS
    names = sorted(BUILTINS)
    functions = "".join(f"  {name}: {{params: {{x: int}}, value: \"x * 1000 + {i}\"}}\n"
                        for i, name in enumerate(names))
    calls = " + ".join(f"{name}({i})" for i, name in enumerate(names))
    folder = rulebook(
        "regelwerk: 1\n"
        "game: {name: Shadows, players: {min: 2, max: 2}}\n"
        "functions:\n" + functions +
        "variables:\n  total: {init: 0}\n  steps: {init: 0}\n"
        "actions:\n  go:\n    do:\n"
        f"      - set: \"total = {calls}\"\n"
        "      - set: \"steps = 0\"\n"
        "      - for: \"i in 0..min(0) - 1\"\n"       # min(0) is the rulebook's: 0 * 1000 + index
        "        do: [{set: \"steps += 1\"}]\n"
        "flow:\n  - turns: 0\n    once: true\n    do: [{decide: [go]}]\n"
        "end:\n  score: \"total + count(steps) if p == 0 else steps\"\n")
    report, game = check_rulebook(folder)
    assert game is not None and not report.errors, "\n".join(map(str, report.errors))
    rb = Rulebook.load(folder)
    st = rb.new_game(2, seed=1)
    for i, name in enumerate(names):          # each name is the rulebook's own function
        assert rb.evaluate(st, f"{name}(7)") == 7000 + i, name
    while not st.is_terminal():               # each seat takes its turn: the same values again
        st.apply_action(st.legal_actions()[0])
    expected_total = sum(i * 1000 + i for i in range(len(names)))
    k_min, k_count = names.index("min"), names.index("count")
    steps = k_min                              # 0..min(0) - 1 runs min(0) = k_min times
    assert st.scores() == [expected_total + steps * 1000 + k_count, steps]


SHORT_TABLE = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 2}}
tables:
  points: {1: 10}
variables: {score: 0}
actions:
  inc: {do: [{set: "score += 1"}]}
flow:
  - for: "k in 1..2"
    do: [{set: "score += points[k]"}]
  - repeat: 2
    do: [{decide: [inc], who: 0}]
end: {score: "score"}
"""


def test_a_check_that_is_an_error_from_a_later_version_warns_older_rulebooks(rulebook, monkeypatch):
    # docs/compatibility.md: a new check enters dsl.diagnostics.ERROR_FROM with the version that
    # makes it an error; a rulebook declaring an older version gets it as a located warning
    from dsl import diagnostics
    folder = rulebook(SHORT_TABLE)                    # k takes 2, points has only 1: RW207
    report, game = check_rulebook(folder)
    [found] = [d for d in report.items if d.code == "RW207"]
    assert found.is_error and game is None
    monkeypatch.setitem(diagnostics.ERROR_FROM, "RW207", 2)
    report, game = check_rulebook(folder)
    [found] = [d for d in report.items if d.code == "RW207"]
    assert not report.errors and game is not None
    assert found.severity == "warning" and (found.pos.line, found.pos.col) == (10, 33)
    assert found.message.endswith("(an error for rulebooks of language version 2 on, `regelwerk: 2`)")


def test_a_diagnostic_carries_the_version_it_is_an_error_from():
    from dsl.diagnostics import Pos, Report
    for version, severity in ((1, "warning"), (2, "error"), (3, "error")):
        report = Report(version=version)
        report.error(Pos("game.yaml", 3, 4), "a new finding", "RW999", error_from=2)
        report.extend([Diagnostic(Pos("game.yaml", 5, 6), "another", "error", "RW998", error_from=2)])
        assert [d.severity for d in report.items] == [severity, severity]
        assert all(("version 2" in d.message) == (severity == "warning") for d in report.items)
    report = Report(version=1)
    report.error(Pos("game.yaml", 3, 4), "an old finding", "RW997")       # no error_from: always an error
    assert report.errors
