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
from math import comb

from .limits import LIMITS, LimitError, check_size, count_work
from .values import format_value


def set_key(v):
    """The set order: numbers ascending, then everything else by how it is written."""
    if isinstance(v, int) and not isinstance(v, bool):
        return (0, v, "")
    return (1, 0, format_value(v))


def choose_sets(xs, lo: int, hi: int) -> list:
    """Every set of ``lo``..``hi`` distinct elements of ``xs``, each a tuple (a list of the
    language, as a comprehension makes) in the set order; smaller sets first, then by the
    order of their elements.  Alike elements (components with one label, which one id
    names) are one choice: a set holds the first of them in ``xs``'s order, as many as it
    takes.  How many sets there are is counted before one is built: more than the limit
    'elements' is a LimitError (RW910 where the parameter is written), never a search that
    fills the memory.  ``lo`` and ``hi`` may come from the state: below 0 counts as 0 ("discard
    down to 3" from 2 cards: the empty set), and ``hi < lo`` offers no set."""
    lo, hi = max(lo, 0), max(hi, 0)
    groups: dict = {}
    for v in dict.fromkeys(xs):
        groups.setdefault(format_value(v), []).append(v)
    kinds = sorted(groups.values(), key=lambda g: set_key(g[0]))
    hi = min(hi, sum(len(g) for g in kinds))
    if hi < lo:
        return []
    n = count_sets([len(g) for g in kinds], lo, hi)
    if n > LIMITS.elements:
        raise LimitError(f"sets of {lo} to {hi} of these {sum(len(g) for g in kinds):,} elements are more than "
                         f"{LIMITS.elements:,} choices (limit 'elements')")
    check_size(n, "this set parameter's choices")       # the limits 'work' and 'memory'

    if all(len(g) == 1 for g in kinds):     # distinct elements: the combinations themselves
        distinct = [g[0] for g in kinds]
        out = []
        for k in range(lo, hi + 1):
            out.extend(itertools.combinations(distinct, k))
        return out
    out = []
    for k in range(lo, hi + 1):
        _pick(kinds, 0, k, (), out)
    return out


def _pick(kinds, i: int, k: int, chosen: tuple, out: list) -> None:
    """Append every set of ``k`` more elements from ``kinds[i:]`` after ``chosen``, in the
    order of the combinations of the elements (more of one kind before the next kind)."""
    if k == 0:
        out.append(chosen)
        return
    for j in range(i, len(kinds)):
        group = kinds[j]
        for n in range(min(len(group), k), 0, -1):
            _pick(kinds, j + 1, k - n, chosen + tuple(group[:n]), out)


def count_sets(sizes, lo: int, hi: int, work: bool = True) -> int:
    """How many sets of ``lo``..``hi`` elements there are when ``sizes[j]`` alike elements
    of each kind j are there (the coefficients of prod_j (1 + x + … + x^sizes[j])), or a
    number past the limit 'elements' as soon as it is clear there are more."""
    cap = LIMITS.elements + 1
    kinds = len(sizes)
    least = 0                           # the sets of distinct kinds alone, a lower bound
    for k in range(lo, min(hi, kinds) + 1):
        least += comb(kinds, k)
        if least >= cap:
            return least
    if all(n == 1 for n in sizes):
        return least
    if work:                            # while a game runs: counted against the limit 'work'
        count_work(kinds * (hi + 1))
    ways = [1] + [0] * hi
    for n in sizes:                     # times (1 + x + … + x^n): a window sum of the ways
        run, new = 0, []
        for k in range(hi + 1):
            run += ways[k]
            if k > n:
                run -= ways[k - n - 1]
            new.append(min(run, cap))
        ways = new
    return sum(ways[lo:hi + 1])


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
        if not sep:                     # "2", quoted: the number
            hi = lo
        try:
            a, b = int(lo.strip()), int(hi.strip())
        except ValueError:
            return None
        return (a, b) if 0 <= a <= b else None
    return None
