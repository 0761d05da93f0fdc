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
