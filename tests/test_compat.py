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
