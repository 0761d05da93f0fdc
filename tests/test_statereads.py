"""The state's tables read through locals where a loop reads them (compile/statereads.py)."""
from interpreter.engine.compile.statereads import bind_state_reads


def test_tables_read_in_a_loop_are_read_once_before_it():
    lines = ["_a = st.v[3]",
             "for _v1 in xs:",
             "    if st.z[st.zi[7][(_v1, 0)]]:",
             "        out.append(st.v[_v1])",
             "_b = st.zf[2][()]"]
    binds, new = bind_state_reads(lines)
    assert binds == ["_rw_v = st.v", "_rw_z = st.z", "_rw_zi7 = st.zi[7]"]
    assert new == ["_a = _rw_v[3]",
                   "for _v1 in xs:",
                   "    if _rw_z[_rw_zi7[(_v1, 0)]]:",
                   "        out.append(_rw_v[_v1])",
                   "_b = st.zf[2][()]"]          # read outside every loop: as it was


def test_text_without_loops_stays():
    lines = ["_a = st.z[st.zi[7][(1, 0)]]", "if _a:", "    _b = st.v[2]"]
    assert bind_state_reads(lines) == ([], lines)


def test_the_text_computes_what_it_did():
    class S:
        pass
    st = S()
    st.v, st.z, st.zi = [0, 10, 20], [["a"], [], ["b", "c"]], [None, {1: 0, 2: 2}]
    lines = ["out = []", "for k in (1, 2):", "    out.append((st.v[k], len(st.z[st.zi[1][k]])))"]
    binds, new = bind_state_reads(lines)

    def run(body):
        ns = {"st": st}
        exec("\n".join(body), ns)
        return ns["out"]
    assert run(binds + new) == run(lines) == [(10, 1), (20, 2)]
