"""Small rules of the language (issue 27): the reserved attribute name `id`, invariants'
`when:`, variables shown to players, bounds of sums."""
from interpreter.game import Rulebook, check_rulebook

HEAD = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 2}}
"""


def errors(folder):
    report, _ = check_rulebook(folder)
    return [d for d in report.items if d.severity == "error"]


def test_id_is_reserved_with_the_same_words_everywhere(rulebook):
    # declared, in a label, read: one rule, one message (docs/language.md, Components)
    declared = errors(rulebook(HEAD + """\
components:
  card: {attributes: {id: int}, items: [{id: 1, count: 1}], label: "card", home: pile}
zones:
  pile: {holds: [card]}
flow: []
end: {score: "0"}
"""))
    labelled = errors(rulebook(HEAD + """\
components:
  card: {attributes: {number: int}, items: [{number: 1, count: 1}], label: "{id}", home: pile}
zones:
  pile: {holds: [card]}
flow: []
end: {score: "0"}
"""))
    read = errors(rulebook(HEAD + """\
components:
  card: {attributes: {number: int}, items: [{number: 1, count: 1}], label: "{number}", home: pile}
zones:
  pile: {holds: [card]}
flow: []
end: {score: "sum(pile, c -> c.id)"}
"""))
    words = "'id' is reserved and is no attribute of a component"
    for found, line in ((declared, 4), (labelled, 4), (read, 8)):
        assert [d.pos.line for d in found if words in d.message] == [line], [d.format() for d in found]
    assert "'number'" in declared[0].message


def test_kind_and_label_are_built_in(rulebook):
    found = errors(rulebook(HEAD + """\
components:
  card: {attributes: {kind: int}, items: [{kind: 1, count: 1}], label: "c", home: pile}
zones:
  pile: {holds: [card]}
flow: []
end: {score: "0"}
"""))
    assert any("'kind' is a built-in attribute of every component (read it as c.kind)" in d.message for d in found)


TOKENS = HEAD + """\
variables:
  tokens: {index: {p: players}, init: 8}
actions:
  take: {do: [{set: "tokens[player] += 3"}]}
  discard: {params: {n: "1..3"}, where: "tokens[player] - n >= 0", do: [{set: "tokens[player] -= n"}]}
flow:
  - repeat: 3
    do:
      - turns: 0
        once: true
        do:
          - decide: [take]
          - while: "tokens[player] > 10"
            do: [{decide: [discard]}]
invariants:
  limit: %s
end: {score: "tokens[p]"}
"""


def test_an_invariant_may_hold_only_at_the_end_of_a_turn(rulebook):
    # take 3 (8 -> 11) then discard back to 10 or fewer in the same turn: the limit of 10
    # holds at every turn's end, not between the two decisions of a turn
    from interpreter.tools.simulate import run_check
    at_turn_end = rulebook(TOKENS % '{expr: "all(players, p -> tokens[p] <= 10)", when: turn_end}')
    report, game = check_rulebook(at_turn_end)
    assert game is not None and not report.has_errors, [d.format() for d in report.items]
    assert run_check(str(at_turn_end), 20, [2], {}, [], jobs=1) == []
    always = rulebook(TOKENS % '"all(players, p -> tokens[p] <= 10)"')
    found = run_check(str(always), 5, [2], {}, [], jobs=1)
    assert found and {f.code for f in found} == {"RW903"} and found[0].line == 18
    # a limit of 9 is broken at a turn's end (discarding to 10 is allowed): found, located
    nine = rulebook(TOKENS % '{expr: "all(players, p -> tokens[p] <= 9)", when: turn_end}')
    found = run_check(str(nine), 20, [2], {}, [], jobs=1)
    assert found and found[0].code == "RW903" and "end of a turn" in found[0].message and found[0].line == 18


def test_when_names_a_known_scope(rulebook):
    report, game = check_rulebook(rulebook(TOKENS % '{expr: "true", when: game_end}'))
    assert game is None and any(d.pos.line == 18 for d in report.items if d.severity == "error")


def test_a_variable_shown_to_players_need_not_be_read(rulebook):
    text = HEAD + """\
variables:
  hint: {index: {p: players}, init: 0%s}
actions:
  look: {do: [{set: "hint[player] = 3"}]}
flow:
  - decide: [look]
    who: 0
end: {score: "0"}
"""
    report, _ = check_rulebook(rulebook(text % ""))
    assert [(d.code, d.pos.line) for d in report.items] == [("RW201", 4)]
    assert "never read" in report.items[0].message
    report, _ = check_rulebook(rulebook(text % ", shown: true"))
    assert report.items == []
    rb = Rulebook.load(rulebook(text % ", shown: true"))
    st = rb.new_game(2, 1)
    st.apply_action("look")
    assert st.observation(1)["variables"]["hint"] == {"0": 3, "1": 0}      # what players read
