"""Step runs as generated code (interpreter/flowcode.py): the same games as one instruction at a time."""
from __future__ import annotations

import pytest

from dsl.diagnostics import RuleRuntimeError
from interpreter.engine.compile import flowcode
from interpreter.ai.bots import RandomBot
from interpreter.game import Rulebook

from conftest import MINIMAL_HEADER, RULES, SHIPPED


def one_at_a_time(rb: Rulebook) -> Rulebook:
    """The rulebook run as before generated step code: the run loop calls each instruction."""
    for proc in rb.game.all_procs.values():
        proc.entries = None
    return rb


def play(rb, players, seed, round_trip=False):
    """A random game; with ``round_trip`` the state goes through to_json/from_json before every
    decision (frames then resume at whatever pc they stood)."""
    st = rb.new_game(players, seed)
    bots = [RandomBot(seed, s) for s in range(st.lay.num_seats)]
    while not st.is_terminal():
        if round_trip:
            st = rb.state_from_json(st.to_json())
        st.apply_index(bots[st.current_player()].choose_index(st))
    return st.history, st.scores(), st.log


@pytest.mark.parametrize("game", SHIPPED)
def test_generated_step_code_plays_the_same_games(game):
    fast = Rulebook.load(RULES / game)
    slow = one_at_a_time(Rulebook.load(RULES / game))
    for players in sorted({fast.game.min_players, fast.game.max_players}):
        for seed in (1, 2):
            expected = play(slow, players, seed)
            assert play(fast, players, seed) == expected
            assert play(fast, players, seed, round_trip=True)[:2] == expected[:2]
    ran = [e for p in fast.game.all_procs.values() for e in p.entries if e.__name__ == "_rw_entry"]
    assert ran and not any(p.entries for p in slow.game.all_procs.values())


@pytest.mark.parametrize("game", SHIPPED)
def test_every_pc_has_generated_code(game):
    rb = Rulebook.load(RULES / game)
    made = 0
    for proc in rb.game.all_procs.values():
        for pc in range(len(proc.code)):
            entry = flowcode.make_entry(proc, pc)
            assert entry is not proc.code[pc], f"{proc.name} at {pc}: fell back to the instruction"
            assert entry.__doc__.startswith("def _rw_entry")
            made += 1
    assert made > 50


def _load(rulebook, body) -> Rulebook:
    return Rulebook.load(rulebook(MINIMAL_HEADER + body))


def test_a_fault_inside_generated_code_is_located_at_its_step(rulebook):
    rb = _load(rulebook, """\
variables: {x: 0}
flow:
  - set: "x = 1"
  - repeat: 2
    do:
      - set: "x += 1"
      - log: "x is {x}"
end: {score: "x"}
""")
    flow = rb.game.flow
    from interpreter.engine.compile.effects import _log_line
    [name] = [k for k, v in flow.gen.ns.items() if v is _log_line]

    def broken(line):
        raise ValueError("boom")
    flow.gen.ns[name] = broken          # before the flow's code is generated (on first use)
    with pytest.raises(RuleRuntimeError) as info:
        rb.new_game(2, 1)
    assert "internal error while running this step: ValueError: boom" in info.value.message
    assert info.value.pos.line == 9 and flow.positions[0].line == 5   # the log step, not the first


def test_a_generated_loop_keeps_to_the_steps_limit_of_its_run(rulebook):
    rb = _load(rulebook, """\
variables: {x: 0}
setup:
  - while: "true"
    do: [{set: "x += 1"}]
flow: []
end: {score: "x"}
""")
    state, error = rb.try_setup(2, 1, limit=1000)
    assert error is not None and error.code == "RW910"
    assert "ran 1,000 steps" in error.message and error.pos.line == 5   # the while step
    assert state.v[0] < 1000                    # it stopped near the limit, not at LIMITS.steps


def test_loops_nested_deeper_than_python_allows_still_run(rulebook):
    depth = 25                                  # Python compiles at most 20 nested loops
    steps = "flow:\n"
    indent = "  "
    for _ in range(depth):
        steps += f"{indent}- repeat: 1\n{indent}  do:\n"
        indent += "    "
    steps += f"{indent}- set: \"x += 1\"\n"
    rb = _load(rulebook, "variables: {x: 0}\n" + steps + "end: {score: \"x\"}\n")
    st = rb.new_game(2, 1)
    assert st.is_terminal() and st.scores() == [1, 1]
    flow = rb.game.flow
    assert flowcode.make_entry(flow, 0) is flow.code[0]     # the instruction itself


BREAK_AFTER_A_DECISION = """\
variables: {x: 0, y: 0}
actions:
  go: {do: []}
flow:
  - for: "i in 1..5"
    do:
      - set: "x += 1"
      - decide: [go]
        who: 0
      - if: "i == 2"
        then: [{break: true}]
  - set: "y = 10"
end: {score: "x + y"}
"""


@pytest.mark.parametrize("generated", [True, False])
def test_a_break_in_the_rest_of_a_resumed_loop_leaves_it(rulebook, generated):
    # each decision stops the flow inside the loop; resumed there in round 2, the rest of
    # the round breaks out: two rounds (x = 2), then y = 10 once
    rb = _load(rulebook, BREAK_AFTER_A_DECISION)
    if not generated:
        one_at_a_time(rb)
    st = rb.new_game(2, 1)
    st.apply_action("go")
    assert not st.is_terminal()
    st.apply_action("go")
    assert st.is_terminal() and st.scores() == [12, 12]


FOR_WITHOUT_STOPS = """\
variables: {x: 0, k: 0, last: 0}
flow:
  - for: "i in 1..4"
    do:
      - for: "j in [10, 20, 30]"
        do:
          - if: "j == 30 and i == 2"
            then: [{break: true}]
          - set: "x += i * j"
      - if: "i == 3"
        then: [{break: true}]
  - for: "k in [5, 6, 7]"
    do:
      - set: "last = k"
end: {score: "x * 100 + last * 10 + k"}
"""


@pytest.mark.parametrize("generated", [True, False])
def test_a_for_loop_that_cannot_stop_runs_as_a_python_for(rulebook, generated):
    # i = 1: 10 + 20 + 30 = 60; i = 2: 20 + 40, then the inner break: 60; i = 3: 30 + 60 + 90
    # = 180, then the outer break: x = 300; the loop over k sets the variable k itself: last = k = 7
    rb = _load(rulebook, FOR_WITHOUT_STOPS)
    if not generated:
        one_at_a_time(rb)
    st = rb.new_game(2, 1)
    assert st.is_terminal() and st.scores() == [300 * 100 + 7 * 10 + 7] * 2
    if generated:
        assert "for _w_x in tuple(" in rb.game.flow.entries[0].__doc__


STOPS_IN_SOME_ROUNDS = """\
variables: {x: 0}
actions:
  go: {do: [{set: "x += 1000"}]}
flow:
  - for: "i in [1, 2, 3, 4, 5, 6]"
    do:
      - set: "x = x * 10 + i"
      - if: "i % 3 == 0"
        then:
          - decide: [go]
            who: 0
      - if: "i == 5"
        then: [{break: true}]
end: {score: "x"}
"""


@pytest.mark.parametrize("generated", [True, False])
def test_a_for_loop_that_stops_only_in_a_branch_goes_on_where_it_stopped(rulebook, generated):
    # its list and position in Python locals between stops (flowcode._Writer.loop): after the
    # decision in round 3 it goes on with 4, and the break in round 5 leaves it.
    # by hand: 1, 12, 123, +1000 = 1123, 11234, 112345, break: x = 112345
    rb = _load(rulebook, STOPS_IN_SOME_ROUNDS)
    if not generated:
        one_at_a_time(rb)
    else:
        assert "_w_n" in flowcode.make_entry(rb.game.flow, 0).__doc__
    st = rb.new_game(2, 1)
    assert not st.is_terminal()
    st = rb.state_from_json(st.to_json())       # resumed from its frame's locals alone
    st.apply_action("go")
    assert st.is_terminal() and st.scores() == [112345, 112345]
