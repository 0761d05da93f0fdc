"""Knowledge: a `reveal` step shows zones to chosen seats until their contents
change; observations show it, `known(p, z)` reads it, and it survives clone and
to_json.  Rulebook: tests/rulebooks/knowledge (Peek)."""
import json
from pathlib import Path

from dsl.diagnostics import RulebookError
from interpreter.game import Rulebook, check_rulebook
from interpreter.tools.scenarios import ScenarioRunner, find_scenarios

BOOK = Path(__file__).parent / "rulebooks" / "knowledge"


def started(seed=1):
    """Player 1 holds a 2, Player 2 a 5 (as in the scenario)."""
    from dsl.diagnostics import Pos
    rb = Rulebook.load(BOOK)

    def start(st):
        zones = {z.name: z for z in st.lay.zones}
        for name, label in (("hand[0]", "2"), ("hand[1]", "5")):
            st.move(tuple(st.z[zones[name].id]), zones["deck"], False, Pos("test"))
            comp = next(c for c in st.lay.by_label[label] if st.where[c.id] == zones["deck"].id)
            st.move((comp,), zones[name], False, Pos("test"))
        return None, {}
    return rb, rb.new_game(2, seed=seed, start=start)


def test_the_scenario_passes():
    for folder, file in find_scenarios([BOOK]):
        result = ScenarioRunner(Rulebook.load(folder), file).run()
        assert result.ok, "\n".join(d.format() for d in result.messages)


def test_a_revealed_zone_shows_in_the_seats_observation_until_it_changes():
    rb, st = started()
    assert st.observation(0)["zones"]["hand[1]"] == {"count": 1}
    st.apply_action("peek(target=1)")
    assert st.observation(0)["zones"]["hand[1]"] == ["5"]          # the peeker sees it
    assert st.observation(1)["zones"]["hand[0]"] == {"count": 1}   # nothing else changed
    # an onlooker sees what every seat sees (issue 36): seat 1 its own hand, seat 0 the revealed one
    assert st.observation(None)["zones"]["hand[1]"] == ["5"]
    assert st.observation(None)["zones"]["hand[0]"] == {"count": 1}  # seat 1 does not see this one
    assert rb.evaluate(st, "known(0, hand[1])") is True
    assert rb.evaluate(st, "known(0, deck)") is False
    st.apply_action("guess(target=0,v=1)")                          # wrong: nothing moves
    assert st.observation(0)["zones"]["hand[1]"] == ["5"]
    st.apply_action("guess(target=1,v=5)")                          # right: hand[1] gets a new card
    assert st.observation(0)["zones"]["hand[1]"] == {"count": 1}
    assert rb.evaluate(st, "known(0, hand[1])") is False


def test_knowledge_survives_clone_and_json_and_clones_are_independent():
    rb, st = started()
    st.apply_action("peek(target=1)")
    data = json.loads(json.dumps(st.to_json()))
    assert data["known"]
    again = rb.state_from_json(data)
    assert again.observation(0)["zones"]["hand[1]"] == ["5"]
    copy = st.clone()
    copy.apply_action("guess(target=0,v=2)")   # a right guess: hand[0] changes in the copy only
    assert rb.evaluate(st, "known(0, hand[1])") and rb.evaluate(copy, "known(0, hand[1])")
    assert "known" not in rb.new_game(2, seed=3).to_json()   # nothing revealed: the format as before


def test_resampling_keeps_what_the_seat_was_shown():
    rb, st = started()
    st.apply_action("peek(target=1)")
    for seed in range(20):
        r = st.resample(0, seed)
        assert r.observation(0)["zones"]["hand[1]"] == ["5"]


def test_reveal_is_checked(rulebook):
    header = "regelwerk: 1\ngame: {name: T, players: {min: 2, max: 2}}\n"
    body = """
zones:
  hand: {index: {p: players}, visible: "viewer == p"}
  table: {}
variables: {n: 0}
flow:
  - reveal: %s
    to: %s
  - set: "n = 1"
end: {score: "n"}
"""
    path = rulebook(header + body % ('"table"', "0"))
    report, _ = check_rulebook(path)
    assert any(d.code == "RW010" for d in report.items), "to: must be an expression text"
    path = rulebook(header + body % ('"table"', '"0"'))
    report, _ = check_rulebook(path)
    assert [d.code for d in report.items if d.code == "RW152"] == ["RW152"]   # table is visible to all
    path = rulebook(header + body % ('"n"', '"0"'))           # a variable may be revealed (issue 26) …
    report, _ = check_rulebook(path)
    assert [d.code for d in report.items if d.code != "RW201"] == ["RW152"]    # … but n is visible to all
    path = rulebook(header + body % ('"1 + 1"', '"0"'))
    report, _ = check_rulebook(path)
    assert any(d.code == "RW102" and "zone" in d.message for d in report.items)
    path = rulebook(header + body % ('"hand[0]"', '"hand[1]"'))
    report, _ = check_rulebook(path)
    assert any(d.code == "RW102" and "seat" in d.message for d in report.items)
    path = rulebook(header + body % ('"[hand[p] for p in players]"', '"players"'))
    report, _ = check_rulebook(path)
    assert not [d for d in report.items if d.code != "RW201"], [d.format() for d in report.items]  # table unused
    st = Rulebook.load(path).new_game(2)
    assert st.observation(1)["zones"]["hand[0]"] == []     # revealed to all (empty hands)
