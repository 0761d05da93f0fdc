"""Azul: Summer Pavilion written by hand in plain Python: no rulebook, no engine.

The yardstick for the engine's random playouts (``benchmarks/vs_baseline.py``):
the same rules as ``rules/azul_summer_pavilion`` (the German short rules and
/work/shared/rulebooks/NOTES.md, as that rulebook encodes them), the same
random numbers and the same random policy as ``regelwerk bench``, so that a
seed plays the very same game here and in the engine (tests/test_baseline_azul.py
compares the legal actions of every decision and the final scores).

What "the same" takes, and nothing more:

- the game's generator: SplitMix64 seeded as ``interpreter/engine/run/rng.py``
  (``seed_state(seed)``), one uniform ``below(n)`` per tile drawn from the bag
  (the tile at that index of the bag's order);
- every zone a list of tile colours in the order the engine keeps (a moved tile
  goes to the end; a taken tile is the first of its colour);
- the legal actions of a decision in the rulebook's order (action by action,
  each parameter's values in the order its domain lists them), since the
  random bot picks an index: seat ``s`` draws ``below(len(legal))`` from its
  own generator, seeded ``(game seed, 1000 + s)`` (``RandomBot``).

An action is a tuple, ``action_id`` writes the rulebook's id for it.
Run as a script it plays seeded random games and prints games per second.
"""
from __future__ import annotations

import sys
import time

# --- the random numbers (SplitMix64, as interpreter/engine/run/rng.py) -----------------------
MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def seed_state(seed: int, stream: int = 0) -> int:
    x = (seed * 0xD1B54A32D192ED03 + stream * GOLDEN + 0x2545F4914F6CDD1D) & MASK
    return (x + GOLDEN) & MASK          # next_u64's new state; its value is not used


def below(state: int, n: int) -> tuple[int, int]:
    """A uniform number in range(n) (rejection sampling) and the generator's new state."""
    top = MASK - (MASK % n + 1) % n
    while True:
        state = (state + GOLDEN) & MASK
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z ^= z >> 31
        if z <= top:
            return z % n, state


class RandomPlayer:
    """The random bot of a seat: a uniformly random legal action, from its own generator."""

    __slots__ = ("rng",)

    def __init__(self, seed: int, seat: int):
        self.rng = seed_state(seed, 1000 + seat)

    def choose(self, legal: list) -> int:
        i, self.rng = below(self.rng, len(legal))
        return i


# --- the components ---------------------------------------------------------------------
COLORS = ["purple", "green", "orange", "yellow", "blue", "red"]
PURPLE, GREEN, ORANGE, YELLOW, BLUE, RED = range(6)
START = 6                                   # the start-player tile
ROUNDS = 6
JOKER_BY_ROUND = [PURPLE, GREEN, ORANGE, YELLOW, BLUE, RED]
FACTORIES = {2: 5, 3: 7, 4: 9}
TILES_PER_FACTORY = 4
SUPPLY_SIZE = 10
KEEP_LIMIT = 4
STAR_COLOR = [None, PURPLE, ORANGE, RED, BLUE, YELLOW, GREEN]      # star 0: any colour
COMPLETE_STAR = [12, 20, 17, 14, 15, 16, 18]
NUMBER_BONUS = {1: 4, 2: 8, 3: 12, 4: 15}


def _structures():
    """(spaces, bonus tiles) of every structure, windows, statues, pillars, each for star 1-6."""
    out = [([(s, 5), (s, 6)], 3) for s in range(1, 7)]
    out += [([(s, 1), (s, 2), (s % 6 + 1, 3), (s % 6 + 1, 4)], 2) for s in range(1, 7)]
    out += [([(s, 2), (s, 3), (0, (s + 3) % 6 + 1), (0, (s + 4) % 6 + 1)], 1) for s in range(1, 7)]
    return out


STRUCTURES = _structures()
#: the structures a space is part of, in the order above
STRUCTURES_AT = {(s, k): [b for b in STRUCTURES if (s, k) in b[0]] for s in range(7) for k in range(1, 7)}


def distinct(colors) -> list:
    """The colours in order of first appearance."""
    seen = []
    for c in colors:
        if c not in seen:
            seen.append(c)
    return seen


def action_id(action: tuple) -> str:
    """The rulebook's id of an action tuple."""
    name = action[0]
    if name == "take_factory":
        return f"take_factory(factory_no={action[1]},color={COLORS[action[2]]})"
    if name == "place":
        return f"place(star={action[1]},space={action[2]},color={COLORS[action[3]]},jokers={action[4]})"
    if name in ("take_centre", "discard", "bonus_tile"):
        return f"{name}(color={COLORS[action[1]]})"
    return name                             # pass, keep


class Game:
    """One game: the zones as lists of colours, the scores, and the decisions' course."""

    def __init__(self, num_players: int, seed: int, players=None, watch=None):
        self.n = num_players
        self.rng = seed_state(seed)
        self.players = players or [RandomPlayer(seed, s) for s in range(num_players)]
        self.watch = watch                  # called with (seat, legal actions) before every decision
        self.bag = [c for c in range(6) for _ in range(22)]
        self.tower = []
        self.supply = []
        self.factories = [[] for _ in range(FACTORIES[num_players] + 1)]   # factory 0 unused
        self.centre = [START]
        self.hands = [[] for _ in range(num_players)]
        self.marker = [False] * num_players
        # board[p][s][k]: the colour on space k (1-6) of star s (0-6), or None
        self.board = [[[None] * 7 for _ in range(7)] for _ in range(num_players)]
        self.score = [5] * num_players
        self.passed = [False] * num_players
        self.kept = [False] * num_players
        self.joker = PURPLE
        self.start_player = 0
        self.round = 0
        self.decisions = 0

    # --- helpers -------------------------------------------------------------------------
    def decide(self, seat: int, legal: list) -> tuple:
        if self.watch is not None:
            self.watch(seat, legal)
        self.decisions += 1
        return legal[self.players[seat].choose(legal)]

    def add_score(self, p: int, points: int) -> None:
        self.score[p] = max(1, self.score[p] + points)      # a score never drops below 1

    def draw(self, n: int, dst: list) -> None:
        """n tiles at random from the bag; an empty bag is refilled from the tower once."""
        bag = self.bag
        refilled = False
        for _ in range(n):
            if not bag and not refilled and self.tower:
                refilled = True
                bag.extend(self.tower)
                self.tower.clear()
            if not bag:
                return
            i, self.rng = below(self.rng, len(bag))
            dst.append(bag.pop(i))

    def refill_supply(self) -> None:
        self.draw(SUPPLY_SIZE - len(self.supply), self.supply)

    # --- the course of the game ------------------------------------------------------------
    def play(self) -> list:
        """Play to the end; return the scores."""
        self.refill_supply()
        for rnd in range(1, ROUNDS + 1):
            self.round = rnd
            self.joker = JOKER_BY_ROUND[rnd - 1]
            self.prepare_round()
            p = self.start_player
            while not self.all_taken():
                self.take_turn(p)
                p = (p + 1) % self.n
            for q in range(self.n):
                if self.marker[q]:
                    self.start_player = q
            p = self.start_player
            skipped = 0
            while not all(self.passed):
                if self.passed[p]:
                    skipped += 1
                    p = (p + 1) % self.n
                    if skipped >= self.n:
                        break
                    continue
                skipped = 0
                self.place_turn(p)
                p = (p + 1) % self.n
        return self.final_scores()

    def prepare_round(self) -> None:
        for p in range(self.n):
            self.passed[p] = False
            self.kept[p] = False
            if self.marker[p]:
                self.start_player = p
                self.marker[p] = False
                self.centre.append(START)
        for f in range(1, len(self.factories)):
            self.draw(TILES_PER_FACTORY, self.factories[f])
        self.refill_supply()

    def all_taken(self) -> bool:
        return not any(self.factories) and all(t == START for t in self.centre)

    # --- phase 1: take tiles -----------------------------------------------------------------
    def takeable(self, zone: list) -> list:
        joker = self.joker
        colors = distinct(t for t in zone if t != START and t != joker)
        return colors or distinct(t for t in zone if t != START)

    def take_turn(self, p: int) -> None:
        legal = [("take_factory", f, c) for f in range(1, len(self.factories)) if self.factories[f]
                 for c in self.takeable(self.factories[f])]
        legal += [("take_centre", c) for c in self.takeable(self.centre)]
        action = self.decide(p, legal)
        if action[0] == "take_factory":
            factory = self.factories[action[1]]
            self.take_tiles(p, factory, action[2])
            self.centre.extend(factory)
            factory.clear()
        else:
            c = action[1]
            centre = self.centre
            n = 1 if c == self.joker else centre.count(c) + min(1, centre.count(self.joker))
            self.take_tiles(p, centre, c)
            if START in centre:
                centre.remove(START)
                self.marker[p] = True
                self.add_score(p, -(n + 1))

    def take_tiles(self, p: int, source: list, c: int) -> None:
        """All tiles of colour c from source (only one if c is the joker), plus one joker."""
        hand = self.hands[p]
        joker = self.joker
        if c == joker:
            source.remove(joker)
            hand.append(joker)
            return
        taken = source.count(c)
        source[:] = [t for t in source if t != c]
        hand.extend([c] * taken)
        if joker in source:
            source.remove(joker)
            hand.append(joker)

    # --- phase 2: place tiles ---------------------------------------------------------------
    def joker_options(self, held: list, c: int, k: int) -> range:
        """How many jokers may pay for a tile of colour c on a space numbered k."""
        joker = self.joker
        if c == joker:
            return range(1) if held[c] >= k else range(0)
        return range(max(0, k - held[c]), min(k - 1, held[joker]) + 1)

    def place_options(self, p: int) -> list:
        hand = self.hands[p]
        held = [hand.count(c) for c in range(6)]
        board = self.board[p]
        centre_colors = [c for c in board[0] if c is not None]
        legal = []
        for star in range(7):
            if star and not held[STAR_COLOR[star]]:
                continue
            spaces = board[star]
            colors = [c for c in range(6) if c not in centre_colors] if star == 0 else [STAR_COLOR[star]]
            for space in range(1, 7):
                if spaces[space] is not None:
                    continue
                for c in colors:
                    if held[c]:
                        for j in self.joker_options(held, c, space):
                            legal.append(("place", star, space, c, j))
        legal.append(("pass",))
        return legal

    def place_turn(self, p: int) -> None:
        action = self.decide(p, self.place_options(p))
        if action[0] == "pass":
            self.pass_turn(p)
        else:
            self.place(p, *action[1:])

    def place(self, p: int, star: int, space: int, c: int, jokers: int) -> None:
        hand = self.hands[p]
        hand.remove(c)
        self.board[p][star][space] = c
        for _ in range(space - 1 - jokers):
            hand.remove(c)
            self.tower.append(c)
        for _ in range(jokers):
            hand.remove(self.joker)
            self.tower.append(self.joker)
        ring = self.board[p][star]
        points = 1
        k = space % 6 + 1                   # clockwise
        while k != space and ring[k] is not None:
            points += 1
            k = k % 6 + 1
        if k != space:                      # not the whole ring: counter-clockwise too
            k = (space + 4) % 6 + 1
            while ring[k] is not None:
                points += 1
                k = (k + 4) % 6 + 1
        self.add_score(p, points)
        self.structure_bonuses(p, star, space)

    def structure_bonuses(self, p: int, star: int, space: int) -> None:
        board = self.board[p]
        for spaces, tiles in STRUCTURES_AT[(star, space)]:
            if all(board[s][k] is not None for s, k in spaces):
                for _ in range(tiles):
                    colors = distinct(self.supply)
                    if colors:
                        _, c = self.decide(p, [("bonus_tile", c) for c in colors])
                        self.supply.remove(c)
                        self.hands[p].append(c)
                self.refill_supply()

    def pass_turn(self, p: int) -> None:
        self.passed[p] = True
        if self.round == ROUNDS:
            return
        hand = self.hands[p]
        while hand and not self.kept[p]:
            legal = [("discard", c) for c in distinct(hand)]
            if len(hand) <= KEEP_LIMIT:
                legal.append(("keep",))
            action = self.decide(p, legal)
            if action[0] == "keep":
                self.kept[p] = True
            else:
                hand.remove(action[1])
                self.tower.append(action[1])
                self.add_score(p, -1)

    # --- the end -----------------------------------------------------------------------------
    def final_scores(self) -> list:
        for p in range(self.n):
            board = self.board[p]
            for s in range(7):
                if all(c is not None for c in board[s][1:]):
                    self.add_score(p, COMPLETE_STAR[s])
            for n in range(1, 5):
                if all(board[s][n] is not None for s in range(7)):
                    self.add_score(p, NUMBER_BONUS[n])
            self.add_score(p, -len(self.hands[p]))
        return list(self.score)


def play_random(num_players: int, seed: int) -> list:
    """One seeded random game, as ``regelwerk bench`` plays it; its scores."""
    return Game(num_players, seed).play()


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    players = int(argv[0]) if argv else 4
    games = int(argv[1]) if len(argv) > 1 else 200
    play_random(players, games)             # unmeasured, as in `regelwerk bench`
    t = time.process_time()
    for seed in range(games):
        play_random(players, seed)
    print(games / (time.process_time() - t))
    return 0


if __name__ == "__main__":
    sys.exit(main())
