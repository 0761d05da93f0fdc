"""Set-valued choices: a parameter whose value is a set of distinct elements.

``params: {gems: {set: "[c for c in color if bank[c] > 0]", size: 3}}`` offers every
set of 3 distinct elements of the list (``size: "1..3"``: of 1 to 3), each once, in
no order: the value the action's steps see is a list of the chosen elements in the
*set order* (numbers ascending, then the rest by how they are written), and its id
part is written in braces, ``take(gems={blue,green,white})``.  The same order makes
the ids of the fixed action space (interpreter/spaces.py): the combinations of the
parameter's possible elements.  Components are told apart by identity but written
by label, so two sets that differ only in which of two alike components they hold
have one id and are one choice.
"""
from __future__ import annotations

import itertools

from .values import format_value


def set_key(v):
    """The set order: numbers ascending, then everything else by how it is written."""
    if isinstance(v, int) and not isinstance(v, bool):
        return (0, v, "")
    return (1, 0, format_value(v))


def choose_sets(xs, lo: int, hi: int) -> list:
    """Every set of ``lo``..``hi`` distinct elements of ``xs``, each a tuple (a list of the
    language, as a comprehension makes) in the set order; smaller sets first, then by the
    order of their elements."""
    distinct = sorted(dict.fromkeys(xs), key=set_key)
    out = []
    for k in range(max(lo, 0), min(hi, len(distinct)) + 1):
        out.extend(itertools.combinations(distinct, k))
    return out


def format_set(values) -> str:
    """The id part of a set value: ``{blue,green,white}``."""
    return "{" + ",".join(format_value(v) for v in values) + "}"


def parse_size(size):
    """``size:`` as ``(lo, hi)``: a number k is k..k, a text ``"lo..hi"`` its two numbers;
    None when it is neither (reported by the compiler)."""
    if isinstance(size, bool):
        return None
    if isinstance(size, int):
        return (size, size) if size >= 0 else None
    if isinstance(size, str):
        lo, sep, hi = size.partition("..")
        try:
            a, b = int(lo.strip()), int(hi.strip())
        except ValueError:
            return None
        return (a, b) if sep and 0 <= a <= b else None
    return None
