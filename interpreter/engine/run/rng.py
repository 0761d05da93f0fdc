"""The deterministic random number generator held in a game state.

SplitMix64: the whole generator is one 64-bit integer, so a state is cloned
and serialised with it, and the same seed gives the same numbers on every
Python version and platform (unlike :mod:`random`, whose ``shuffle`` and
``randrange`` algorithms are not promised to stay the same).
"""
from __future__ import annotations

import struct

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def seed_state(seed: int, stream: int = 0) -> int:
    """An initial generator state for ``seed`` (``stream`` separates uses)."""
    x = (int(seed) * 0xD1B54A32D192ED03 + stream * GOLDEN + 0x2545F4914F6CDD1D) & MASK
    _, x = next_u64(x)
    return x


def next_u64(state: int) -> tuple[int, int]:
    """Return (random 64-bit value, new state)."""
    state = (state + GOLDEN) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31), state


#: ``top`` of ``below`` for the small ``n`` (most draws and picks): three operations on
#: 64-bit numbers fewer per number drawn
_SMALL = 256
_TOPS = (0, *(MASK - (MASK % m + 1) % m for m in range(1, _SMALL)))


def below(state: int, n: int) -> tuple[int, int]:
    """A uniform integer in ``range(n)`` (rejection sampling, no bias): (value, new state).
    ``next_u64`` written out (the hottest random path: every draw and every bot's pick;
    tests/test_rng.py checks it draws exactly what next_u64 gives).  The native build gives
    the locals 64-bit unsigned C types (rng.pxd), whose wrap-around is what ``& mask`` does."""
    if n <= 0:
        raise ValueError("below() needs n > 0")
    m = n
    mask, golden, mix1, mix2 = 0xFFFFFFFFFFFFFFFF, 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
    if m < _SMALL:
        top = _TOPS[m]                  # as below, made once
    else:
        top = mask - (mask % m + 1) % m     # the largest value kept: 2**64 - 1 - 2**64 % m
    while True:
        state = (state + golden) & mask
        z = ((state ^ (state >> 30)) * mix1) & mask
        z = ((z ^ (z >> 27)) * mix2) & mask
        z ^= z >> 31
        if z <= top:
            return z % m, state


#: numbers worked out at a time by ``ahead``: SplitMix64's n-th number depends on its counter
#: alone (the state plus n times GOLDEN), so a block of them is a few operations on one long
#: integer holding every counter in a 128-bit lane of its own, instead of a dozen operations
#: on 64-bit integers per number (~6,300 machine instructions a number in CPython 3.11)
BLOCK = 24
_LANE = 128
_ONES = sum(1 << (_LANE * k) for k in range(BLOCK))
_RAMP = sum((k + 1) * GOLDEN << (_LANE * k) for k in range(BLOCK))
_LOW = MASK * _ONES                             # the low 64 bits of every lane
_BYTES = BLOCK * _LANE // 8


def ahead(state: int) -> tuple[tuple, tuple]:
    """The next ``BLOCK`` numbers of the generator at ``state`` (``next_u64``'s values) and
    the state after each: lane k holds the counter ``state + (k + 1) * GOLDEN``; a product of
    two 64-bit numbers fits its 128-bit lane, and every shift's bits from the lane above are
    cleared (``& _LOW``) before the next product.  tests/test_rng.py checks it against
    ``next_u64``."""
    low = _LOW
    s = (state * _ONES + _RAMP) & low
    z = ((s ^ (s >> 30)) & low) * 0xBF58476D1CE4E5B9 & low
    z = ((z ^ (z >> 27)) & low) * 0x94D049BB133111EB & low
    z = (z ^ (z >> 31)) & low
    return _lanes(z.to_bytes(_BYTES, "little")), _lanes(s.to_bytes(_BYTES, "little"))


_lanes = struct.Struct("<" + "Q8x" * BLOCK).unpack     # each lane's low half (the high one is 0)


#: whether this module runs compiled (the native build: rng.pxd)
_COMPILED = type(below).__name__ != "function"


class Ahead:
    """A generator's next numbers, worked out ``BLOCK`` at a time (``ahead``): ``zs[i]`` is the
    number drawn from the state ``at`` and ``ss[i]`` the state after it.  Whoever holds one
    draws with ``draw``, which uses it only for the state that *is* ``at`` (the same object:
    the state it handed out last) and else works out a new block: whoever else holds it (a
    copy, a state that shares it, a generator set from outside) never draws a wrong number."""

    __slots__ = ("at", "i", "zs", "ss")

    def __init__(self):
        self.at = None

    def copy(self) -> "Ahead":
        """The same numbers for a clone, which draws without moving this one's place."""
        a = Ahead.__new__(Ahead)
        a.at = self.at
        if self.at is not None:
            a.i, a.zs, a.ss = self.i, self.zs, self.ss
        return a


def draw(a: Ahead, state: int, n: int) -> tuple[int, int]:
    """``below(state, n)``, from the numbers ``a`` has worked out when it has them (compiled by
    the native build, ``below`` itself: one number in 64-bit C arithmetic costs less there)."""
    if _COMPILED:
        return below(state, n)
    if n <= 0:
        raise ValueError("below() needs n > 0")
    top = _TOPS[n] if n < _SMALL else MASK - (MASK % n + 1) % n
    if state is a.at:
        i, zs, ss = a.i, a.zs, a.ss
    else:
        i = BLOCK
    while True:
        if i == BLOCK:
            zs, ss = a.zs, a.ss = ahead(state)
            i = 0
        z = zs[i]
        state = ss[i]
        i += 1
        if z <= top:
            a.i = i
            a.at = state
            return z % n, state


class Rng:
    """A small mutable wrapper, used where a state is not at hand (bots)."""

    __slots__ = ("state", "_at", "_i", "_zs", "_ss")

    def __init__(self, seed: int, stream: int = 0):
        self.state = seed_state(seed, stream)
        self._at = None

    def below(self, n: int) -> int:
        """``below(self.state, n)``, from numbers worked out ``BLOCK`` at a time (``draw``
        written out: a random bot's pick at every decision of a playout); tests/test_rng.py
        checks both draw the same, also after ``state`` was set from outside.  Compiled by the
        native build: ``below``, as ``draw``."""
        if _COMPILED:
            value, self.state = below(self.state, n)
            return value
        if n <= 0:
            raise ValueError("below() needs n > 0")
        top = _TOPS[n] if n < _SMALL else MASK - (MASK % n + 1) % n
        state = self.state
        if state is self._at:
            i, zs, ss = self._i, self._zs, self._ss
        else:
            i = BLOCK
        while True:
            if i == BLOCK:
                zs, ss = self._zs, self._ss = ahead(state)
                i = 0
            z = zs[i]
            state = ss[i]
            i += 1
            if z <= top:
                self._i = i
                self.state = self._at = state
                return z % n

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def shuffle(self, items: list) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def __getstate__(self):
        return self.state

    def __setstate__(self, state):
        if isinstance(state, tuple):    # pickled before the blocks: (None, {"state": …}) of its slots
            state = state[1]["state"]
        self.state = state
        self._at = None
