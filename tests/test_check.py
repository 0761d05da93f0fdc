"""`regelwerk check`: simulation findings, each located and reproducible."""
import json
import pytest

from interpreter.cli import main
from interpreter.tools.simulate import run_check, structure_problems
from interpreter.game import Rulebook

HEAD = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 3}}
"""


NEVER_ENDS = """
actions: {go: {do: []}}
flow:
  - while: "true"
    do: [{decide: [go], who: 0}]
end: {score: "0"}
"""

# n reaches 3 or 4 after two decisions, and the table stops at 2
SHORT_TABLE = """
tables:
  points: {1: 10, 2: 20}
variables: {n: 0, score: 0}
actions:
  inc: {params: {k: "1..2"}, do: [{set: "n += k"}, {set: "score = points[n]"}]}
flow:
  - repeat: 2
    do: [{decide: [inc], who: 0}]
end: {score: "score"}
"""


def check(rulebook_dir, **kw):
    kw.setdefault("games", 6)
    return run_check(str(rulebook_dir), kw.pop("games"), [2, 3], {}, [], max_decisions=kw.pop("max_decisions", 200),
                     check_every=1, jobs=1)


def test_a_game_that_does_not_end(rulebook):
    book = rulebook(HEAD + NEVER_ENDS)
    found = check(book, max_decisions=30)
    assert {f.code for f in found} == {"RW901"}
    assert all(len(f.decisions) == 30 for f in found)


def test_no_legal_action_is_located_at_the_decision(rulebook):
    book = rulebook(HEAD + """
variables: {n: 3}
actions:
  take: {params: {k: "1..n"}, do: [{set: "n -= k"}]}
flow:
  - while: "true"
    do:
      - decide: [take]
        who: 0
end: {score: "0"}
""")
    found = check(book)
    assert found and {f.code for f in found} == {"RW902"}
    text = (book / "game.yaml").read_text().splitlines()
    assert text[found[0].line - 1].strip().startswith("- decide:")


def test_a_declared_invariant_is_checked_after_every_decision(rulebook):
    book = rulebook(HEAD + """
variables: {n: 0}
actions:
  inc: {params: {k: "1..2"}, do: [{set: "n += k"}]}
invariants:
  below_five: "n < 5"
flow:
  - repeat: 4
    do: [{decide: [inc], who: 0}]
end: {score: "n"}
""")
    found = check(book, games=20)
    assert found and {f.code for f in found} == {"RW903"}
    # n goes up by 1 or 2 per decision: it reaches 5 after 3 decisions at the earliest
    assert min(len(f.decisions) for f in found) >= 3
    assert "below_five" in found[0].message


def test_an_error_inside_an_expression_is_located(rulebook):
    book = rulebook(HEAD + SHORT_TABLE)
    found = check(book, games=20)
    assert found and {f.code for f in found} == {"RW905"}
    assert "table 'points' has no row for" in found[0].message
    line = (book / "game.yaml").read_text().splitlines()[found[0].line - 1]
    assert "points[n]" in line


def test_structure_problems_are_found():
    from conftest import RULES
    rb = Rulebook.load(RULES / "azul_summer_pavilion")
    st = rb.new_game(2, 1)
    assert structure_problems(st) == []
    comp = st.z[st.lay.zone_by_name("bag").id][0]
    st.z[st.lay.zone_by_name("tower").id].append(comp)           # now in two zones
    assert any("is in bag and tower" in p for p in structure_problems(st))


def test_cli_check_writes_a_replay_that_reproduces_the_finding(rulebook, tmp_path, capsys):
    book = rulebook(HEAD + SHORT_TABLE)
    replays = tmp_path / "replays"
    code = main(["check", str(book), "--games", "10", "--jobs", "1", "--replays", str(replays)])
    out = capsys.readouterr().out
    assert code == 1 and "[RW905]" in out and "replay: regelwerk replay" in out
    files = sorted(replays.glob("*.jsonl"))
    assert files
    code = main(["replay", str(files[0])])
    err = capsys.readouterr().err
    assert code == 1 and "table 'points' has no row for" in err


def test_cli_check_json(rulebook, capsys):
    book = rulebook(HEAD + NEVER_ENDS)
    code = main(["check", str(book), "--games", "2", "--jobs", "1", "--max-decisions", "10", "--format", "json"])
    items = json.loads(capsys.readouterr().out)
    assert code == 1 and items[0]["code"] == "RW901"
    assert {"file", "line", "column", "seed", "decisions"} <= set(items[0])


@pytest.mark.slow      # (~13 s: every policy's games at every player count; .ci/run also checks every shipped rulebook)
def test_a_sound_rulebook_has_no_findings(capsys):
    from conftest import RULES
    code = main(["check", str(RULES / "azul_summer_pavilion"), "--games", "3", "--jobs", "1"])
    assert code == 0 and "0 problems found" in capsys.readouterr().out


# four decisions for every player count; the rulebook says 3 for 2 players, 4 for 3
STATED_BOUND = """
actions: {go: {do: []}}
flow:
  - repeat: 4
    do: [{decide: [go], who: 0}]
end: {score: "0"}
"""


def test_a_game_longer_than_the_stated_bound_is_reported_at_the_bound(rulebook):
    text = HEAD.replace("players: {min: 2, max: 3}}", "players: {min: 2, max: 3}, max_decisions: \"num_players + 1\"}")
    path = rulebook(text + STATED_BOUND)
    rb = Rulebook.load(path)
    assert rb.info(2)["max_game_length"] == 3 and rb.info(3)["max_game_length"] == 4
    found = check(path, games=2)
    assert {f.players for f in found} == {2}          # 4 decisions are within 3 players' bound of 4
    f = found[0]
    assert f.code == "RW901" and "the rulebook's max_decisions for 2 players" in f.message
    game_line = text.splitlines()[1]                  # located at the bound's value in game.yaml
    assert (f.line, f.col) == (2, game_line.index('"num_players + 1"') + 1), (f.line, f.col)


def test_without_a_stated_bound_max_game_length_is_none(rulebook):
    rb = Rulebook.load(rulebook(HEAD + STATED_BOUND))
    assert rb.info(2)["max_game_length"] is None


def test_a_bound_that_is_not_a_whole_number_is_a_located_error(rulebook, capsys):
    bad = HEAD.replace("players: {min: 2, max: 3}}", "players: {min: 2, max: 3}, max_decisions: \"seat_name(0)\"}")
    assert main(["validate", str(rulebook(bad + STATED_BOUND))]) == 1
    assert ":2:" in capsys.readouterr().out
    zero = HEAD.replace("players: {min: 2, max: 3}}", "players: {min: 2, max: 3}, max_decisions: \"num_players - 2\"}")
    assert main(["play", str(rulebook(zero + STATED_BOUND)), "--players", "2", "--seed", "1"]) == 1
    err = capsys.readouterr().err
    assert ":2:" in err and "max_decisions must be a whole number of at least 1, not 0" in err
