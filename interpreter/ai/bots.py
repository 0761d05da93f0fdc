"""Bots that play any rulebook: seeded, so that games replay exactly.

A bot has one method, ``choose(state) -> action id``; a bot that can choose
without ids also has ``choose_index(state) -> i`` (``state.legal_actions()[i]``),
which playouts prefer (``play_out``); one whose choice needs nothing but the
number of legal actions also has ``pick_index(n) -> i``, the same choice (the
same draws of its generator), with which a playout of such bots alone runs
inside the state (``State.play_by_counts``).  Each bot owns its random generator,
separate from the game's, so adding a bot never changes the game's own
random draws.
"""
from __future__ import annotations

from ..game import Rng


class RandomBot:
    """A uniformly random legal action."""

    name = "random"

    def __init__(self, seed: int = 0, seat: int = 0):
        self.rng = Rng(seed, 1000 + seat)
        #: pick_index(n): one of n legal actions, what choose_index picks (the generator itself,
        #: no call in between)
        self.pick_index = self.rng.below

    def choose(self, state) -> str:
        legal = state.legal_actions()
        return legal[self.rng.below(len(legal))]

    def choose_index(self, state) -> int:
        return self.rng.below(len(state.legal_action_indices()))


class FirstBot:
    """Always the first legal action (deterministic; useful in tests)."""

    name = "first"

    def __init__(self, seed: int = 0, seat: int = 0):
        pass

    def choose(self, state) -> str:
        return state.legal_actions()[0]

    def choose_index(self, state) -> int:
        return 0

    @staticmethod
    def pick_index(n: int) -> int:
        return 0


class GreedyBot:
    """One-ply lookahead: the action after which the bot's score lead is largest.

    The lead is the bot's score minus the best other score, as the game would be
    scored if it ended after the action (``State.scores_if_ended``: the rulebook's
    ``scoring:`` steps run on a copy, so a game whose scores are written only at the
    end is judged by them too), turned round when lower scores are better; ties are
    broken at random.
    """

    name = "greedy"

    def __init__(self, seed: int = 0, seat: int = 0):
        self.rng = Rng(seed, 2000 + seat)

    def choose(self, state) -> str:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        me = state.current_player()
        best, best_value = [], None
        for action in legal:
            nxt = state.clone()
            nxt.logging = False
            nxt.apply_action(action)
            scores = nxt.scores_if_ended()
            if nxt.game.score_direction == "lower":
                scores = [-s for s in scores]
            others = [s for p, s in enumerate(scores) if p != me and nxt.game.together is None]
            value = scores[me] - (max(others) if others else 0)      # together: the shared score
            if best_value is None or value > best_value:
                best, best_value = [action], value
            elif value == best_value:
                best.append(action)
        return best[self.rng.below(len(best))]


from .ismcts import IsmctsBot  # noqa: E402 - a bot of its own module, listed here

BOTS = {"random": RandomBot, "first": FirstBot, "greedy": GreedyBot, "ismcts": IsmctsBot}


def split_names(spec: str | None, default: str = "random") -> list:
    """'random,greedy' -> ['random', 'greedy']; an empty name ('random,,greedy') is a ValueError.

    A name may repeat: each is one seat's player (the last one plays every
    seat after it).
    """
    if spec is None:
        return [default]
    names = [n.strip() for n in spec.split(",")]
    if not any(names) or not all(names):
        raise ValueError(f"'{spec}' has an empty name: give one name per seat, separated by commas")
    return names


def make_bots(spec: str | None, seats: int, seed: int) -> list:
    """Bots for ``seats`` seats from 'random,greedy' (the last one repeats);
    'ismcts:200' gives a bot its budget (ISMCTS: at most 200 iterations)."""
    names = split_names(spec)
    for n in names:
        base, _, arg = n.partition(":")
        if base not in BOTS:
            raise ValueError(f"unknown bot '{n}' (bots: {', '.join(BOTS)})")
        if arg and (base != "ismcts" or not _ismcts_arg(arg)):
            raise ValueError(f"'{n}': only ismcts takes a budget, a whole number of iterations (ismcts:200), "
                             f"and 'fallback' (ismcts:fallback, ismcts:200:fallback: play at random when "
                             f"every sample fails)")

    def make(name, i):
        base, _, arg = name.partition(":")
        return BOTS[base](seed, i, arg) if arg else BOTS[base](seed, i)
    return [make(names[min(i, len(names) - 1)], i) for i in range(seats)]


def _ismcts_arg(arg: str) -> bool:
    """'200', 'fallback' or '200:fallback'."""
    parts = arg.split(":")
    if parts[-1] == "fallback":
        parts.pop()
    return len(parts) <= 1 and all(p.isdigit() and int(p) >= 1 for p in parts)


def play_out(state, bots, max_decisions: int = 100_000):
    """Let the bots play ``state`` to its end; return the number of decisions."""
    by_count = [getattr(bot, "pick_index", None) for bot in bots]
    inside = getattr(state, "play_by_counts", None)
    if None not in by_count and inside is not None:     # choices by the number of legal actions alone
        return inside(by_count, max_decisions)
    by_index = [getattr(bot, "choose_index", None) for bot in bots]
    # the state's methods looked up once (a playout asks them at every decision)
    is_terminal, current_player, apply_index = state.is_terminal, state.current_player, state.apply_index
    n = 0
    while not is_terminal():
        if n >= max_decisions:
            raise RuntimeError(f"no end after {max_decisions} decisions")
        who = current_player()
        pick = by_index[who]
        if pick is not None:
            apply_index(pick(state))
        else:
            state.apply_action(bots[who].choose(state))
        n += 1
    return n
