"""The exact posterior of what a seat knows, by enumeration of every world (issue 36, item 4).

A *world* is every random number the rules draw (``State.below``: each shuffle's swaps, each draw
from a bag, each `random` step) and every secret choice of another seat.  It is possible for seat
p when every recorded decision is legal in it and replaying it gives p exactly its record
(``knowledge.record_of``); its weight is the product of 1/n over the numbers drawn and 1/k over
the secret choices (uniform among the k options p is told the same of) — the definition in
docs/language.md, written here a second time, independently of ``engine/knowledge/worlds.py``:
no pins, no lookahead, nothing but the definition, every world visited.

:func:`posterior` gives {what p cannot see: probability}; :func:`g_test` compares resample's
frequencies with it.
"""
from __future__ import annotations

import math
from fractions import Fraction

from interpreter.engine.knowledge import record_of
from interpreter.engine.knowledge.record import Mismatch, Recorder
from interpreter.engine.knowledge.properties import hidden_part
from interpreter.engine.run.runtime import run
from interpreter.engine.run.start import fresh_state, with_frames


class _Need(BaseException):
    def __init__(self, n):
        super().__init__(n)
        self.n = n


class _Prefix:
    """``State.chance``: the numbers of a world's prefix, then :class:`_Need`."""

    def __init__(self, answers):
        self.answers, self.i = answers, 0

    def key(self):
        return -1 - self.i

    def __call__(self, n):
        if self.i < len(self.answers):
            v = self.answers[self.i]
            self.i += 1
            return v
        raise _Need(n)


def _replay(st, seat, record, answers, choices):
    """('number', n) or ('choice', n) for what the world must say next (a number in range(n),
    or one of n options), (None, None) when the world is impossible, or ('done', final state)."""
    r = with_frames(fresh_state(st.game, st.lay, st.seed, True))
    r.chance = _Prefix(answers)
    rec = Recorder(seat, expect=record)
    r.rec = rec
    c = 0
    try:
        run(r)
        rec.stop(r)
        for who, action_id in st.history:
            dec = r.pending
            if dec is None or dec.who != who:
                return None, None
            if who != seat and r.told_id(action_id) != action_id:
                told = r.told_id(action_id)
                same = [o.id for o in dec.options if r.told_id(o.id) == told]
                if c >= len(choices):
                    return "choice", len(same)
                action_id = same[choices[c]]
                c += 1
            elif action_id not in dec.by_id:
                return None, None
            rec.decided(r, who, action_id)
            r.apply(action_id)
            rec.stop(r)
    except _Need as need:
        return "number", need.n
    except Mismatch:
        return None, None
    if rec.at != len(record):
        return None, None
    return "done", r


def posterior(st, seat: int, limit: int = 200_000, record=None) -> dict:
    """{``hidden_part`` of a world: its probability (a Fraction)} over every world possible for
    ``seat`` at ``st`` (a game from its seed, no edited start; ``record``: the seat's record when
    it is not the one the seed gives, as in an explicit-chance game)."""
    if record is None:
        record = record_of(st, seat)
    out: dict = {}
    total = Fraction(0)
    stack = [((), (), Fraction(1))]
    seen = 0
    while stack:
        answers, choices, weight = stack.pop()
        seen += 1
        assert seen <= limit, "too many worlds to enumerate"
        kind, x = _replay(st, seat, record, answers, choices)
        if kind is None:
            continue
        if kind == "done":
            key = hidden_part(x, seat)
            out[key] = out.get(key, 0) + weight
            total += weight
            continue
        n = x
        if kind == "choice":
            stack.extend((answers, choices + (k,), weight / n) for k in range(n))
        else:
            stack.extend((answers + (k,), choices, weight / n) for k in range(n))
    return {k: v / total for k, v in out.items()}


class FactBlind(Recorder):
    """A planted fault for the tests: a recorder whose check skips what `tell` told the seat (put in
    place of ``worlds.Recorder``, a resample that forgets told facts)."""

    __slots__ = ()

    def told(self, st, facts):
        pass

    def add(self, event):
        while self.expect is not None and self.at < len(self.expect) and self.expect[self.at][0] == "t":
            self.at += 1
        super().add(event)


def chi2_sf(x: float, k: int) -> float:
    """P(X >= x) for X chi-square with ``k`` degrees of freedom (the regularised upper gamma)."""
    if k <= 0:
        return 1.0
    a, x = k / 2.0, x / 2.0
    if x <= 0:
        return 1.0
    if x < a + 1:           # the series for the lower part
        term = s = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            s += term
            if term < s * 1e-15:
                break
        return max(0.0, 1.0 - s * math.exp(-x + a * math.log(x) - math.lgamma(a)))
    b, c, d = x + 1 - a, 1e300, 1.0 / (x + 1 - a)       # Lentz's continued fraction for the upper part
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def g_test(counts: dict, probs: dict) -> tuple:
    """(G, degrees of freedom) of observed ``counts`` against ``probs``; outcomes expected fewer
    than 5 times are pooled.  A count outside the support gives G = inf."""
    n = sum(counts.values())
    if any(k not in probs for k in counts):
        return math.inf, 1
    bins = []
    small_o = small_e = 0.0
    for k, p in probs.items():
        e = float(p) * n
        o = counts.get(k, 0)
        if e < 5:
            small_o += o
            small_e += e
        else:
            bins.append((o, e))
    if small_e > 0:
        bins.append((small_o, small_e))
    g = 2 * sum(o * math.log(o / e) for o, e in bins if o > 0)
    return g, max(len(bins) - 1, 0)
