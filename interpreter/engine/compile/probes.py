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
_PROBE2 = re.compile(r"( *)" + _MARKS + r"if (_q\d+) is None or \(\2 := \2\.get\((.*), (_miss\d+)\)\) is \4:\Z")
_FOR = re.compile(r"( *)" + _MARKS + r"for (.+?) in .*:\Z")
_HEADER = re.compile(r" *" + _MARKS + r"(if|elif|else|for|while|try|except|def|with)\b")
_TOKENS = re.compile(r"(?<![\w.])" + _NAME)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _assigned(names: set, lines: list) -> bool:
    """Does any of ``lines`` assign one of ``names`` (or could it: a for target, a walrus)?"""
    for name in names:
        n = re.escape(name)
        pat = re.compile(rf"(?<![\w.]){n}\s*(?:[-+*/%&|^@]|//|<<|>>|\*\*)?=(?!=)|(?<![\w.]){n}\s*:=")
        for line in lines:
            if pat.search(line):
                return True
            found = _FOR.match(line)
            if found and re.search(rf"(?<![\w.]){n}(?!\w)", found.group(2)):
                return True
    return False


def hoist_probes(lines: list) -> list:
    """``lines`` (generated statements, marks and all) with every probe inside a loop that
    does not change its arguments looked up once per entry into the outermost such loop."""
    lines = list(lines)
    i = 0
    while i + 2 < len(lines):
        first = _PROBE1.match(lines[i])
        second = _PROBE2.match(lines[i + 1]) if first else None
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
        # the enclosing blocks, inner to outer: the outermost loop of those not changing the names
        target = None
        depth = _indent(lines[top])
        k = top - 1
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
                    if _assigned(names, lines[k:end]):
                        break
                    target = k
                elif kind not in ("if", "elif", "else"):
                    break
            k -= 1
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

