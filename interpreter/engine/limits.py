"""Bounds on the work a rulebook may ask for while it runs.

A rulebook can state, in a few characters, a computation that never ends
or fills the memory (``1..1000000000000``, ``x = x * x`` in a loop, a
comprehension over 10^10 pairs).  The engine refuses such work where it is
built, with a located error (RW910) instead of hanging:

==============  =========  =====================================================
limit           default    what it bounds
==============  =========  =====================================================
``elements``    1,000,000  the size of one list, range, comprehension, search
                           (``permutations``, ``subsets``, ``connected``,
                           ``best_assignment``…) built by one evaluation
``digits``      1,000      the decimal digits of a number computed while playing
``steps``       500,000    the steps the rules run between two decisions
``decisions``   20,000     the decisions of one game
``components``  100,000    the components, zones and variable instances of a layout
``log_chars``   2,000      one ``log`` line (longer lines are cut, not refused)
``resample_``   1,000      the worlds ``State.resample`` tries for one sample before
``tries``                  it reports that none fits what the seat knows (RW921)
==============  =========  =====================================================

Research runs may raise them: ``interpreter.limits.configure(steps=10**7)``
or the environment variable ``REGELWERK_LIMITS="steps=10000000,elements=5000000"``.
Checks sit in the primitives that build big things, never per expression
node, so they cost nothing on the hot path.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, fields
from math import comb, perm


class LimitError(Exception):
    """A rulebook asked for more work than the limits allow (located by the caller: RW910)."""


@dataclass
class Limits:
    elements: int = 1_000_000
    digits: int = 1_000
    steps: int = 500_000
    decisions: int = 20_000
    components: int = 100_000
    log_chars: int = 2_000
    resample_tries: int = 1_000     # worlds State.resample tries before it gives up (issue 26)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if name == "digits":            # the bound check_number compares with, kept beside digits
            object.__setattr__(self, "bits", int(value * 3.33) + 1)


LIMITS = Limits()


def configure(**values) -> Limits:
    """Change limits for this process (e.g. for a research run); returns the limits in force."""
    names = {f.name for f in fields(Limits)}
    for name, value in values.items():
        if name not in names:
            raise ValueError(f"unknown limit '{name}' (limits: {', '.join(sorted(names))})")
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"limit {name} must be a whole number of at least 1, not {value!r}")
        setattr(LIMITS, name, value)
    return LIMITS


def _from_environment() -> None:
    text = os.environ.get("REGELWERK_LIMITS", "").strip()
    if not text:
        return
    values = {}
    for item in text.split(","):
        name, _, value = item.partition("=")
        try:
            values[name.strip()] = int(float(value))
        except ValueError:
            raise ValueError(f"REGELWERK_LIMITS: '{item}' is not NAME=NUMBER") from None
    configure(**values)


def check_size(n: int, what: str) -> None:
    if n > LIMITS.elements:
        raise LimitError(f"{what} would hold {n:,} elements; at most {LIMITS.elements:,} are allowed "
                         f"(limit 'elements')")


def check_number(n: int) -> int:
    if n.bit_length() > LIMITS.bits:
        raise LimitError(f"a number of more than {LIMITS.digits:,} digits (limit 'digits')")
    return n


def check_permutations(n: int, k: int | None = None) -> None:
    check_size(perm(n, k), "this list of orderings")


def check_combinations(n: int, k: int) -> None:
    check_size(comb(n, k) if 0 <= k <= n else 0, "this list of choices")


_from_environment()
