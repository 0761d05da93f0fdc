"""`regelwerk check`: simulation findings, each located and reproducible."""
import json

from interpreter.cli import main
from interpreter.simulate import run_check, structure_problems
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


def test_a_sound_rulebook_has_no_findings(capsys):
    from conftest import RULES
    code = main(["check", str(RULES / "azul_summer_pavilion"), "--games", "3", "--jobs", "1"])
    assert code == 0 and "0 problems found" in capsys.readouterr().out
