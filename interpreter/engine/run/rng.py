"""The deterministic random number generator held in a game state.

SplitMix64: the whole generator is one 64-bit integer, so a state is cloned
and serialised with it, and the same seed gives the same numbers on every
Python version and platform (unlike :mod:`random`, whose ``shuffle`` and
``randrange`` algorithms are not promised to stay the same).
"""
from __future__ import annotations

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


class Rng:
    """A small mutable wrapper, used where a state is not at hand (bots)."""

    __slots__ = ("state",)

    def __init__(self, seed: int, stream: int = 0):
        self.state = seed_state(seed, stream)

    def below(self, n: int) -> int:
        """``below(state, n)`` written out (a random bot's pick at every decision of a playout:
        one call fewer; tests/test_rng.py checks both draw the same)."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        mask = 0xFFFFFFFFFFFFFFFF
        top = _TOPS[n] if n < _SMALL else mask - (mask % n + 1) % n
        state = self.state
        while True:
            state = (state + 0x9E3779B97F4A7C15) & mask
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & mask
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
            z ^= z >> 31
            if z <= top:
                self.state = state
                return z % n

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def shuffle(self, items: list) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
