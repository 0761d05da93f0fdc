"""Generated code (interpreter/codegen.py): every run-time failure of an
expression is still a rule error at the rulebook's file:line:col of the part
that failed, and the generated text holds no user data."""
import pytest

from dsl.diagnostics import RuleRuntimeError
from interpreter.game import Rulebook

HEAD = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 2}}
"""


def fail(rulebook, body: str, needle: str):
    """Start a game of HEAD + body; return (error, line, col of ``needle`` in the file)."""
    book = rulebook(HEAD + body)
    rb = Rulebook.load(book)
    with pytest.raises(RuleRuntimeError) as info:
        rb.new_game(2, 1)
    err = info.value
    lines = (book / "game.yaml").read_text().splitlines()
    hits = [(i + 1, line.index(needle) + 1) for i, line in enumerate(lines) if needle in line]
    assert len(hits) == 1, f"{needle!r} must occur once"
    return err, hits[0]


def test_a_table_lookup_outside_its_keys_is_located_at_the_lookup(rulebook):
    err, (line, col) = fail(rulebook, """
tables:
  points: {1: 10, 2: 20}
variables: {n: 0, x: 0}
flow:
  - set: "x = 1 + 2 * points[n + 3]"
end: {score: "x"}
""", "points[n + 3]")
    assert "table 'points' has no row for 3" in err.message
    assert (err.pos.line, err.pos.col) == (line, col)
    assert str(err).startswith(f"{err.pos.file}:{line}:{col}: error:")
    assert err.pos.file.endswith("game.yaml")


def test_a_division_by_zero_is_located_at_the_division_not_the_whole_expression(rulebook):
    err, (line, col) = fail(rulebook, """
variables: {n: 0, x: 0}
flow:
  - set: "x = (n + 1) * 3 + 7 // n"
end: {score: "x"}
""", "// n")      # the parser places an operation at its operator
    assert err.message == "'//': division by zero"
    assert (err.pos.line, err.pos.col) == (line, col)


def test_a_failure_inside_a_comprehension_and_a_lambda_is_located(rulebook):
    err, (line, col) = fail(rulebook, """
variables: {n: 0, x: 0}
flow:
  - set: "x = sum([k for k in 1..3 if k > 0], k -> 12 % (k - 2))"
end: {score: "x"}
""", "% (k - 2)")
    assert err.message == "'%': division by zero"
    assert (err.pos.line, err.pos.col) == (line, col)


def test_an_index_outside_a_list_is_located_at_the_index(rulebook):
    err, (line, col) = fail(rulebook, """
variables: {n: 0, x: 0}
flow:
  - set: "x = max(1, [4, 5, 6][n + 5])"
end: {score: "x"}
""", "[4, 5, 6][n + 5]")
    assert err.message.startswith("index: ")
    assert (err.pos.line, err.pos.col) == (line, col)


def test_a_missing_attribute_of_a_component_is_located_at_the_attribute(rulebook):
    # the bag holds a chip and a coin; the coin has no color, and sorted(..) puts the coin... either
    # way one of the two is read for .color: the coin fails
    err, (line, col) = fail(rulebook, """
enums: {color: [red, blue]}
components:
  chip: {attributes: {color: color}, items: [{for_each: {color: color}, count: 1}], label: "{color}", home: bag}
  coin: {count: 1, label: coin, home: bag}
zones:
  bag: {}
variables: {x: 0}
flow:
  - set: "x = count([c for c in bag if c.color == red])"
end: {score: "x"}
""", "color == red")     # an attribute is placed at its name
    assert err.message == "component coin has no attribute 'color'"
    assert (err.pos.line, err.pos.col) == (line, col)


def test_a_missing_zone_of_a_family_is_located_at_the_zone(rulebook):
    err, (line, col) = fail(rulebook, """
zones:
  pile: {index: {p: players}}
variables: {x: 0}
flow:
  - set: "x = 1 + count(pile[x + 4])"
end: {score: "x"}
""", "pile[x + 4]")
    assert err.message == "there is no zone pile[4]"
    assert (err.pos.line, err.pos.col) == (line, col)


def test_a_failure_in_a_function_is_located_in_the_function(rulebook):
    err, (line, col) = fail(rulebook, """
functions:
  ratio: {params: {a: int}, value: "10 // a"}
variables: {n: 0, x: 0}
flow:
  - set: "x = 1 + ratio(n)"
end: {score: "x"}
""", "// a")
    assert err.message == "'//': division by zero"
    assert (err.pos.line, err.pos.col) == (line, col)


def test_generated_text_holds_no_user_data_and_no_builtins_beyond_a_few(rulebook):
    from interpreter.engine.compile.codegen import _BUILTINS
    book = rulebook(HEAD + """
variables: {x: 0}
flow:
  - set: "x = count(distinct([str(\\"__import__('os')\\")])) + 1"
end: {score: "x"}
""")
    rb = Rulebook.load(book)
    st = rb.new_game(2, 1)
    assert st.scores() == [2, 2]      # one text (never run as code) in the list: 1 + 1
    assert set(_BUILTINS) <= {"tuple", "len", "isinstance", "Exception"}


def test_a_comprehension_over_several_lists_counts_what_it_tries(rulebook):
    from interpreter.engine.run import limits
    book = rulebook(HEAD + """
variables: {x: 0}
flow:
  - set: "x = count([a + b for a in 1..10 for b in 1..10 if a == b])"
end: {score: "x"}
""")
    rb = Rulebook.load(book)
    assert rb.new_game(2, 1).scores() == [10, 10]          # the ten pairs a == b
    before = limits.LIMITS.elements
    try:
        limits.configure(elements=50)                      # 100 combinations are tried
        with pytest.raises(RuleRuntimeError) as info:
            rb.new_game(2, 1)
        assert info.value.code == "RW910" and "limit 'elements'" in info.value.message
        line = (book / "game.yaml").read_text().splitlines()[info.value.pos.line - 1]
        assert line[info.value.pos.col - 1:].startswith("[a + b for")
    finally:
        limits.configure(elements=before)


def test_aggregates_with_a_lambda_are_written_inline_with_the_library_meaning(rulebook):
    """count/filter/map/sum/any/all/first(xs, x -> ...) become comprehensions in the generated
    code; any and all still stop at the element that decides (a later one may fail)."""
    book = rulebook(HEAD + """
variables: {a: 0, b: 0, c: 0, d: 0, e: false, f: true}
flow:
  - set: "a = count([3, 0, 5, 0], k -> k > 0)"                         # 2
  - set: "b = sum(filter([1, 2, 3, 4], k -> k % 2 == 0), k -> k * 10)"   # 20 + 40 = 60
  - set: "c = sum(map([1, 2, 3], k -> k * k))"                          # 1 + 4 + 9 = 14
  - set: "e = any([2, 0], k -> 10 // k > 1)"                            # true at 2: 10 // 0 is never tried
  - set: "f = all([0, 2], k -> 10 // (k + 1) > 5 and k < 0)"           # false at 0: k = 2 is never tried
  - set: "d = count([], k -> 1 // k > 0) + (1 if e else 0) + (1 if f else 0)"   # 0 + 1 + 0
  - set: "d = d + 2 * first([6, 3, 0], k -> 12 // k < 5) + (0 if first([1], k -> k > 1) == none else 100)"
    # first: 6 gives 2 < 5, so 6; 12 // 0 is never tried; first([1], ...) is none: d = 1 + 12 + 0 = 13
end: {score: "a * 1000000 + b * 1000 + c * 10 + d"}
""")
    st = Rulebook.load(book).new_game(2, 1)
    assert st.scores() == [2 * 1000000 + 60 * 1000 + 14 * 10 + 13] * 2


# --- small functions written out where they are called ------------------------------------------

INLINE_BOOK = """\
tables:
  worth: {1: 10, 2: 20}
variables: {x: 0, y: 0}
functions:
  value_of: {params: {k: int}, value: "worth[k] + 1"}
  bigger: {params: {a: int, b: int}, value: "a if a > b else b"}
flow:
  - for: "k in 1..2"
    do:
      - set: "x += value_of(k)"
      - set: "y = bigger(x, k)"
end: {score: "x + y"}
"""


def test_a_small_function_with_plain_arguments_is_written_out_where_it_is_called(rulebook):
    rb = Rulebook.load(rulebook(HEAD + INLINE_BOOK))
    st = rb.new_game(2, 1)
    # by hand: x = (10 + 1) + (20 + 1) = 32, y = bigger(32, 2) = 32
    assert st.scores() == [64, 64]
    for name in ("value_of", "bigger"):
        assert st.memo[rb.game.functions[name].slot] is None      # never called: nothing remembered
        assert rb.game.functions[name].inline_body is not None


def test_a_function_is_called_when_an_argument_is_not_plain_inside_one_expression(rulebook):
    # in a step, value_of(k + 0) binds k * 1 to a local first and is written out as before;
    # so it is inside a comprehension over two lists, written as loops in a step (exprs._listcomp_loops);
    # inside the key of max() the code stays one expression (a Python lambda): value_of is called
    rb = Rulebook.load(rulebook(HEAD + INLINE_BOOK.replace("value_of(k)", "value_of(k + 0)")))
    st = rb.new_game(2, 1)
    assert st.scores() == [64, 64]
    assert st.memo[rb.game.functions["value_of"].slot] is None
    book = INLINE_BOOK.replace("value_of(k)", "first([value_of(j + 0) for j in [k] for i in [1]])")
    rb = Rulebook.load(rulebook(HEAD + book.replace("x += first", "x += worth[k] + 1 + 0 * first")))
    st = rb.new_game(2, 1)
    assert st.scores() == [64, 64]
    assert st.memo[rb.game.functions["value_of"].slot] is None
    book = INLINE_BOOK.replace("value_of(k)", "max([k], j -> value_of(j + 0))")
    rb = Rulebook.load(rulebook(HEAD + book.replace("x += max", "x += worth[k] + 1 + 0 * max")))
    st = rb.new_game(2, 1)
    assert st.scores() == [64, 64]
    assert st.memo[rb.game.functions["value_of"].slot] == {1: 11, 2: 21}


@pytest.mark.parametrize("call", ["value_of(k)", "value_of(k + 0)"])
def test_a_failure_in_a_written_out_function_is_located_in_its_body(rulebook, call):
    # 1..3 reaches k = 3, which the table has no row for: the same error, inlined or called
    book = INLINE_BOOK.replace("k in 1..2", "k in 1..3").replace("value_of(k)", call)
    err, (line, col) = fail(rulebook, book, "worth[k]")
    assert "table 'worth' has no row for 3" in err.message
    assert (err.pos.line, err.pos.col) == (line, col)


def test_max_and_min_of_several_numbers_keep_their_meaning_and_their_position(rulebook):
    """max(a, b, ...) and min(a, b, ...) of numbers are written as Python's; one number
    alone is still the library's (max(5) is 5), and a failure is located at the call."""
    book = rulebook(HEAD + """
variables: {a: 0, b: 0, n: 3}
flow:
  - set: "a = max(2, n, 1) * 100 + min(n, 7, 4) * 10 + max(5)"    # 3 * 100 + 3 * 10 + 5 = 335
  - set: "b = min(max(0, n - 5), 9)"                                # min(max(0, -2), 9) = 0
end: {score: "a + b"}
""")
    st = Rulebook.load(book).new_game(2, 1)
    assert st.scores() == [335, 335]
    err, (line, col) = fail(rulebook, """
variables: {x: 0}
functions:
  nothing: {value: "first([1], k -> k > 1)"}
flow:
  - set: "x = 1 + max(nothing(), 2)"
end: {score: "x"}
""", "max(nothing(), 2)")
    assert (err.pos.line, err.pos.col) == (line, col)
    assert err.message.startswith("max(): ")


def test_max_and_min_of_two_numbers_in_a_function_are_written_out_alike(rulebook):
    """max(a, b) and min(a, b) in a function's body (statement context: written out as
    ``b if b > a else a``, each argument evaluated once) give what Python's max and min give."""
    book = rulebook(HEAD + """
variables: {got: []}
functions:
  pick: {params: {k: int}, value: "max(0, k - 5) * 10 + min(k - 1, 3)"}
flow:
  - set: "got = [pick(k) for k in [-2, 5, 8, 4]]"
end: {score: "sum(got, g -> g)"}
""")
    rb = Rulebook.load(book)
    st = rb.new_game(2, 1)
    # -2: 0 * 10 + -3;  5: 0 * 10 + 3;  8: 3 * 10 + 3;  4: 0 * 10 + 3
    assert list(rb.evaluate(st, "got")) == [-3, 3, 33, 3]


def test_a_range_in_a_function_is_made_once_and_looked_up_after(rulebook):
    """``a..b`` in statement context looks a range made before up (operators._MADE_BY_LO: by
    its first number, then its last) and makes it only when it is not there: the same values
    the first time, the second, and empty."""
    book = rulebook(HEAD + """
variables: {got: []}
functions:
  span: {params: {a: int, b: int}, value: "(a + 0)..(b + 0)"}
flow:
  - set: "got = [count(span(a, 4)) * 10 + sum(span(a, 4), k -> k) for a in [2, 5, 2, 4, 9]]"
end: {score: "0"}
""")
    rb = Rulebook.load(book)
    st = rb.new_game(2, 1)
    # 2..4: 3 numbers, 9;  5..4: none;  2..4 again;  4..4: 1 number, 4;  9..4: none
    assert list(rb.evaluate(st, "got")) == [39, 0, 39, 14, 0]
    from interpreter.engine.compile.operators import _MADE_BY_LO
    assert (_MADE_BY_LO[2][4], _MADE_BY_LO[5][4], _MADE_BY_LO[4][4]) == ((2, 3, 4), (), (4,))


def test_a_parameter_or_loop_value_hides_a_constant_of_its_name_in_a_range_and_a_product(rulebook):
    """A range made once from constant bounds (operators._range), a loop value's known bounds
    (comprehensions.note_range) and a product by the number 1 written as its other side all look
    at the rulebook's constants only for names nothing local hides: here ``lo`` and ``one`` are
    parameters, so ``lo..hi`` is 3..3 for g(3), not the constants' 1..3, and ``x * one`` is a
    product."""
    rb = Rulebook.load(rulebook(HEAD + """
constants: {one: 1, lo: 1, hi: 3}
functions:
  f: {params: {one: int, x: int}, value: "x * one + x * 1"}
  g: {params: {lo: int}, value: "sum([k for k in lo..hi])"}
variables: {x: 0, y: 0, z: 0}
flow:
  - set: "x = f(5, 7)"
  - set: "y = g(3)"
  - set: "z = sum([k * one for k in [4, 6]])"
end: {score: "x * 1000 + y * 100 + z"}
"""))
    # x = 7 * 5 + 7 = 42;  y = sum(3..3) = 3;  z = 4 * 1 + 6 * 1 = 10
    assert rb.new_game(2, 1).scores() == [42 * 1000 + 3 * 100 + 10] * 2


def test_a_product_past_the_digits_limit_is_located_at_the_product(rulebook, monkeypatch):
    """``a * b`` in a function's body (statement context: the limit looked at without a call)
    and in a step: a product of more digits than the limit 'digits' allows is a rule error at
    the ``*``, also after the limit changed (10**15 * 10**15 has 31 digits)."""
    from interpreter.engine.run import limits
    monkeypatch.setattr(limits.LIMITS, "digits", 20)
    for body in ("""
variables: {n: 1000000000000000, x: 0}
functions:
  square: {params: {k: int}, value: "1 + k * k"}
flow:
  - set: "x = square(n)"
end: {score: "x"}
""", """
variables: {n: 1000000000000000, x: 0}
flow:
  - set: "x = 1 + n * n"
end: {score: "x"}
"""):
        needle = "* k" if "square" in body else "* n"     # an operator is located at its sign
        err, (line, col) = fail(rulebook, body, needle)
        assert "more than 20 digits" in err.message
        assert (err.pos.line, err.pos.col) == (line, col)
    monkeypatch.setattr(limits.LIMITS, "digits", 40)
    rb = Rulebook.load(rulebook(HEAD + """
variables: {n: 1000000000000000, x: 0}
functions:
  square: {params: {k: int}, value: "1 + k * k"}
flow:
  - set: "x = square(n) - 1"
end: {score: "x // 1000000000000000"}
"""))
    assert rb.new_game(2, 1).scores() == [10 ** 15, 10 ** 15]


def test_a_call_binds_its_arguments_in_order_for_a_procedure_compiled_later(rulebook):
    """A call's arguments fill the callee's locals: the seat unless
    `player:` names another, every parameter, the callee's own locals left empty — also
    for a procedure written after its caller, whose number of locals is known only then;
    of two failing arguments the first written is the one reported."""
    book = rulebook(HEAD + """
variables: {got: {index: {p: players}, init: 0}}
procedures:
  outer:
    - call: inner
      with: {b: 7, a: 2}
    - call: inner
      with: {player: 1, a: 3, b: 1}
  inner:
    params: {a: int, b: int}
    do:
      - let: "c = a * 10 + b"
      - set: "got[player] += c"
flow:
  - call: outer
    with: {player: 0}
end: {score: "got[p]"}
""")
    st = Rulebook.load(book).new_game(2, 1)
    assert st.scores() == [27, 31]          # seat 0: 2 * 10 + 7; seat 1: 3 * 10 + 1
    err, (line, col) = fail(rulebook, """
tables:
  worth: {1: 5}
procedures:
  show:
    params: {a: int, b: int}
    do: [{log: "{a} {b}"}]
flow:
  - call: show
    with: {b: "worth[2]", a: "worth[3]"}
end: {score: "0"}
""", "worth[2]")
    assert "no row for 2" in err.message and (err.pos.line, err.pos.col) == (line, col)


# --- expressions in statement context written as statements ------------------------------------

def test_parts_written_as_statements_keep_the_short_circuits(rulebook):
    """In statement context (a step's expression, a function's body) an aggregate with a lambda
    is a loop and a comprehension with a call in it is a loop too; a side of 'and'/'or' and a
    branch of 'if … else' that holds one still runs only when it must (each would divide by
    zero here), and results are the library's."""
    book = rulebook(HEAD + """
variables: {n: 0, a: true, b: false, c: 0, d: 0}
functions:
  half: {params: {k: int}, value: "k // 2 + count([k], j -> j < n)"}
  pick: {params: {m: int}, value: "first(1..5, k -> any([1, 2], j -> j * k == m))"}
flow:
  - set: "a = n > 0 and any([1, 2], k -> 10 // n > k)"          # false: the any never runs
  - set: "b = n == 0 or all([1], k -> 10 // n > k)"              # true: the all never runs
  - set: "c = (count([1, 2, 3], k -> 10 // n > k) if n > 0 else 7) + pick(8)"   # 7 + 4 (4 * 2 == 8)
  - set: "d = sum([k for k in 1..6 if half(k) > 1], k -> k)"     # half: 4 -> 2, 5 -> 2, 6 -> 3: 15
end: {score: "(100 if a else 0) + (10 if b else 0) + c * 1000 + d * 100000"}
""")
    rb = Rulebook.load(book)
    st = rb.new_game(2, 1)
    assert st.scores() == [0 + 10 + 11 * 1000 + 15 * 100000] * 2
    assert "for " in rb.game.functions["pick"].compiled.__doc__       # written as loops
    # the comprehension's condition looked half(k) up for every k, and remembered each
    assert st.memo[rb.game.functions["half"].slot] == {1: 0, 2: 1, 3: 1, 4: 2, 5: 2, 6: 3}


def test_a_failure_inside_a_part_written_as_a_loop_is_located_at_its_operation(rulebook):
    err, (line, col) = fail(rulebook, """
variables: {x: 0}
flow:
  - set: "x = count([3, 2, 1], k -> 6 // (k - 1) > 2)"
end: {score: "x"}
""", "// (k - 1)")
    assert err.message == "'//': division by zero"
    assert (err.pos.line, err.pos.col) == (line, col)


def test_a_failure_in_a_function_written_as_statements_is_located_in_the_function(rulebook):
    err, (line, col) = fail(rulebook, """
tables:
  worth: {1: 10}
functions:
  total: {params: {m: int}, value: "sum(1..m, k -> worth[k])"}
variables: {x: 0}
flow:
  - if: "all([1, 2], j -> total(j) > 5)"      # total(1) = 10; total(2) reads worth[2]
    then: [{set: "x = 1"}]
end: {score: "x"}
""", "worth[k]")
    assert "table 'worth' has no row for 2" in err.message
    assert (err.pos.line, err.pos.col) == (line, col)


def test_a_field_of_none_is_located_at_the_field(rulebook):
    # records are read through their dictionary in generated code: none is still "not a record"
    err, (line, col) = fail(rulebook, """
variables: {x: 0}
flow:
  - set: "x = 1 + first(rank([], k -> k)).place"
end: {score: "x"}
""", "place\"")      # the parser places an attribute at its name
    assert err.message == "field 'place': none is not a record"
    assert (err.pos.line, err.pos.col) == (line, col)


def test_a_range_the_layout_fixes_is_made_once_per_layout(rulebook):
    """1..num_players * 2 is made when a game of that size is laid out (Layout.ranges), each
    player count its own; a range whose bounds cannot be worked out then (a table without a
    row for 3 players) fails only where it is used, located there, as before."""
    book = rulebook(HEAD.replace("max: 2", "max: 3") + """
tables:
  extra: {2: 1}
variables: {x: 0, y: 0}
flow:
  - set: "x = sum(1..num_players * 2, k -> k)"
  - if: "num_players == 2"
    then: [{set: "y = count(1..extra[num_players])"}]
    else: [{set: "y = 7"}]
end: {score: "x * 10 + y"}
""")
    rb = Rulebook.load(book)
    assert len(rb.game.layout_ranges) == 2
    assert rb.new_game(2, 1).scores() == [10 * 10 + 1] * 2       # 1 + 2 + 3 + 4 = 10; 1..1
    assert rb.new_game(3, 1).scores() == [21 * 10 + 7] * 3       # 1 + ... + 6 = 21; no row for 3, unused
    assert rb.layout(3).ranges[1] is None
    err, (line, col) = fail(rulebook, """
tables:
  extra: {3: 1}
variables: {y: 0}
flow:
  - set: "y = count(1..extra[num_players])"
end: {score: "y"}
""", "extra[num_players]")
    assert "table 'extra' has no row for 2" in err.message and (err.pos.line, err.pos.col) == (line, col)


@pytest.mark.parametrize("how", ["apply", "play_by_counts"])
def test_a_failure_in_an_action_taken_is_located_in_the_action(rulebook, how):
    # an action that cannot stop runs as one Python call where the option is taken (runtime.run,
    # codegen.option_taker): its failure is still located at the part that failed, the game in error
    book = rulebook(HEAD + """
variables: {n: 0, x: 0}
actions:
  split: {params: {k: "0..1"}, do: [{set: "x = 12 // k"}]}
flow:
  - repeat: 2
    do:
      - {decide: [split], who: "players[0]"}
end: {score: "x"}
""")
    rb = Rulebook.load(book)
    st = rb.new_game(2, 1)
    with pytest.raises(RuleRuntimeError) as info:
        if how == "apply":
            st.apply("split(k=0)")
        else:
            st.play_by_counts([lambda n: 0, lambda n: 0])
    lines = (book / "game.yaml").read_text().splitlines()
    [(line, col)] = [(i + 1, s.index("// k") + 1) for i, s in enumerate(lines) if "// k" in s]
    assert info.value.message == "'//': division by zero"
    assert (info.value.pos.line, info.value.pos.col) == (line, col)
    assert st.status == "error" and st.error is info.value
