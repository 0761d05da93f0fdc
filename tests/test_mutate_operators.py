"""The mutation operators issue 32 added to `regelwerk mutate` (interpreter/tools/mutate.py):
`range` (a range's end one off), `index` (a subscript one off), `bound` (a `min:`/`max:` entry
dropped), `minmax` on a `min:`/`max:` key, `zone` to the box (a destination's sibling out of the
game) and `delete` of a list's only step. Each is shown generated on the small rulebook
tests/rulebooks/bounds_and_zones, and killed by its one scenario (about 1.5 s)."""
from pathlib import Path

import yaml

from interpreter.tools.mutate import enumerate_mutants, mutate

ROOT = Path(__file__).parent.parent
BOOK = Path(__file__).parent / "rulebooks" / "bounds_and_zones"
NEW = {"range", "index", "bound", "minmax", "zone", "delete"}


def _written(m):
    text = (BOOK / m.file).read_text()
    return text[:m.start] + m.replacement + text[m.end:]


def test_each_new_operator_generates_its_mutants():
    mutants, equivalent = enumerate_mutants(BOOK)
    assert equivalent == {}
    shown = {(m.kind, m.before, m.after) for m in mutants}
    assert ("range", "1..slots", "1..slots - 1") in shown and ("range", "1..slots", "1..slots + 1") in shown
    # a range's end that is a number is the int kind's: no range mutant of the bounds' 1..3
    assert not any(m.kind == "range" and "1..3" in m.before for m in mutants)
    assert ("index", "points[player] -= k - 1", "points[player + 1] -= k - 1") in shown
    assert ("index", "points[p] + count(kept[p])", "points[p] + count(kept[p - 1])") in shown
    assert ("index", "kept[player]", "kept[player + 1]") in shown
    assert ("bound", "min: 0", "(dropped)") in shown and ("minmax", "min: 0", "max: 0") in shown
    assert ("bound", "max: 2", "(dropped)") in shown
    assert not any(m.kind == "minmax" and "2" in m.before for m in mutants)  # players has both keys
    assert ("zone", "box", "pool") in shown
    only = [m for m in mutants if m.kind == "delete" and m.after.startswith("(only step")]
    assert sorted(m.before.split(":")[0] for m in only) == ["- decide", "- set"]
    for m in mutants:
        if m.kind in NEW:
            yaml.safe_load(_written(m))          # every mutant is still YAML
    written = _written(next(m for m in only if m.before.startswith("- set")))
    assert yaml.safe_load(written)["actions"]["take"]["do"][1]["then"] == []
    dropped = _written(next(m for m in mutants if m.kind == "bound" and m.before == "min: 0"))
    assert yaml.safe_load(dropped)["variables"]["points"] == {"index": {"p": "players"}, "init": 1}
    dropped = _written(next(m for m in mutants if m.kind == "bound" and m.before == "max: 2"))
    assert yaml.safe_load(dropped)["game"]["players"] == {"min": 2}


def test_the_scenario_kills_every_mutant_of_the_new_operators():
    run = mutate(BOOK, only=lambda m: m.kind in NEW)
    kinds = {m.kind for m in run.mutants}
    assert kinds == NEW
    assert run.survivors() == [] and run.kill_rate() == 100.0
    assert run.counts()["scenarios"] >= 15      # most by the scenario, not by validate


def test_a_shipped_move_to_an_unindexed_zone_may_go_to_the_box():
    # issue 32: Yak's 5th fog `to: bag` → `to: box` was a mutant the tool did not make
    mutants, _ = enumerate_mutants(ROOT / "rules" / "yak")
    assert any(m.kind == "zone" and m.file == "flow.yaml" and m.before.strip().startswith("bag")
               and m.replacement == "box" for m in mutants)
