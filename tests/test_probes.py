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
