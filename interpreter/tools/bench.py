"""``regelwerk bench``: random playouts per second, one line per player count.

Each player count is measured on its own: ``--games`` seeded random games
(seeds ``--seed`` .. ``--seed + games - 1``), repeated ``--repeat`` times;
the median run is reported as games/s and decisions/s, with the backend
that ran (``native`` when the optional native build's compiled modules were
imported, see interpreter/native.py; else ``pure Python``).
``--json`` prints one object per player count instead of text lines.
One unmeasured game comes first for each player count: the engine generates
some code where play first gets (interpreter/flowcode.py), once per process,
and the figure is of playing, not of that.
"""
from __future__ import annotations

import json
import statistics
import time
from dataclasses import asdict, dataclass

from ..ai.bots import make_bots, play_out


def backend() -> str:
    """Which engine ran: ``native`` when the compiled modules were imported, else ``pure Python``."""
    from ..native import backend as native_backend, import_built
    import_built()
    return native_backend()


@dataclass
class BenchResult:
    game: str
    players: int
    games: int
    repeat: int
    games_per_s: float          # median of the runs
    decisions_per_s: float      # median of the runs
    decisions: int              # decisions in one run (the same every run: games are seeded)
    seconds: float              # median time of one run
    backend: str


def run_once(rb, players: int, games: int, seed: int, options, variants, done=lambda n=1: None):
    """Play ``games`` random games; return (decisions, seconds); ``done(1)`` after each game."""
    decisions = 0
    start = time.perf_counter()
    for g in range(games):
        state = rb.new_game(players, seed + g, options, variants, logging=False)
        decisions += play_out(state, make_bots("random", state.lay.num_seats, seed + g))
        done(1)
    return decisions, time.perf_counter() - start


def bench(rb, counts, games: int, repeat: int, seed: int, options, variants, show_progress=True) -> list:
    """Measure every player count in ``counts`` (a progress bar per run on a terminal only)."""
    from ..progress import progress
    results = []
    for n in counts:
        rates, drates, times, decisions = [], [], [], 0
        run_once(rb, n, 1, seed, options, variants)     # unmeasured: code made on first use is made now
        for r in range(repeat):
            with progress(games, f"bench {rb.name}, {n} players, run {r + 1}", show_progress) as done:
                decisions, elapsed = run_once(rb, n, games, seed, options, variants, done)
            times.append(elapsed)
            rates.append(games / elapsed)
            drates.append(decisions / elapsed)
        results.append(BenchResult(rb.game.name, n, games, repeat, statistics.median(rates),
                                   statistics.median(drates), decisions, statistics.median(times), backend()))
    return results


def format_line(r: BenchResult) -> str:
    runs = f"median of {r.repeat} runs" if r.repeat > 1 else "1 run"
    return (f"{r.players} players: {r.games} games in {r.seconds:.2f}s: {r.games_per_s:.1f} games/s, "
            f"{r.decisions_per_s:.0f} decisions/s ({runs}, {r.backend})")


def to_json(results) -> str:
    return json.dumps([asdict(r) for r in results], indent=2)
