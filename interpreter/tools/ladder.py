"""A bot ladder: how strong the bots are at one rulebook (``regelwerk ladder RULEBOOK``).

Every pair of bots (default: ``random``, ``greedy``, ``ismcts:20``, ``ismcts:200`` —
ISMCTS capped at 20 and 200 iterations a decision, and at ``seconds`` each) plays
``games`` seeded games (seeds S, S+1, …), the two bots taking the seats that
decide in turn (automata, which never decide, take no bot: in game k the first
bot plays the 1st, 3rd… of those seats when k is even, the 2nd, 4th… when k is
odd).  A game is won by the bot whose best place is the better one — the bot of
the first place, or, when an automaton came first, the bot that came nearer to
it; the same best place is half a win each, as is a cooperative game
(``end: together:``).  A player count at which fewer than two seats decide
(a solo game against automata) cannot set two bots against each other.

Elo: the Bradley–Terry ratings that fit the pairs' results best (maximum
likelihood, each pair given one draw beforehand so that a pair one bot always wins
still has a finite gap), on the Elo scale (400·log10), ``random`` at 0.  The 95 %
interval of each rating is the 2.5th–97.5th percentile of the ratings refitted
to 400 bootstrap resamples of the games (each pair's games drawn with
replacement; seeded, so the table repeats).
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from ..ai.bots import make_bots, split_names
from ..game import Rulebook

DEFAULT_BOTS = ("random", "greedy", "ismcts:20", "ismcts:200")
#: seconds an ISMCTS bot may think per decision in the ladder (its iteration cap comes first)
SECONDS = 1.0


@dataclass
class Ladder:
    rulebook: str
    players: int
    bots: list
    games: int
    seed: int
    results: dict = field(default_factory=dict)      # (a, b) -> [points of a per game]


_BOOKS: dict = {}


def _book(path) -> Rulebook:
    """The rulebook, loaded once per process (a worker plays many games of it)."""
    if path not in _BOOKS:
        _BOOKS[path] = Rulebook.load(path)
    return _BOOKS[path]


def _bot(spec, seed, seat, seconds):
    bot = make_bots(spec, seat + 1, seed)[seat]
    if hasattr(bot, "seconds"):
        bot.seconds = seconds
    return bot


def deciding_seats(st) -> list:
    """The seats of ``st`` that decide: every seat but the automata."""
    return [s for s in st.lay.seats if s not in st.lay.automata]


def default_players(rb: Rulebook) -> int | None:
    """The fewest players the game allows with at least two seats that decide, or None."""
    for n in range(rb.game.min_players, rb.game.max_players + 1):
        if len(deciding_seats(rb.new_game(n, 1, logging=False))) >= 2:
            return n
    return None


def play_pair_game(task) -> float:
    """One game of bots ``a`` and ``b``: the points of ``a`` (1, ½ or 0)."""
    path, players, a, b, seed, k, seconds = task
    rb = _book(path)
    st = rb.new_game(players, seed, logging=False)
    deciding = deciding_seats(st)
    if len(deciding) < 2:
        raise ValueError(f"{players} player(s): {len(deciding)} seat(s) decide; a ladder game needs two")
    of = {s: (a if (i + k) % 2 == 0 else b) for i, s in enumerate(deciding)}
    bots = {s: _bot(of[s], seed, s, seconds) for s in deciding}
    bound = st.lay.decision_bound
    n = 0
    while not st.is_terminal():
        if n >= bound:                       # truncated: nobody won
            return 0.5
        who = st.current_player()
        bot = bots[who]
        pick = getattr(bot, "choose_index", None)
        if pick is not None:
            st.apply_index(pick(st))
        else:
            st.apply(bot.choose(st))
        n += 1
    if st.won_together() is not None:
        return 0.5
    places = st.ranking()                    # 1 = first; an automaton's seat counts for neither bot
    best_a = min(places[s] for s in deciding if of[s] == a)
    best_b = min(places[s] for s in deciding if of[s] == b)
    return 1.0 if best_a < best_b else 0.0 if best_a > best_b else 0.5


def fit_elo(bots, results) -> dict:
    """Bradley–Terry by minorise–maximise (Hunter 2004), one prior draw per pair; Elo, bots[0] at 0."""
    idx = {b: i for i, b in enumerate(bots)}
    n = len(bots)
    wins = [[0.0] * n for _ in range(n)]
    for (a, b), pts in results.items():
        i, j = idx[a], idx[b]
        wins[i][j] += sum(pts) + 0.5
        wins[j][i] += len(pts) - sum(pts) + 0.5
    games = [[wins[i][j] + wins[j][i] for j in range(n)] for i in range(n)]
    p = [1.0] * n
    for _ in range(500):
        new = []
        for i in range(n):
            w = sum(wins[i])
            d = sum(games[i][j] / (p[i] + p[j]) for j in range(n) if j != i and games[i][j])
            new.append(w / d if d else p[i])
        g = math.exp(sum(math.log(x) for x in new) / n)
        new = [x / g for x in new]
        done = max(abs(x - y) for x, y in zip(new, p)) < 1e-10
        p = new
        if done:
            break
    base = p[0]
    return {b: 400 * math.log10(p[idx[b]] / base) for b in bots}


def elo_table(ladder: Ladder, resamples: int = 400) -> list:
    """Per bot: its Elo, the 95 % bootstrap interval, and its points and games."""
    bots = ladder.bots
    point = fit_elo(bots, ladder.results)
    rng = random.Random(ladder.seed)
    draws = {b: [] for b in bots}
    for _ in range(resamples):
        sample = {pair: [rng.choice(pts) for _ in pts] for pair, pts in ladder.results.items() if pts}
        for b, e in fit_elo(bots, sample).items():
            draws[b].append(e)
    rows = []
    for b in bots:
        got = sorted(draws[b])
        lo, hi = got[int(0.025 * (len(got) - 1))], got[int(math.ceil(0.975 * (len(got) - 1)))]
        pts = sum(sum(v) if a == b else len(v) - sum(v) for (a, c), v in ladder.results.items() if b in (a, c))
        games = sum(len(v) for (a, c), v in ladder.results.items() if b in (a, c))
        rows.append({"bot": b, "elo": point[b], "ci95": [lo, hi], "points": pts, "games": games})
    return rows


def run_ladder(path, players: int, bots=DEFAULT_BOTS, games: int = 10, seed: int = 1, seconds: float = SECONDS,
               backend=None, done=None) -> Ladder:
    """Play every pair's games on ``backend`` (default: this process); ``done(1)`` after each game."""
    from .backends import LocalBackend
    bots = list(bots)
    make_bots(",".join(bots), len(bots), 0)            # an unknown bot: a ValueError now
    ladder = Ladder(str(path), players, bots, games, seed)
    tasks, keys = [], []
    for i, a in enumerate(bots):
        for b in bots[i + 1:]:
            ladder.results[(a, b)] = []
            for k in range(games):
                tasks.append((str(path), players, a, b, seed + k, k, seconds))
                keys.append((a, b))
    got = {}
    for d in (backend or LocalBackend(1)).run(play_pair_game, tasks):
        if d.error is not None:
            raise RuntimeError(f"a ladder game failed ({tasks[d.index][2]} vs {tasks[d.index][3]}, seed "
                               f"{tasks[d.index][4]}): {d.error}")
        got[d.index] = d.value
        if done:
            done(1)
    for i in sorted(got):
        ladder.results[keys[i]].append(got[i])
    return ladder


def parse_bots(spec: str | None) -> list:
    return list(DEFAULT_BOTS) if spec is None else split_names(spec)
