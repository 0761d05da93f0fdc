"""Remembered-result lookups moved out of loops that do not change their arguments
(interpreter/engine/compile/probes.py): the text it writes, and that it runs alike."""
from interpreter.engine.compile.probes import hoist_probes

PROBE = ["_q2 = st.memo[0]",
         "if _q2 is None or (_q2 := _q2.get(_v1, _miss0)) is _miss0:",
         "    _q2 = _u3(st, _v1)"]


def _in_loops(probe):
    return ["for _v1 in xs:",
            "    for _v2 in ys:",
            *["        " + line for line in probe],
            "        out.append((_v2, _q2))"]


def test_a_lookup_whose_arguments_the_loop_keeps_is_made_once_per_entry_into_it():
    lines = hoist_probes(_in_loops(PROBE))
    assert lines == ["for _v1 in xs:",
                     "    _q2 = _miss0",
                     "    for _v2 in ys:",
                     "        if _q2 is _miss0:",
                     "            _q2 = st.memo[0]",
                     "            if _q2 is None or (_q2 := _q2.get(_v1, _miss0)) is _miss0:",
                     "                _q2 = _u3(st, _v1)",
                     "        out.append((_v2, _q2))"]


def test_a_lookup_whose_arguments_change_in_the_loop_stays():
    probe = [line.replace("_v1", "_v2") for line in PROBE]
    assert hoist_probes(_in_loops(probe)) == _in_loops(probe)
    # a name assigned in the loop's body (not its target) counts as changing too
    lines = ["for _v2 in ys:", "    _v1 = _v2 + 1", *["    " + line for line in PROBE]]
    assert hoist_probes(lines) == lines
    # ... and so does one assigned among several names at once
    lines = ["for _v2 in ys:", "    _v3, _v1, = _v2", *["    " + line for line in PROBE]]
    assert hoist_probes(lines) == lines


def test_a_lookup_outside_every_loop_stays():
    assert hoist_probes(PROBE) == PROBE


def test_the_moved_lookup_computes_what_it_did_and_calls_only_where_an_iteration_reaches_it():
    calls = []

    def run(lines, xs, ys):
        calls.clear()
        text = "def f(st, xs, ys):\n    out = []\n" + "".join(f"    {line}\n" for line in lines) + "    return out\n"
        ns = {"_miss0": object(), "_u3": lambda st, v: calls.append(v) or st.memo[0].setdefault(v, v * 10)}
        exec(text, ns)
        st = type("S", (), {})()
        st.memo = [None]
        st.memo[0] = {}
        return ns["f"](st, xs, ys), list(calls)

    old, new = _in_loops(PROBE), hoist_probes(_in_loops(PROBE))
    assert new != old
    for xs, ys in (([1, 2], [5, 6, 7]), ([1, 2], []), ([], [1])):
        assert run(new, xs, ys) == run(old, xs, ys)
    assert run(new, [1, 2], [])[1] == []            # no iteration: no call


def test_a_lookup_an_earlier_one_made_with_the_same_arguments_reads_its_result():
    from interpreter.engine.compile.probes import share_probes
    again = [line.replace("_q2", "_q5") for line in PROBE]
    lines = [*PROBE, "for _v3 in xs:", "    _x0 = _v1", "    _l2 = _x0",
             *["    " + line.replace("_v1", "_l2") for line in again], "    out.append(_q5)"]
    assert share_probes(lines) == [*PROBE, "for _v3 in xs:", "    _x0 = _v1", "    _l2 = _x0", "    out.append(_q2)"]


def test_a_lookup_the_earlier_one_may_not_have_made_stays():
    from interpreter.engine.compile.probes import share_probes
    again = [line.replace("_q2", "_q5") for line in PROBE]
    # the first one only in a branch
    lines = ["if c:", *["    " + line for line in PROBE], *again, "out.append(_q5)"]
    assert share_probes(lines) == lines
    # its argument changed in between
    lines = [*PROBE, "_v1 = _v1 + 1", *again, "out.append(_q5)"]
    assert share_probes(lines) == lines
    # another function's result
    lines = [*PROBE, *[line.replace("memo[0]", "memo[1]") for line in again], "out.append(_q5)"]
    assert share_probes(lines) == lines


def test_a_lookup_in_a_loop_that_later_changes_its_arguments_does_not_read_the_one_before_the_loop():
    from interpreter.engine.compile.probes import share_probes
    again = ["    " + line.replace("_q2", "_q5") for line in PROBE]
    # the loop's next round runs the rest of its body before the lookup again
    lines = [*PROBE, "for _v3 in xs:", *again, "    out.append(_q5)", "    _v1 = _v3"]
    assert share_probes(lines) == lines
    # without the change the earlier result is read
    assert share_probes(lines[:-1]) == [*PROBE, "for _v3 in xs:", "    out.append(_q2)"]


#: a probe of a function of two arguments, kept a dictionary per first argument (codegen.memo_path)
PROBE2 = ["_q2 = st.memo[0]",
          "if _q2 is None or (_q2 := _q2.get(_v1)) is None or (_q2 := _q2.get(L[3], _miss0)) is _miss0:",
          "    _q2 = _u3(st, _v1, L[3])"]


def test_a_lookup_of_two_arguments_is_read_with_both_and_moved_and_shared_alike():
    from interpreter.engine.compile.probes import _lookup, share_probes
    read = _lookup(PROBE2[1])
    assert (read.group(2), read.group(3), read.group(4)) == ("_q2", "(_v1, L[3],)", "_miss0")
    assert _lookup(PROBE[1]).group(3) == "_v1"
    # moved out of the inner loop, which changes neither argument
    lines = hoist_probes(_in_loops(PROBE2))
    assert lines[:5] == ["for _v1 in xs:", "    _q2 = _miss0", "    for _v2 in ys:", "        if _q2 is _miss0:",
                         "            _q2 = st.memo[0]"]
    # ... but not out of a loop over its first argument
    assert hoist_probes(["for _v1 in xs:", *["    " + line for line in PROBE2]]) == \
        ["for _v1 in xs:", *["    " + line for line in PROBE2]]
    # a second one with the same arguments (through a copy) reads the first one's result
    again = [line.replace("_q2", "_q5").replace("_v1", "_l2") for line in PROBE2]
    lines = [*PROBE2, "for _v3 in xs:", "    _l2 = _v1", *["    " + line for line in again], "    out.append(_q5)"]
    assert share_probes(lines) == [*PROBE2, "for _v3 in xs:", "    _l2 = _v1", "    out.append(_q2)"]
    # ... not one whose second argument differs
    other = [line.replace("L[3]", "L[4]") for line in again]
    lines = [*PROBE2, "for _v3 in xs:", "    _l2 = _v1", *["    " + line for line in other], "    out.append(_q5)"]
    assert share_probes(lines) == lines


#: a probe of two arguments in a loop over its second argument, the first fixed
OUTER_LOOP = ["for _v1 in xs:",
              "    _q2 = st.memo[0]",
              "    if _q2 is None or (_q2 := _q2.get(_p0)) is None or (_q2 := _q2.get(_v1, _miss0)) is _miss0:",
              "        _q2 = _u3(st, _p0, _v1)",
              "    out.append(_q2)"]


def test_a_loop_over_the_second_argument_looks_the_first_up_once_per_entry():
    from interpreter.engine.compile.probes import hoist_outer
    assert hoist_probes(OUTER_LOOP) == OUTER_LOOP        # the second argument changes: it stays
    assert hoist_outer(OUTER_LOOP) == ["_q2o = _miss0",
                                       "for _v1 in xs:",
                                       "    _q2 = _q2o",
                                       "    if _q2 is _miss0:",
                                       "        _q2 = st.memo[0]",
                                       "        if _q2 is not None and (_q2 := _q2.get(_p0)) is not None:",
                                       "            _q2o = _q2",
                                       "    if _q2 is None or (_q2 := _q2.get(_v1, _miss0)) is _miss0:",
                                       "        _q2 = _u3(st, _p0, _v1)",
                                       "    out.append(_q2)"]
    # a loop that changes the first argument: nothing to look up once
    changing = ["for _p0 in ps:", *["    " + line for line in OUTER_LOOP]]
    assert hoist_outer(changing)[:2] == ["for _p0 in ps:", "    _q2o = _miss0"]
    assert hoist_outer([line.replace("_p0", "_v1") for line in OUTER_LOOP]) == \
        [line.replace("_p0", "_v1") for line in OUTER_LOOP]
    # one argument only: not a nested probe, left to hoist_probes
    assert hoist_outer(_in_loops(PROBE)) == _in_loops(PROBE)


def test_the_first_argument_looked_up_once_gives_what_every_lookup_gave():
    from interpreter.engine.compile.probes import hoist_outer
    calls = []

    def run(lines, remembered, p, xs):
        calls.clear()
        text = "def f(st, _p0, xs):\n    out = []\n" + "".join(f"    {line}\n" for line in lines) + "    return out\n"

        def fill(st, p, v):             # what a function called on a miss does: compute, remember
            calls.append((p, v))
            st.memo[0] = st.memo[0] or {}
            st.memo[0].setdefault(p, {})[v] = p * 100 + v
            return p * 100 + v
        ns = {"_miss0": object(), "_u3": fill}
        exec(text, ns)
        st = type("S", (), {})()
        st.memo = [None if remembered is None else {k: dict(v) for k, v in remembered.items()}]
        return ns["f"](st, p, xs), list(calls)

    new = hoist_outer(OUTER_LOOP)
    assert new != OUTER_LOOP
    for remembered in (None, {}, {1: {}}, {1: {2: 102, 3: 103}}, {2: {2: 202}}):
        for xs in ([2, 3, 4], [], [4, 4]):
            got, old = run(new, remembered, 1, xs), run(OUTER_LOOP, remembered, 1, xs)
            assert got[0] == old[0] == [100 + x for x in xs]
            assert got[1] == old[1]                # called for the same missing results
    assert run(new, {1: {2: 102, 3: 103}}, 1, [2, 3])[1] == []


#: a read of a table's row in statement context (names: the row looked up in TableDecl.found,
#: the table's lookup called only when it is not there), with the guard marks codegen gives it
def _row(q, key, gid):
    return [f"{q} = (\x01{gid}\x02_tf1.get({key}, _miss0)\x03)",
            f"\x04{gid}\x02if {q} is _miss0:",
            f"    {q} = (\x01{gid + 1}\x02_t2({key})\x03)"]


def test_a_table_row_read_again_with_the_same_key_reads_the_first_read():
    from interpreter.engine.compile.probes import share_probes
    lines = [*_row("_q2", "_l1", 3), "for _v3 in xs:", "    _l4 = _v3",
             *["    " + line for line in _row("_q5", "_l1", 7)], "    out.append(_q5 + _l4)"]
    assert share_probes(lines) == [*_row("_q2", "_l1", 3), "for _v3 in xs:", "    _l4 = _v3",
                                   "    out.append(_q2 + _l4)"]
    # another key, a key changed in between, the first read only in a branch, another table: kept
    for changed in ([*_row("_q2", "_l1", 3), *_row("_q5", "_l4", 7), "out.append(_q5)"],
                    [*_row("_q2", "_l1", 3), "_l1 = _l1 + 1", *_row("_q5", "_l1", 7), "out.append(_q5)"],
                    ["if c:", *["    " + line for line in _row("_q2", "_l1", 3)], *_row("_q5", "_l1", 7),
                     "out.append(_q5)"],
                    [*_row("_q2", "_l1", 3), *[line.replace("_tf1", "_tf9") for line in _row("_q5", "_l1", 7)],
                     "out.append(_q5)"]):
        assert share_probes(changed) == changed


def test_a_function_with_a_table_written_out_several_times_keeps_its_values_and_its_error(rulebook):
    """Yak's price(n, crystals) in the three domains of its build action: the row read once per
    value of n; the values those of the rulebook; a key the table has no row for still fails at
    the table's read in the function."""
    from interpreter.game import Rulebook
    from dsl.diagnostics import RuleRuntimeError
    import pytest
    head = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 2}}
tables:
  cost: {1: 10, 2: 30, 3: 50}
functions:
  price: {params: {n: int, c: int}, value: "cost[n] + c"}
variables: {got: []}
flow:
  - set: "got = [(a, b) for n in NS for a in 0..price(n, 1) for b in [price(n, 1) - a] if a < 12 and b <= price(n, 2)]"
end: {score: "count(got)"}
"""
    rb = Rulebook.load(rulebook(head.replace("NS", "[1, 2]")))
    st = rb.new_game(2, 1)
    # n = 1: price(1, 1) = 11, a in 0..11 (all < 12), b = 11 - a <= price(1, 2) = 12: 12 pairs;
    # n = 2: price(2, 1) = 31, a in 0..31 of which 0..11 are < 12, b = 31 - a <= 32: 12 pairs
    assert st.scores() == [24, 24]
    assert list(rb.evaluate(st, "got"))[:2] == [(0, 11), (1, 10)]
    book = rulebook(head.replace("NS", "[1, 4]"))
    with pytest.raises(RuleRuntimeError) as info:
        Rulebook.load(book).new_game(2, 1)
    assert "table 'cost' has no row for 4" in info.value.message
    line = next(i + 1 for i, text in enumerate((book / "game.yaml").read_text().splitlines()) if "cost[n]" in text)
    assert info.value.pos.line == line
