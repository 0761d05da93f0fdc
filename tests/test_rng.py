"""The game's random numbers (interpreter/rng.py): SplitMix64's reference values, and
below drawing exactly next_u64's numbers with rejection sampling — also where the numbers
are worked out a block at a time (ahead, draw, Rng)."""
import copy
import pickle

import pytest

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
    for seed in range(30):
        bot = rng.Rng(seed, 1000)
        state = bot.state
        for n in (1, 2, 3, 7, 10, 255, 256, 1000, (1 << 63) + 5, 6, 1):
            value, state = rng.below(state, n)
            assert bot.below(n) == value and bot.state == state
    with pytest.raises(ValueError):
        rng.Rng(1).below(0)


# states near the wrap-around of the 64-bit counter (GOLDEN is ~0.62 * 2**64: most blocks wrap),
# zero, and ordinary seeds' states
STATES = [0, 1, rng.MASK, rng.MASK - rng.GOLDEN, rng.MASK - 3, (1 << 63) - 1,
          *(rng.seed_state(seed) for seed in range(20))]


@pytest.mark.parametrize("state", STATES)
def test_a_block_holds_next_u64s_numbers_and_states(state):
    """ahead works out BLOCK numbers at once in 128-bit lanes of one integer: each lane as
    next_u64 gives it, one after the other, the counter wrapping at 2**64 inside the block."""
    numbers, states = rng.ahead(state)
    assert len(numbers) == len(states) == rng.BLOCK
    s = state
    for z, after in zip(numbers, states):
        value, s = rng.next_u64(s)
        assert (z, after) == (value, s)


def test_draw_gives_below_s_numbers_across_blocks_and_rejections():
    """draw(ahead, state, n) is below(state, n): from one Ahead over several blocks, for every
    kind of n (a large n rejects about half its numbers, so a draw may cross a block's end)."""
    for seed in range(10):
        a, s = rng.Ahead(), rng.seed_state(seed)
        t = s
        for k in range(3 * rng.BLOCK):
            n = (1, 2, 3, 7, 255, 256, 1000, (1 << 63) + 5)[k % 8]
            x, s = rng.below(s, n)
            y, t = rng.draw(a, t, n)
            assert (x, s) == (y, t)


def test_draw_from_a_state_the_block_did_not_hand_out():
    """The block is used only for the very state it handed out last: an equal number made
    elsewhere, an earlier state, or another generator's state starts a new block — the
    numbers stay below()'s in every case."""
    a = rng.Ahead()
    s0 = rng.seed_state(4)
    _, s1 = rng.draw(a, s0, 10)
    _, s2 = rng.draw(a, s1, 10)
    for state in (s0, s1, int(str(s2)), rng.seed_state(99), s2):
        assert rng.draw(a, state, 6) == rng.below(state, 6)


def test_a_copy_draws_the_same_numbers_without_moving_the_original():
    """State.clone copies its Ahead: the copy goes on from the same place, and the original
    draws what it would have drawn, whichever draws first."""
    a = rng.Ahead()
    s = rng.seed_state(8)
    for _ in range(5):
        _, s = rng.draw(a, s, 3)
    b = a.copy()
    t = s
    mine = [rng.draw(b, t, 100)[0] for _ in range(1)]
    expected, _ = rng.below(s, 100)
    assert mine == [expected] and rng.draw(a, s, 100) == rng.below(s, 100)


def test_a_bots_generator_set_from_outside_copied_and_pickled():
    """Rng keeps its block for its own state only: a state set from outside draws from there;
    a copy and a pickled generator go on with the same numbers."""
    bot = rng.Rng(3, 1000)
    bot.below(7)
    bot.state = rng.seed_state(11)
    assert bot.below(50) == rng.below(rng.seed_state(11), 50)[0]
    bot.below(9)
    for other in (copy.copy(bot), copy.deepcopy(bot), pickle.loads(pickle.dumps(bot))):
        state = bot.state
        for n in (5, 1 << 63, 12):
            value, state = rng.below(state, n)
            assert other.below(n) == value and other.state == state


def test_a_bots_generator_pickled_before_the_blocks_goes_on_with_the_same_numbers():
    """A pickle of Rng made by main c428a95 (its slots' state: (None, {"state": …})), after
    ``Rng(3, 1000).below(7)``: it loads and draws what that generator would draw next."""
    old = (b"\x80\x02cinterpreter.engine.run.rng\nRng\nq\x00)\x81q\x01N}q\x02X\x05\x00\x00\x00stateq\x03"
           b"\x8a\tXN\xaf\xfd5C\x88\xdf\x00s\x86q\x04b.")
    bot = pickle.loads(old)
    again = rng.Rng(3, 1000)
    again.below(7)
    assert bot.state == again.state
    assert [bot.below(n) for n in (9, 1 << 63, 4)] == [again.below(n) for n in (9, 1 << 63, 4)]


def test_a_game_state_draws_the_same_after_clone_and_pickle():
    """A game's generator through State: a clone and a pickled state draw the numbers the
    original draws (the block goes along with the clone, not with the pickle), and the
    original, drawing after its clone, draws them too."""
    from pathlib import Path

    from interpreter.game import Rulebook
    book = Rulebook.load(Path(__file__).parent.parent / "rules" / "moonlight_market")
    st = book.new_game(3, 5, logging=False)
    st.below(1000)
    sizes = (6, 1 << 62, 2, 1000)
    expected, state = [], st.rng
    for n in sizes:
        value, state = rng.below(state, n)
        expected.append(value)
    for other in (st.clone(), pickle.loads(pickle.dumps(st)), st):
        assert [other.below(n) for n in sizes] == expected
