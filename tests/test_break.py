"""`break: true` leaves the innermost for / while / repeat loop of the same
steps; anywhere else it is RW151.  Expectations by hand from the rulebooks."""
import pytest

from dsl.diagnostics import RulebookError
from interpreter.game import Rulebook

HEAD = """\
regelwerk: 1
game: {name: Push, players: {min: 2, max: 2}}
variables:
  total: 0
  rolls: 0
  hits: 0
actions:
  go: {do: []}
  stop: {do: []}
"""

PUSH = HEAD + """\
flow:
  - turns: 0
    once: true
    do:
      - while: "true"               # go on until 'stop', or the third 'go' in a turn
        do:
          - decide: [go, stop]
            as: choice
          - if: "choice == 'stop'"
            then: [{break: true}]
          - set: "rolls += 1"
          - if: "rolls == 3"
            then: [{break: true}]
  - for: "k in 1..10"               # left at k == 3: 100 + 200 added
    do:
      - if: "k == 3"
        then: [{break: true}]
      - set: "total += 100 * k"
  - for: "i in 1..2"                # the inner loop is left at j == 2, the outer goes on: 2 hits
    do:
      - for: "j in 1..5"
        do:
          - if: "j == 2"
            then: [{break: true}]
          - set: "hits += 1"
  - repeat: 4                       # left in its second round: 2 more hits
    do:
      - set: "hits += 1"
      - if: "hits == 4"
        then: [{break: true}]
end: {score: "total"}
"""


def test_break_leaves_the_innermost_loop(rulebook):
    rb = Rulebook.load(rulebook(PUSH))
    st = rb.new_game(2, 5)
    assert st.current_player() == 0
    st.apply_action("go")
    st.apply_action("go")
    assert st.current_player() == 0
    st.apply_action("go")                         # the third go leaves the while loop: seat 1's turn
    assert st.current_player() == 1 and rb.evaluate(st, "rolls") == 3
    st.apply_action("stop")                       # leaves at once
    assert st.is_terminal()
    assert rb.evaluate(st, "rolls") == 3
    assert rb.evaluate(st, "total") == 300
    assert rb.evaluate(st, "hits") == 4


@pytest.mark.parametrize("flow, needle", [
    ("  - break: true\n", "no loop around it"),
    ("  - for: \"k in 1..2\"\n    do: [{phase: p, do: [{break: true}]}]\n", "without ending it"),
    ("  - turns: 0\n    once: true\n    do: [{break: true}]\n", "is a turn"),
])
def test_break_outside_a_loop_is_rw151(rulebook, flow, needle):
    text = HEAD.replace("stop: {do: []}", "stop: {do: [{break: true}]}") + "flow:\n" + flow + \
        "  - turns: 0\n    once: true\n    do: [{decide: [go, stop]}]\nend: {score: \"total\"}\n"
    with pytest.raises(RulebookError) as err:
        Rulebook.load(rulebook(text))
    found = str(err.value)
    assert needle in found
    assert found.count("RW151") == 2, found       # the one in the flow and the one in action 'stop'
