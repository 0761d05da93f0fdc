"""Remembered-result lookups moved out of the loops that do not change their arguments.

A call of a rulebook function in statement context is written as a *probe*
(calls._memo_probe): three lines that look the result up in ``st.memo`` and call
the function only when there is none::

    _q2 = st.memo[0]
    if _q2 is None or (_q2 := _q2.get(_v2, _miss0)) is _miss0:
        _q2 = _u3(st, _v2)

Inside a loop whose body assigns none of the names the arguments read, every
iteration asks the same question again: a tuple built, a dictionary searched.
:func:`hoist_probes` gives such a probe a first-use guard and sets its result name
to the "missing" marker before the outermost such loop, so the lookup runs once
per entry into that loop — and only if an iteration reaches it, as before (a
function that would fail is still called only where the rules call it)::

    _q2 = _miss0
    for _v3 in _q7:
        ...
            if _q2 is _miss0:
                _q2 = st.memo[0]
                if _q2 is None or ...:
                    _q2 = _u3(st, _v2)

Only for text in which nothing changes the state while the loop runs (the
statements of one expression, an option enumerator): the remembered result is
then the same in every iteration.  The text is the generated text with its marks
(codegen: guards, local slots), which move with their lines; a line keeps its
marks, so errors stay located where they were.
"""
from __future__ import annotations

import re

_MARKS = r"(?:\x04\d+\x02)*"
_NAME = r"(?:[A-Za-z_]\w*|\x05\d+\x06)"
_PROBE1 = re.compile(r"( *)(" + _MARKS + r")(_q\d+) = st\.memo\[(\d+)\]\Z")
#: a plain argument (context._PLAIN_ARG): a name, a mark, a slot, a number
_ARG = r"(?:\(-?\d+\)|[^,()\s]+)"
#: the probe's second line; a function of two arguments looks the first up on its own
#: (``... or (_q2 := _q2.get(a)) is None or (_q2 := _q2.get(b, _miss0)) is _miss0:``,
#: codegen.memo_path)
_PROBE2_RE = re.compile(r"( *)" + _MARKS + r"if (_q\d+) is None((?: or \(\2 := \2\.get\(" + _ARG
                        + r"\)\) is None)*) or \(\2 := \2\.get\((.*), (_miss\d+)\)\) is \5:\Z")
_INNER = re.compile(r"\.get\((" + _ARG + r")\)")


class _Lookup:
    """The second line of a probe, read: ``group(2)`` its result's name, ``group(3)`` its
    arguments as one text (several as a tuple's text ``(a, b,)``, however the function keeps
    them), ``group(4)`` its missing marker."""

    __slots__ = ("parts",)

    def __init__(self, parts):
        self.parts = parts

    def group(self, n):
        return self.parts[n]


def _lookup(line: str):
    """The probe's second line ``line`` read (a :class:`_Lookup`), or None."""
    found = _PROBE2_RE.match(line)
    if found is None:
        return None
    args = _INNER.findall(found.group(3))
    key = "(" + ", ".join([*args, found.group(4)]) + ",)" if args else found.group(4)
    return _Lookup((line, found.group(1), found.group(2), key, found.group(5)))


_FOR = re.compile(r"( *)" + _MARKS + r"for (.+?) in .*:\Z")
_LOOP = re.compile(r" *" + _MARKS + r"(?:for .+ in .*|while .*):\Z")
_HEADER = re.compile(r" *" + _MARKS + r"(if|elif|else|for|while|try|except|def|with)\b")
_TOKENS = re.compile(r"(?<![\w.])" + _NAME)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


#: a statement assigning to several names at once (``a, b, = ...``): the names it assigns
_TUPLE_TARGET = re.compile(r" *" + _MARKS + r"(\(?[^=()]*,[^=()]*\)?)\s*=(?!=)")


def assigns(names: set, lines: list) -> bool:
    """Does any of ``lines`` assign one of ``names`` (or could it: a for target, a walrus, a
    tuple of targets)?"""
    for name in names:
        n = re.escape(name)
        pat = re.compile(rf"(?<![\w.]){n}\s*(?:[-+*/%&|^@]|//|<<|>>|\*\*)?=(?!=)|(?<![\w.]){n}\s*:=")
        word = re.compile(rf"(?<![\w.]){n}(?!\w)")
        for line in lines:
            if pat.search(line):
                return True
            found = _FOR.match(line) or _TUPLE_TARGET.match(line)
            if found and word.search(found.group(found.lastindex)):
                return True
    return False


def _outermost_free_loop(lines: list, at: int, depth: int, names: set) -> int | None:
    """The line of the outermost ``for`` around line ``at`` (indented ``depth``) whose body assigns
    none of ``names``: the enclosing blocks walked inner to outer, through ``if``/``elif``/``else``,
    stopping at any other block and at a loop that assigns one; None when there is none."""
    target = None
    k = at - 1
    while k >= 0 and depth > 0:
        line = lines[k]
        d = _indent(line)
        if d < depth and line.strip():
            depth = d
            header = _HEADER.match(line)
            if header is None:
                break
            kind = header.group(1)
            if kind == "for":
                end = k + 1
                while end < len(lines) and (_indent(lines[end]) > d or not lines[end].strip()):
                    end += 1
                if assigns(names, lines[k:end]):
                    break
                target = k
            elif kind not in ("if", "elif", "else"):
                break
        k -= 1
    return target


def hoist_probes(lines: list) -> list:
    """``lines`` (generated statements, marks and all) with every probe inside a loop that
    does not change its arguments looked up once per entry into the outermost such loop."""
    lines = list(lines)
    i = 0
    while i + 2 < len(lines):
        first = _PROBE1.match(lines[i])
        second = _lookup(lines[i + 1]) if first else None
        if second is None or second.group(2) != first.group(3) or _indent(lines[i + 1]) != len(first.group(1)):
            i += 1
            continue
        ws, q, key, miss = first.group(1), first.group(3), second.group(3), second.group(4)
        call = lines[i + 2]
        guarded = i > 0 and re.fullmatch(re.escape(ws[:-4]) + _MARKS + re.escape(f"if {q} is {miss}:"),
                                         lines[i - 1]) is not None       # hoisted already
        top = i - 1 if guarded else i
        if _indent(call) <= len(ws) or sum(line.count(f"{q} = st.memo[") for line in lines) != 1:
            i += 3
            continue
        names = {t for t in _TOKENS.findall(key) if t != "st"}
        target = _outermost_free_loop(lines, top, _indent(lines[top]), names)
        if target is None:
            i += 3
            continue
        if guarded:     # its first-use guard already there: set it further out, if it can go
            init = " " * _indent(lines[target]) + f"{q} = {miss}"
            was = re.compile(" *" + _MARKS + re.escape(f"{q} = {miss}"))
            at = next((m for m in range(top - 1, -1, -1) if was.fullmatch(lines[m])), None)
            if at is not None and target < at:
                del lines[at]
                lines.insert(target, init)
            i += 3
            continue
        pad = "    "
        guard = f"{ws}if {q} is {miss}:"
        body = [pad + lines[i], pad + lines[i + 1]]
        j = i + 2
        while j < len(lines) and _indent(lines[j]) > len(ws):
            body.append(pad + lines[j])
            j += 1
        lines[i:j] = [guard, *body]
        lines.insert(target, " " * _indent(lines[target]) + f"{q} = {miss}")
        i = j + 2
    return lines



def _probe_at(lines: list, i: int):
    """The probe whose lookup line is ``lines[i]``: ``(start, end, indent, q, slot, key, miss)``
    (``start``: its first-use guard's line when it has one), or None."""
    first = _PROBE1.match(lines[i])
    if first is None or i + 2 >= len(lines):
        return None
    second = _lookup(lines[i + 1])
    ws, q = first.group(1), first.group(3)
    if second is None or second.group(2) != q or _indent(lines[i + 1]) != len(ws):
        return None
    if _indent(lines[i + 2]) <= len(ws) or (i + 3 < len(lines) and _indent(lines[i + 3]) > len(ws)):
        return None
    miss = second.group(4)
    start = i
    if i > 0 and len(ws) >= 4 and re.fullmatch(re.escape(ws[:-4]) + _MARKS + re.escape(f"if {q} is {miss}:"),
                                              lines[i - 1]):
        start = i - 1
    return start, i + 3, _indent(lines[start]), q, first.group(4), second.group(3), miss


#: the first line of a table's row read in statement context (names._index_call: the row looked up
#: in ``TableDecl.found``, the table's lookup called only when it is not there)
_TABLE1 = re.compile(r"( *)(" + _MARKS + r")(_q\d+) = \(\x01\d+\x02(_tf\d+)\.get\((" + _ARG
                     + r"), (_miss\d+)\)\x03\)\Z")


def _table_read_at(lines: list, i: int):
    """The read of a table's row whose first line is ``lines[i]`` (three lines: the row looked
    up, ``if q is miss:``, the lookup called), as :func:`_probe_at` gives a probe — its "slot"
    the table's rows' name, its key the row's key — or None."""
    first = _TABLE1.match(lines[i])
    if first is None or i + 2 >= len(lines):
        return None
    ws, q, miss = first.group(1), first.group(3), first.group(6)
    if (not re.fullmatch(re.escape(ws) + _MARKS + re.escape(f"if {q} is {miss}:"), lines[i + 1])
            or _indent(lines[i + 2]) <= len(ws)):
        return None
    if i + 3 < len(lines) and _indent(lines[i + 3]) > len(ws):
        return None
    return i, i + 3, len(ws), q, first.group(4), first.group(5), miss


_COPY = re.compile(r"( *)" + _MARKS + r"(" + _NAME + r") = \(?(" + _NAME + r")\)?\Z")


def _reach(lines: list, a: int, b: int) -> int:
    """Where the lines that run between line ``a`` and each run of line ``b`` end: ``b``, or
    the end of a loop whose header lies from ``a`` on and whose body holds ``b`` (its later
    lines run before ``b`` runs again)."""
    end = b
    for k in range(a, b):
        line = lines[k]
        if _LOOP.match(line) and _indent(line) < _indent(lines[b]):
            stop = k + 1
            while stop < len(lines) and (_indent(lines[stop]) > _indent(line) or not lines[stop].strip()):
                stop += 1
            if stop > b:
                end = max(end, stop)
    return end


def _dominates(lines: list, a: int, b: int, indent: int) -> bool:
    """Has a statement at ``indent`` ending before line ``a`` run whenever line ``b`` runs
    (every line from ``a`` to ``b`` inside its block)?"""
    return all(_indent(line) >= indent or not line.strip() for line in lines[a:b + 1])


def share_probes(lines: list) -> list:
    """``lines`` without a probe whose result an earlier probe of the same function with the
    same arguments (the same names, or plain copies of them) has certainly computed in the
    same run of the text: what read its result reads the earlier one's.  So too a read of a
    table's row that an earlier read of the same row has made (a small function written out
    where it is called several times, say a price read from a table in three domains): a table
    does not change while the text runs, and the earlier read has failed first if the row is
    not there."""
    lines = list(lines)
    changed = True
    while changed:
        changed = False
        seen = []
        i = 0
        while i < len(lines):
            p2 = _probe_at(lines, i) or _table_read_at(lines, i)
            if p2 is None:
                i += 1
                continue
            start2, end2, ind2, q2, slot2, key2, miss2 = p2
            for start1, end1, ind1, q1, slot1, key1, _ in reversed(seen):
                if slot1 != slot2 or not _dominates(lines, end1, start2, ind1):
                    continue
                key = _through_copies(lines, end1, start2, key2)
                names = {t for t in _TOKENS.findall(key1) if t != "st"}
                if key != key1 or assigns(names, lines[end1:_reach(lines, end1, start2)]):
                    continue
                # its lookup, its walruses (one per argument of a nested lookup), its call (its guard's mark)
                own = (2 if start2 == i else 3) + len(re.findall(rf"(?<![\w.]){q2}\s*:=", lines[i + 1]))
                if sum(len(re.findall(rf"(?<![\w.]){q2}\s*:?=(?!=)", line)) for line in lines) != own:
                    continue            # not a name of its own (assigned elsewhere too): leave it
                del lines[start2:end2]
                if start2 and lines[start2 - 1].rstrip().endswith(":") and (
                        start2 == len(lines) or _indent(lines[start2]) <= _indent(lines[start2 - 1])):
                    lines.insert(start2, " " * ind2 + "pass")       # a block it was alone in
                if start2 != i:         # it had a first-use guard: its mark goes too
                    was = re.compile(" *" + _MARKS + re.escape(f"{q2} = {miss2}"))
                    at = next((m for m in range(start2 - 1, -1, -1) if was.fullmatch(lines[m])), None)
                    if at is not None:
                        del lines[at]
                use = re.compile(rf"(?<![\w.]){q2}(?!\w)")
                lines = [use.sub(q1, line) for line in lines]
                changed = True
                break
            if changed:
                break
            seen.append(p2)
            i = end2
    return lines


def _through_copies(lines: list, a: int, b: int, key: str) -> str:
    """``key`` (the arguments of the probe at line ``b``) with each name that a plain copy
    ``name = other`` between lines ``a`` and ``b`` set (one that certainly ran before ``b``,
    ``other`` unchanged since) replaced by what it copies."""
    for _ in range(8):
        new = key
        for c in range(b - 1, a - 1, -1):
            found = _COPY.match(lines[c])
            if found is None or not _dominates(lines, c, b, len(found.group(1))):
                continue
            name, other = found.group(2), found.group(3)
            if re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", new) is None:
                continue
            between = lines[c + 1:_reach(lines, c + 1, b)]
            if assigns({other, name}, between):
                continue
            new = re.sub(rf"(?<![\w.]){re.escape(name)}(?!\w)", lambda _m: other, new)
        if new == key:
            return key
        key = new
    return key


_CALL = re.compile(r"( *)(" + _MARKS + r")(_q\d+) = ([A-Za-z_]\w*)\(st(?:, (.*))?\)\Z")


def listing_calls(lines: list, plain, varying: set, fixed: frozenset = frozenset()) -> tuple:
    """``lines`` (an option enumerator's, after :func:`share_probes` and :func:`hoist_probes`)
    with each probe whose arguments read a name in ``varying`` (its loops' values) and whose
    function ``plain(name)`` gives a variant that remembers nothing for (the name of the
    function the probe calls on a miss; None: keep the probe) looked up in a dictionary of
    the listing's own instead of ``st.memo``, the variant called on a miss; and the lines
    that make those dictionaries, for the top of the enumerator: ``(lines, inits)``.
    Such a function is called by option enumerators only (``FuncDecl.called_outside_options``):
    its remembered results would be asked for again only by a later listing of a state in
    which nothing it reads has changed, and one whose arguments are the listing's own loop
    values is asked a new question nearly every time — so what it answers is kept for the
    listing alone (where other elements of an earlier domain may ask the same again), in a
    dictionary that is there from the start: no slot of ``st.memo`` looked at, no key
    built twice on a miss.  ``fixed``: names the whole listing keeps (the deciding seat,
    nothing in ``lines`` assigns them), left out of its dictionaries' keys — a key of one
    argument then is that argument, no tuple built."""
    out = []
    inits = {}
    i = 0
    while i < len(lines):
        first = _PROBE1.match(lines[i])
        second = _lookup(lines[i + 1]) if first is not None and i + 2 < len(lines) else None
        call = _CALL.match(lines[i + 2]) if second is not None else None
        if (call is None or second.group(2) != first.group(3) or call.group(3) != first.group(3)
                or _indent(lines[i + 1]) != len(first.group(1)) or len(call.group(1)) <= len(first.group(1))
                or (i + 3 < len(lines) and _indent(lines[i + 3]) > len(first.group(1)))):
            out.append(lines[i])
            i += 1
            continue
        names = {t for t in _TOKENS.findall(second.group(3)) if t != "st"}
        name = plain(call.group(4)) if names & varying else None
        if name is None:
            out.extend(lines[i:i + 3])
        else:
            args = f", {call.group(5)}" if call.group(5) else ""
            ws, q, key, miss = first.group(1), first.group(3), second.group(3), second.group(4)
            here = inits.setdefault(first.group(4), f"_rw_here{first.group(4)}")
            if fixed and key.startswith("(") and key.endswith(",)"):     # its own arguments only
                parts = [a for a in key[1:-2].split(", ") if a not in fixed]
                key = parts[0] if len(parts) == 1 else "(" + ", ".join(parts) + ",)"
            if key.startswith("(") and key.endswith(",)"):     # a tuple: built once
                out.append(f"{ws}{first.group(2)}{q}k = {key}")
                key = f"{q}k"
            out.append(f"{ws}{first.group(2)}{q} = {here}.get({key}, {miss})")
            out.append(f"{ws}if {q} is {miss}:")
            marks = call.group(2) or first.group(2)     # a failure in the call is the call's
            out.append(f"{ws}    {marks}{q} = {here}[{key}] = {name}(st{args})")
        i += 3
    return out, [f"{name} = {{}}" for name in inits.values()]


def loop_values(lines: list) -> set:
    """The names the ``for`` loops of ``lines`` bind."""
    found = set()
    for line in lines:
        m = _FOR.match(line)
        if m is not None:
            found.update(_TOKENS.findall(m.group(2)))
    return found


_SETS_TEMP = re.compile(r"( *)" + _MARKS + r"(_q\d+) = ")


def loop_made(lines: list) -> set:
    """The names the ``for`` loops of ``lines`` bind, and the temporaries a loop's body sets
    (a part of an expression computed from them: a crevice's colour, a column's cost)."""
    found = loop_values(lines)
    loops: list = []                # the indentation of each open loop
    for line in lines:
        ws = _indent(line)
        while loops and ws <= loops[-1]:
            loops.pop()
        m = _SETS_TEMP.match(line)
        if m is not None and loops:
            found.add(m.group(2))
        if _FOR.match(line) is not None:
            loops.append(ws)
    return found


def hoist_outer(lines: list) -> list:
    """``lines`` with each probe of a function of two arguments (nested, codegen.memo_path)
    that a loop asks with its first argument fixed and its second changing — which
    :func:`hoist_probes` cannot move — looking the first argument's dictionary up once per
    entry into the outermost loop that keeps the first argument (on first use, as
    :func:`hoist_probes` does), and only the second in every iteration::

        _q2o = _miss0
        for _v3 in xs:
            _q2 = _q2o
            if _q2 is _miss0:
                _q2 = st.memo[0]
                if _q2 is not None and (_q2 := _q2.get(_p0)) is not None:
                    _q2o = _q2
            if _q2 is None or (_q2 := _q2.get(_v3, _miss0)) is _miss0:
                _q2 = _u3(st, _p0, _v3)

    The first argument's dictionary is kept once found; until then every iteration looks
    for it again (a call on a miss makes it: the next iteration finds it).  For the same text as :func:`hoist_probes`, after it (and, in an option
    enumerator, after :func:`listing_calls`)."""
    lines = list(lines)
    i = 0
    while i + 2 < len(lines):
        first = _PROBE1.match(lines[i])
        second = _PROBE2_RE.match(lines[i + 1]) if first else None
        if (second is None or second.group(2) != first.group(3) or _indent(lines[i + 1]) != len(first.group(1))
                or _indent(lines[i + 2]) <= len(first.group(1))
                or (i + 3 < len(lines) and _indent(lines[i + 3]) > len(first.group(1)))):
            i += 1
            continue
        outer = _INNER.findall(second.group(3))
        ws, q, slot, miss, last = first.group(1), first.group(3), first.group(4), second.group(5), second.group(4)
        if len(outer) != 1 or (i > 0 and lines[i - 1].strip().endswith(f"if {q} is {miss}:")):
            i += 3
            continue
        names = {t for t in _TOKENS.findall(outer[0]) if t != "st"}
        target = _outermost_free_loop(lines, i, len(ws), names)
        if target is None:
            i += 3
            continue
        marks1 = first.group(2)
        marks2 = lines[i + 1][len(ws):lines[i + 1].index("if ")]
        o = f"{q}o"
        lines[i:i + 2] = [f"{ws}{q} = {o}",
                          f"{ws}if {q} is {miss}:",
                          f"{ws}    {marks1}{q} = st.memo[{slot}]",
                          f"{ws}    {marks2}if {q} is not None and ({q} := {q}.get({outer[0]})) is not None:",
                          f"{ws}        {o} = {q}",
                          f"{ws}{marks2}if {q} is None or ({q} := {q}.get({last}, {miss})) is {miss}:"]
        lines.insert(target, " " * _indent(lines[target]) + f"{o} = {miss}")
        i += 8
    return lines
