"""The state's tables read through locals in generated text where nothing changes the state.

Generated code reads a zone as ``st.z[st.zi[family][key]]`` and a variable as
``st.v[slot]``: attribute loads and subscripts that, inside a loop, run again in every
iteration.  In text that changes nothing (a rulebook function, an expression, an
option enumerator) these tables are the same objects throughout, so when one of them
is read inside a loop :func:`bind_state_reads` reads it once, into a local, before
the text and the text reads the local (``_rw_z[_rw_zi7[key]]``).  Read only outside
loops it stays as it was (the extra line would cost more than it saves).
"""
from __future__ import annotations

import re

_MARKS = r"(?:\x04\d+\x02)*"
_FOR = re.compile(r"( *)" + _MARKS + r"for .+ in .*:\Z")
#: what may be read through a local: text -> the local's name
_READS = re.compile(r"(?<![\w.])st\.(z|v|zi\[\d+\]|zn\[\d+\]|zf\[\d+\])(?=\[)")


def _name(read: str) -> str:
    return "_rw_" + re.sub(r"\W", "", read)


def bind_state_reads(lines: list) -> tuple:
    """``(bindings, lines)``: the statements that read the tables used inside a loop of
    ``lines`` into locals (to run before them, at their indentation), and ``lines``
    reading those locals instead."""
    in_loop = set()
    loops = []          # indentation of the for headers around the current line
    for line in lines:
        if not line.strip():
            continue
        d = len(line) - len(line.lstrip(" "))
        while loops and d <= loops[-1]:
            loops.pop()
        if loops:
            in_loop.update(m.group(1) for m in _READS.finditer(line))
        if _FOR.match(line):
            loops.append(d)
    if not in_loop:
        return [], lines
    bindings = [f"{_name(read)} = st.{read}" for read in sorted(in_loop)]

    def local(m):
        return _name(m.group(1)) if m.group(1) in in_loop else m.group(0)
    return bindings, [_READS.sub(local, line) for line in lines]
