"""Public and secret history per parameter: `secret: [names]`, `secret: false`,
and the default (a component moved into a zone not everyone sees is secret,
unless chosen from a zone everyone sees); a seat's observation holds the
history as it knows it.  Rulebook: tests/rulebooks/sealed_offers."""
import json
from pathlib import Path

from interpreter.game import Rulebook, check_rulebook
from interpreter.play.narrate import Narrator
from interpreter.engine.run.playerapi import public_action_id
from interpreter.tools.scenarios import ScenarioRunner, find_scenarios

BOOK = Path(__file__).parent / "rulebooks" / "sealed_offers"


def test_the_scenario_passes():
    for folder, file in find_scenarios([BOOK]):
        result = ScenarioRunner(Rulebook.load(folder), file).run()
        assert result.ok, "\n".join(d.format() for d in result.messages)


def test_the_card_is_secret_by_default_and_the_stake_public():
    rb = Rulebook.load(BOOK)
    st = rb.new_game(2, seed=1)
    st.apply_action("offer(card=3,n=2)")
    assert st.observation(1)["history"] == [[0, "offer(card=…,n=2)"]]
    assert st.observation(0)["history"] == [[0, "offer(card=3,n=2)"]]
    assert st.observation(None)["history"] == [[0, "offer(card=…,n=2)"]]
    assert st.history_for(1) == [(0, "offer(card=…,n=2)")]
    assert Narrator(st).decision(0, "offer(card=3,n=2)", viewer=1) == "Player 1: offer(card=…, n=2)"
    assert Narrator(st).decision(0, "offer(card=3,n=2)", viewer=0) == "Player 1: offer(card=3, n=2)"
    st.apply_action("offer(card=5,n=1)")
    json.dumps(st.observation(0))                   # plain JSON
    assert st.observation(0)["history"] == [[0, "offer(card=3,n=2)"], [1, "offer(card=…,n=1)"]]


def _game(rulebook, secret_line):
    return rulebook("""
regelwerk: 1
game: {name: T, players: {min: 2, max: 2}}
components:
  chip: {attributes: {v: int}, items: [{for_each: {v: "1..3"}, count: 1}], label: "c{v}", home: pool}
zones:
  pool: {holds: [chip]}
  mine: {index: {p: players}, holds: [chip], visible: "viewer == p"}
variables:
  bid: {index: {p: players}, init: 0}
actions:
  take:
    %s
    params: {c: "pool", n: "1..2"}
    do:
      - move: c
        to: "mine[player]"
      - set: "bid[player] = n"
flow:
  - turns: 0
    once: true
    do: [{decide: [take]}]
end: {score: "bid[p]"}
""" % secret_line)


def test_explicit_secret_parameters_override_the_default(rulebook):
    cases = {
        "": "take(c=c1,n=2)",                      # chosen from an open pool: everyone saw it go
        "secret: [n]": "take(c=c1,n=…)",
        "secret: [c, n]": "take(…)",
        "secret: true": "take(…)",
        "secret: false": "take(c=c1,n=2)",
    }
    for line, seen in cases.items():
        path = _game(rulebook, line)
        report, _ = check_rulebook(path)
        assert not report.has_errors, [d.format() for d in report.items]
        st = Rulebook.load(path).new_game(2)
        st.apply_action("take(c=c1,n=2)")
        assert st.history_for(1) == [(0, seen)], line
        assert st.history_for(0) == [(0, "take(c=c1,n=2)")]


def test_an_unknown_secret_parameter_is_a_located_error(rulebook):
    report, _ = check_rulebook(_game(rulebook, "secret: [m]"))
    found = [d for d in report.items if d.code == "RW101"]
    assert found and "no parameter 'm'" in found[0].message and found[0].pos.line == 13


def test_redaction_never_leaks_a_value_from_an_odd_id():
    class G:
        redact = {"a": (("x", "y"), frozenset({"y"}))}
    assert public_action_id(G, "a(x=1,y=2)") == "a(x=1,y=…)"
    assert public_action_id(G, "a(x=(1, 2),y=(3, 4))") == "a(x=(1, 2),y=…)"
    assert public_action_id(G, "a(z=1)") == "a(…)"
    assert public_action_id(G, "b(y=2)") == "b(y=2)"


def test_the_shipped_games_use_it():
    """Yak's morning card is chosen face down (secret: true, simultaneous: morning);
    Moonlight Market's bids are open: every seat's observation holds the whole bidding."""
    from conftest import RULES
    yak = Rulebook.load(RULES / "yak").new_game(2, seed=1)
    assert yak.simultaneous() == "morning"
    yak.apply_action(yak.legal_actions()[0])
    assert yak.observation(1)["history"] == [[0, "choose(…)"]]
    assert yak.observation(0)["history"][0][1].startswith("choose(card=")
    mm = Rulebook.load(RULES / "moonlight_market").new_game(3, seed=1)
    for _ in range(4):
        mm.apply_action(mm.legal_actions()[-1])
    seen = mm.observation(1)["history"]
    assert len(seen) == 4 and all("…" not in a for _, a in seen)
    assert seen == [list(h) for h in mm.history]
