"""The game's random numbers (interpreter/rng.py): SplitMix64's reference values, and
below drawing exactly next_u64's numbers with rejection sampling."""
from interpreter.engine.run import rng


def reference_below(state, n):
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        value, state = rng.next_u64(state)
        if value < limit:
            return value % n, state


def test_splitmix64_known_values():
    # SplitMix64 from state 0: the first outputs of the reference implementation (Vigna)
    state, out = 0, []
    for _ in range(3):
        value, state = rng.next_u64(state)
        out.append(value)
    assert out == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_below_draws_what_next_u64_gives():
    for seed in range(30):
        a = b = rng.seed_state(seed)
        for n in (1, 2, 3, 7, 10, 255, 256, 1000, (1 << 63) + 5):     # 255 | 256: rng._SMALL
            va, a = rng.below(a, n)
            vb, b = reference_below(b, n)
            assert (va, a) == (vb, b) and 0 <= va < n


def test_a_bots_generator_draws_what_below_gives():
    """Rng.below writes the generator out (a random bot's pick at every decision): the same
    numbers and the same next state as below() from the same state, for every kind of n."""
    import pytest
    for seed in range(30):
        bot = rng.Rng(seed, 1000)
        state = bot.state
        for n in (1, 2, 3, 7, 10, 255, 256, 1000, (1 << 63) + 5, 6, 1):
            value, state = rng.below(state, n)
            assert bot.below(n) == value and bot.state == state
    with pytest.raises(ValueError):
        rng.Rng(1).below(0)
