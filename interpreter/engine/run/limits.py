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
``depth``       100        how deep a value kept in a variable or passed to a
                           procedure may nest (``x = [x]`` in a loop)
``players``     100        the largest ``players: max`` of a rulebook
``work``        2*10^7     the elements built (lists, ranges, joins, searches)
                           and walked between two decisions
``memory``      2,048      the MB the process may grow to (resident) while the
                           rules build values; looked at each time 65,536 more
                           elements were built (in values of any size), so the
                           check costs nothing per step
``file_bytes``  1,000,000  one rulebook or scenario file (read before it is parsed)
``expr_chars``  20,000     one expression, before it is parsed
``log_bytes``   2*10^7     one game log (``replay``, ``play --resume``)
``resample_``   1,000      the worlds ``State.resample`` tries for one sample before
``tries``                  it reports that none fits what the seat knows (RW921)
``resample_``   200,000    the decisions ``State.resample`` replays for one sample, over
``work``                   all its tries, before it reports RW921
==============  =========  =====================================================

``regelwerk serve`` (docs/serve.md) is bounded too: ``serve_tables`` (500) unfinished
tables at once, ``serve_streams`` (200) live-update connections held open at once,
``serve_body`` (65,536) bytes in one request body, ``serve_connections`` (400)
connections of any kind at once, ``serve_request_seconds`` (10) for a whole request
to arrive, ``serve_finished_kept`` (32) finished tables in memory, ``serve_idle_hours``
(48) before an untouched table is closed, ``serve_bot_seconds`` (600) of bot thinking
per table.

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
    serve_tables: int = 500
    serve_streams: int = 200
    serve_body: int = 65_536
    serve_connections: int = 400
    serve_request_seconds: int = 10     # a whole request (line, headers, body) must arrive in this time
    serve_finished_kept: int = 32       # finished or closed tables kept in memory (the others stay in SQLite)
    serve_idle_hours: int = 48          # an unfinished table nobody touched this long is closed
    serve_bot_seconds: int = 600        # bot thinking per table in one run; past it, bots take the first action
    depth: int = 100
    players: int = 100
    work: int = 20_000_000
    memory: int = 2_048
    file_bytes: int = 1_000_000
    expr_chars: int = 20_000
    log_bytes: int = 20_000_000
    resample_tries: int = 1_000     # worlds State.resample tries before it gives up (issue 26)
    resample_work: int = 200_000    # decisions State.resample replays, over all its tries, before it gives up (issue 36)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if name == "digits":            # the bound check_number compares with, kept beside digits
            object.__setattr__(self, "bits", int(value * 3.33) + 1)
        if name in ("file_bytes", "expr_chars"):   # read by the front end (dsl), which cannot import this
            from dsl.yamlload import BOUNDS
            BOUNDS[name] = value


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
    NEXT[0] = min(NEXT[0], LIMITS.work)
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


#: the elements built since the rules last started to run (runtime.run resets it): limit 'work'
WORK = [0]
#: the process's memory is looked at (limit 'memory') each time this many more elements were
#: built, in values of every size (many small lists fill the memory as one big one does)
BIG = 1 << 16
#: the count of WORK past which check_size looks further: the next look at the memory, or the
#: limit 'work' when that comes first.  runtime.run, which sets WORK to 0, takes WORK from it,
#: so the elements built count towards the next look across decisions.
NEXT = [BIG]


def check_size(n: int, what: str) -> None:
    if n > LIMITS.elements:
        raise LimitError(f"{what} would hold {n:,} elements; at most {LIMITS.elements:,} are allowed "
                         f"(limit 'elements')")
    WORK[0] += n                        # count_work, inlined: this runs for every join and range
    if WORK[0] > NEXT[0]:               # one comparison, as for the limit 'work' alone
        _look()


def _look() -> None:
    """WORK passed NEXT: the limit 'work' (RW910), else the memory, and the next look."""
    if WORK[0] > LIMITS.work:
        WORK[0] = 0
        NEXT[0] = min(BIG, LIMITS.work)
        raise LimitError(f"the rules built or walked more than {LIMITS.work:,} elements without reaching a "
                         f"decision (limit 'work')")
    NEXT[0] = min(WORK[0] + BIG, LIMITS.work)
    check_memory()


def kept(value):
    """``value`` (a list a variable is about to keep; none passes), its elements counted as
    built: many small values kept add up to a look at the memory as one big one does."""
    if type(value) is tuple:
        WORK[0] += len(value)
        if WORK[0] > NEXT[0]:
            _look()
    return value


def count_work(n: int) -> None:
    """Count ``n`` element operations against the limit 'work' (reset when the rules start to run)."""
    WORK[0] += n
    if WORK[0] > NEXT[0]:
        _look()


def resident_mb() -> float:
    """The memory the process holds now (resident set), in MB; its peak where /proc is missing."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE / 1048576
    except (OSError, ValueError, IndexError):
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / (1048576 if os.uname().sysname == "Darwin" else 1024)


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def check_memory() -> None:
    """Refuse to build more once the process holds more than the limit 'memory'."""
    mb = resident_mb()
    if mb > LIMITS.memory:
        raise LimitError(f"the game holds {mb:,.0f} MB; at most {LIMITS.memory:,} MB are allowed (limit 'memory')")


def check_number(n: int) -> int:
    if n.bit_length() > LIMITS.bits:
        raise LimitError(f"a number of more than {LIMITS.digits:,} digits (limit 'digits')")
    return n


def power(base: int, exponent: int) -> int:
    """``base ** exponent`` of whole numbers: a negative exponent is refused (it is not a whole
    number), and a result past the limit 'digits' before it is computed."""
    if exponent < 0:
        raise ValueError(f"'**' needs a power of at least 0, not {exponent} (the result would not be a "
                         f"whole number)")
    if abs(base) > 1 and exponent * (abs(base).bit_length() - 1) > LIMITS.bits:
        raise LimitError(f"a number of more than {LIMITS.digits:,} digits (limit 'digits')")
    return check_number(base ** exponent)


def check_permutations(n: int, k: int | None = None) -> None:
    check_size(perm(n, k), "this list of orderings")


def check_combinations(n: int, k: int) -> None:
    check_size(comb(n, k) if 0 <= k <= n else 0, "this list of choices")


_from_environment()
