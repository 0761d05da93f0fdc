"""Listing the legal options (codegen.option_function): every combination of
parameter values once per action id.  An action whose ids cannot repeat skips
the check for repeats (exprs.yields_distinct, ActionDecl.distinct_options);
these tests hold that claim against the check itself."""
import random

import pytest

from dsl.diagnostics import RuleRuntimeError
from dsl.parser import parse_expression
from interpreter.engine.compile.codegen import option_function
from interpreter.engine.compile.calls import yields_distinct
from interpreter.game import Rulebook
from interpreter.engine.run.runtime import Option, id_part

from conftest import game_folders

HEAD = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 2}}
"""

BODY = """
enums:
  colour: [red, blue, green]
constants:
  odd: [1, 3, 5]
  twice: [1, 3, 1]
components:
  chip:
    items: [{count: 4}]
    home: pile
zones:
  pile: {holds: chip}
variables: {n: 0}
functions:
  upto: {params: {k: int}, value: "1..k"}
  ones: {params: {k: int}, value: "[1 for i in 1..k]"}
  maybe: {params: {k: int}, value: "[k] if k > 1 else []"}
flow:
  - decide: [pick]
    who: 0
actions:
  pick:
    params:
      x: "upto(3)"
      y: "[1, 1]"
    do: []
end: {score: "n"}
"""


@pytest.fixture
def game(rulebook):
    return Rulebook.load(rulebook(HEAD + BODY)).game


@pytest.mark.parametrize("text, distinct", [
    ("1..n", True),
    ("colour", True),
    ("players", True),
    ("odd", True),                          # a fixed constant without repeats
    ("twice", False),                       # ... with one
    ("[n]", True),
    ("[]", True),
    ("[n, n]", False),
    ("[k for k in 1..6 if k != n]", True),
    ("[k + 1 for k in 1..6]", False),        # the item is not the loop value: could repeat
    ("[k for k in [n, n]]", False),
    ("[a for a in 1..2 for b in 1..2]", False),
    ("filter(colour, c -> c != red)", True),
    ("sorted(odd)", True),
    ("reversed(1..n)", True),
    ("distinct([n, n, 1])", True),
    ("1..3 if n > 0 else colour", True),
    ("1..3 if n > 0 else [n, 1]", False),
    ("upto(n)", True),                       # a rulebook function: its body decides
    ("ones(n)", False),
    ("maybe(n)", True),
    ("pile", False),                         # components: their labels repeat
    ("map(odd, x -> x // 2)", False),
])
def test_which_lists_are_known_to_hold_no_value_twice(game, text, distinct):
    trees = {name: f.tree for name, f in game.functions.items()}
    assert yields_distinct(parse_expression(text), game, frozenset(), trees) is distinct


def test_a_local_name_hides_the_game_name_of_the_same_spelling(game):
    trees = {name: f.tree for name, f in game.functions.items()}
    assert yields_distinct(parse_expression("colour"), game, frozenset(), trees)
    assert not yields_distinct(parse_expression("colour"), game, frozenset({"colour"}), trees)
    assert not yields_distinct(parse_expression("upto(2)"), game, frozenset({"upto"}), trees)


def test_an_action_with_a_repeating_domain_keeps_the_check_and_offers_each_id_once(rulebook):
    rb = Rulebook.load(rulebook(HEAD + BODY))
    assert not rb.game.actions["pick"].distinct_options      # y: [1, 1]
    st = rb.new_game(2, 1)
    assert st.legal_actions() == ["pick(x=1,y=1)", "pick(x=2,y=1)", "pick(x=3,y=1)"]


def test_an_action_whose_domains_cannot_repeat_skips_the_check(rulebook):
    rb = Rulebook.load(rulebook(HEAD + BODY.replace('y: "[1, 1]"', 'y: "colour"')))
    assert rb.game.actions["pick"].distinct_options
    st = rb.new_game(2, 1)
    assert len(st.legal_actions()) == len(set(st.legal_actions())) == 9


def test_two_actions_of_one_name_keep_the_check(rulebook):
    text = HEAD + """
variables: {n: 0}
flow:
  - who: 0
    decide:
      - {name: go, params: {x: "1..2"}, do: []}
      - {name: go, params: {x: "2..3"}, do: []}
end: {score: "n"}
"""
    rb = Rulebook.load(rulebook(text))
    assert not any(a.distinct_options for a in rb.game.inline_actions.values())
    assert rb.new_game(2, 1).legal_actions() == ["go(x=1)", "go(x=2)", "go(x=3)"]


def test_an_action_without_parameters_or_where_is_offered_without_a_call_and_once(rulebook):
    """flowcode.plain_offers: a decide step appends the one option of an action without
    parameters and ``where`` itself (no option function called); the same options in the same
    order as before, an action of that name offered twice by the step still once, and one
    with a ``where`` still asked."""
    from interpreter.engine.compile.flowcode import plain_offers
    text = HEAD + """
variables: {n: 0}
actions:
  wait: {do: []}
  rest: {where: "n > 0", do: []}
  step: {params: {x: "1..2"}, do: [{set: "n = n + x"}]}
flow:
  - {decide: [wait, step, rest], who: 0}
  - {decide: [step, wait, rest], who: 1}
  - who: 0
    decide:
      - wait
      - {name: halt, params: {}, do: []}
      - {name: halt, params: {}, do: []}
end: {score: "n"}
"""
    rb = Rulebook.load(rulebook(text))
    st = rb.new_game(2, 1)
    assert st.legal_actions() == ["wait", "step(x=1)", "step(x=2)"]      # rest: n is 0
    first = next(p for p in rb.game.all_procs.values() if p.name == "flow")
    decides = [ins.call.actions for ins in first.ops if type(ins.call).__name__ == "DecideSpec"]
    assert [sorted(plain_offers(actions)) for actions in decides] == [[0], [1], [0]]
    st.apply("step(x=2)")
    assert st.legal_actions() == ["step(x=1)", "step(x=2)", "wait", "rest"]
    st.apply("rest")
    assert st.legal_actions() == ["wait", "halt"]


def _checked_options(st):
    """The pending decision's options listed again with the check for repeats on, for
    every action (as if no action were known to be without repeats)."""
    dec = st.pending
    frame = st.frames[-1]
    out, seen = [], set()
    actions = []
    for o in dec.options:           # the actions that offer something, in their order
        if not any(a is o.action for a in actions):
            actions.append(o.action)
    for opt_action in actions:
        saved = opt_action.distinct_options
        opt_action.distinct_options = False
        try:
            option_function(opt_action, id_part)(st, dec.who, frame.L, seen, out)
        finally:
            opt_action.distinct_options = saved
    return [Option(a, values).id for a, values in out]


@pytest.mark.slow
@pytest.mark.parametrize("folder", game_folders(), ids=lambda p: p.name)
def test_the_shipped_games_offer_the_same_options_with_the_check_on(folder):
    """In random games of every shipped rulebook, wherever an action skips the check, the
    options are exactly those the check would have let through, in the same order."""
    rb = Rulebook.load(folder)
    skipping = [a for a in list(rb.game.actions.values()) + list(rb.game.inline_actions.values())
                if a.distinct_options]
    lo, hi = rb.game.min_players, rb.game.max_players
    checked = 0
    for seed in range(3):
        st = rb.new_game(lo if seed % 2 else hi, seed, logging=False)
        rng = random.Random(seed)
        while st.pending is not None:
            ids = st.legal_actions()
            if any(o.action.distinct_options for o in st.pending.options):
                assert ids == _checked_options(st)
                checked += 1
            st.apply_index(rng.randrange(len(ids)))
    assert not skipping or checked > 0


def test_an_empty_list_in_a_conditional_takes_the_other_branch_type(rulebook):
    """`[1] if c else []` is a list of numbers (before: a list of anything), so a wrong
    use is a compile error rather than a run-time surprise."""
    from dsl.diagnostics import RulebookError
    text = HEAD + """
variables: {n: 0}
functions:
  maybe: {params: {k: int}, value: "[k] if k > 1 else []"}
flow:
  - set: "n = count(maybe(2))"
  - if: "'a' in maybe(3)"
    then: []
end: {score: "n"}
"""
    with pytest.raises(RulebookError) as info:
        Rulebook.load(rulebook(text))
    assert str(info.value).endswith("game.yaml:9:10: error: a string is never in a list (list of int) [RW102]")


HOIST = """
variables: {n: 0, d: 0}
functions:
  twice: {params: {k: int}, value: "2 * k"}
flow:
  - decide: [go]
    who: 0
    otherwise: [{set: "n = 7"}]
actions:
  go:
    params:
      a: "1..3 if d == 0 else []"
      b: "[k for k in 1..4 if k >= 2]"
      c: "[10 * v + a for v in 1..5 if twice(v) != 4 and 12 // (3 - d) > 0 and v != a + b]"
    do: []
end: {score: "n"}
"""


def test_a_domain_part_that_reads_no_earlier_parameter_is_made_once_with_the_same_options(rulebook):
    rb = Rulebook.load(rulebook(HEAD + HOIST))
    b, c = rb.game.actions["go"].params[1:]
    assert b.hoist[0] == 0 and b.rest[1] == []     # reads no parameter: the whole list, before the loop over a
    assert c.hoist[0] == 0 and c.rest       # 1..5, twice(v) != 4 and 12 // (3 - d) > 0: before a as well
    expect = [f"go(a={a},b={b},c={10 * v + a})" for a in (1, 2, 3) for b in (2, 3, 4)
              for v in range(1, 6) if v != 2 and v != a + b]
    assert rb.new_game(2, 1).legal_actions() == expect


def test_a_made_once_part_runs_only_where_the_whole_domain_ran(rulebook):
    """The part made once is made where the domain was first needed: with no value of
    ``a`` it never runs (no division by zero); with one it fails at its own column."""
    rb = Rulebook.load(rulebook(HEAD + HOIST.replace("variables: {n: 0, d: 0}", "variables: {n: 0, d: 3}")))
    st = rb.new_game(2, 1)
    assert st.legal_actions() == [] and st.scores() == [7, 7]      # the decision was skipped, nothing failed
    book = rulebook(HEAD + HOIST.replace("variables: {n: 0, d: 0}", "variables: {n: 0, d: 3}")
                    .replace("1..3 if d == 0 else []", "1..3"))
    with pytest.raises(RuleRuntimeError) as info:
        Rulebook.load(book).new_game(2, 1).legal_actions()
    line = next(i + 1 for i, text in enumerate((book / "game.yaml").read_text().splitlines()) if "12 //" in text)
    assert info.value.pos.line == line and "division by zero" in info.value.message


def test_domains_written_as_loops_list_each_elements_options_in_order(rulebook):
    """A domain that is a comprehension (one `for`, two `for`s, a filter with a lambda) is a
    loop in the enumerator's code; the options of each element are listed inside it
    (codegen._fused_loop), with a `where` that skips some and a repeat that is offered once:
    the same ids in the same order as the nested loops over the whole lists (by hand)."""
    text = HEAD + """
variables: {n: 3}
flow:
  - who: 0
    decide:
      - name: go
        params:
          a: "[k for k in 1..n if k != 2]"
          b: "[i + j for i in 0..1 for j in 0..1 if i + j < a + 1]"
          c: "filter([1, 2, 3], x -> x != b)"
        where: "a + b + c != 5"
        do: []
end: {score: "n"}
"""
    rb = Rulebook.load(rulebook(text))
    st = rb.new_game(2, 1)
    want = []
    for a in [k for k in range(1, 4) if k != 2]:
        for b in [i + j for i in range(2) for j in range(2) if i + j < a + 1]:
            for c in [x for x in (1, 2, 3) if x != b]:
                if a + b + c != 5 and f"go(a={a},b={b},c={c})" not in want:
                    want.append(f"go(a={a},b={b},c={c})")
    assert st.legal_actions() == want
    assert len(want) == 10


def test_a_decide_step_makes_the_set_against_repeats_only_for_options_that_need_it(rulebook):
    """flowcode.decide_lines: options appended without a call (plain_offers) and an action whose
    ids cannot repeat need no set of the ids offered; an action with a ``where`` is asked through
    its option function, which keeps the set."""
    def step_code(decide: str) -> str:
        rb = Rulebook.load(rulebook(HEAD + """
variables: {n: 0}
actions:
  wait: {do: []}
  rest: {where: "n >= 0", do: []}
  step: {params: {x: "1..2"}, do: [{set: "n = n + x"}]}
flow:
  - {decide: %s, who: 0}
end: {score: "n"}
""" % decide))
        st = rb.new_game(2, 1)
        assert st.legal_actions()[:3] == ["wait", "step(x=1)", "step(x=2)"]
        return "\n".join(fn.__doc__ or "" for fn in st.frames[-1].code)
    assert "_rw_set()" not in step_code("[wait, step]")
    assert "_rw_set()" in step_code("[wait, step, rest]")
