"""Rulebooks that validated once keep validating (tests/compat/README.md).

tests/compat/<commit>/ holds every rulebook of rules/ (and tests/rulebooks) as it
was at that commit, copied unchanged.  Each must still validate with no error and
play a game to its end; a change of the language that breaks one is a language
version change, made deliberately, with a located migration message."""
from pathlib import Path

import pytest

from interpreter.game import Rulebook, check_rulebook
from interpreter.game import Rng

COMPAT = Path(__file__).parent / "compat"
BOOKS = sorted(p.parent for p in COMPAT.glob("*/*/*/game.yaml"))


def _name(p: Path) -> str:
    return "/".join(p.parts[-3:])


def test_the_compat_corpus_is_there():
    # the shipped games at 41d7473 and at 49f91fa, and the test rulebooks at 49f91fa
    names = {_name(p) for p in BOOKS}
    for game in ("azul_summer_pavilion", "iquazu", "moonlight_market", "yak"):
        assert f"41d7473/rules/{game}" in names and f"49f91fa/rules/{game}" in names
    assert "49f91fa/rulebooks/dice" in names and len(BOOKS) >= 15


@pytest.mark.parametrize("folder", BOOKS, ids=_name)
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
    from interpreter.engine.stdlib import BUILTINS
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
