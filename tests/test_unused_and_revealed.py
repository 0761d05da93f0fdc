"""Findings that were wrong (issue 42): a function shown by `display: facts:` is used (and
its title is what the terminal shows); a pile a `reveal:` step showed to the chooser just
before the decision is no hidden source of an action's ids (RW261)."""
from interpreter.game import Rulebook, check_rulebook

PILE = """\
regelwerk: 1
game: {name: Pile, players: {min: 2, max: 2}}
components:
  card:
    attributes: {value: int}
    items: [{for_each: {value: "1..6"}, count: 1}]
    label: "{value}"
    home: pile
zones:
  pile: {type: deck, visible: false}
  hand: {index: {p: players}, visible: "viewer == p"}
variables:
  taken: {index: {p: players}, init: 0}
functions:
  held:
    params: {p: player}
    value: "taken[p]"
actions:
  take:
    params: {c: "pile"}
    do: [{move: c, to: "hand[player]"}, {set: "taken[player] += 1"}]
flow:
  - shuffle: pile
  - turns: 0
    once: true
    do:
      - reveal: pile
        to: player
      - decide: [take]
end: {score: "sum(hand[p], c -> c.value) + taken[p]"}
display:
  facts:
    held: "Cards taken"
"""


def codes(path, code):
    return [d for d in check_rulebook(path)[0].items if d.code == code]


def test_a_function_shown_as_a_fact_is_used(rulebook):
    assert not [d for d in codes(rulebook(PILE), "RW201") if "'held'" in d.message]
    unused = PILE.replace('display:\n  facts:\n    held: "Cards taken"\n', "")
    assert [d for d in codes(rulebook(unused), "RW201") if "function 'held' is never used" in d.message]


def test_the_terminal_shows_a_fact_and_a_titled_variable_by_their_titles(rulebook):
    from rich.console import Console
    from interpreter.play.view import build_view
    from interpreter.play.view.terminal import view_renderable
    book = PILE.replace('    held: "Cards taken"\n', '    held: "Cards taken"\n  titles:\n    taken: "Taken so far"\n')
    st = Rulebook.load(rulebook(book)).new_game(2, 1)
    out = Console(width=100, record=True, file=open("/dev/null", "w"))
    out.print(view_renderable(build_view(st, 0)))
    text = out.export_text()
    assert "Cards taken: 0" in text and "Taken so far: 0" in text
    assert "held=" not in text and "taken=" not in text


def test_a_pile_revealed_to_the_chooser_right_before_the_decision_is_no_leak(rulebook):
    assert not codes(rulebook(PILE), "RW261")
    # shown to someone else, or changed in between: the ids may name what the chooser does not see
    assert codes(rulebook(PILE.replace("        to: player\n", "        to: \"next(player)\"\n")), "RW261")
    moved = PILE.replace("      - decide: [take]", "      - shuffle: pile\n      - decide: [take]")
    assert codes(rulebook(moved), "RW261")


KIND = """\
regelwerk: 1
game: {name: K, players: {min: 2, max: 2}}
enums:
  color: [red, blue]
components:
  tile:
    attributes: {kind: color}
    items: [{for_each: {kind: color}, count: 2}]
    label: "{kind}"
    home: bag
zones:
  bag: {type: bag}
  hand: {index: {p: players}, visible: "viewer == p"}
actions:
  take:
    params: {t: "[c for c in bag if c.kind == red]"}
    do: [{move: t, to: "hand[player]"}]
  pass: {do: []}
functions:
  reds: {params: {p: player}, value: "count(hand[p], c -> c.kind == red)"}
  others: {params: {p: player}, value: "[c for c in hand[p] if c.kind != red]"}
flow:
  - turns: 0
    once: true
    do: [{decide: [take, pass]}]
end: {score: "reds(p) + count(others(p))"}
"""


def test_the_reserved_attribute_kind_is_one_clear_error_not_a_cascade(rulebook):
    errors = [d for d in check_rulebook(rulebook(KIND))[0].items if d.severity == "error"]
    assert len(errors) == 1, [d.format() for d in errors]
    assert errors[0].pos.line == 7 and "'kind' is a built-in attribute" in errors[0].message
    assert "another name, such as 'sort'" in errors[0].message
