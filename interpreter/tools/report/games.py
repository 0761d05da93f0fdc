"""Play the games of a report and record each as one plain dict (a JSON Lines row).

A row holds what the statistics need and nothing they compute: the
configuration, seed and bots, the scores, places and winners, the score's
named parts, who decided first, the game's length (decisions, turns — a turn
is a run of decisions by one seat — and rounds where the rulebook's
``display: round:`` names a round variable), and per seat how often each
action (by name, without its parameters) was chosen.  A game that fails has
``error`` set and no results.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from dsl.diagnostics import RuleRuntimeError

from ...ai.bots import make_bots
from ..simulate import _book


@dataclass(frozen=True)
class Config:
    """One column of a comparison: a label and the variants and options it plays."""
    label: str
    variants: tuple = ()
    options: tuple = ()               # sorted (name, value) pairs

    @property
    def option_dict(self) -> dict:
        return dict(self.options)


@dataclass
class Plan:
    rulebook: str
    players: int
    games: int
    bots: str = "random"
    first_seed: int = 1
    configs: list = field(default_factory=lambda: [Config("base")])
    max_decisions: int = 20_000


def action_name(action_id: str) -> str:
    return action_id.split("(", 1)[0]


def play_game(path: str, config: Config, players: int, seed: int, bots_spec: str, max_decisions: int) -> dict:
    row = {"config": config.label, "variants": list(config.variants), "options": config.option_dict,
           "players": players, "seed": seed, "bots": bots_spec}
    rb = _book(path)
    try:
        from ...game import read_hints
        round_var = read_hints(rb.game).round
        st = rb.new_game(players, seed, config.option_dict, list(config.variants), logging=False)
        seats = st.lay.num_seats
        bots = make_bots(bots_spec, seats, seed)
        actions = [dict() for _ in range(seats)]
        first = st.current_player()
        decisions = turns = 0
        last = None
        while not st.is_terminal():
            if decisions >= max_decisions:
                raise RuntimeError(f"no end after {max_decisions} decisions")
            seat = st.current_player()
            action = bots[seat].choose(st)
            name = action_name(action)
            actions[seat][name] = actions[seat].get(name, 0) + 1
            st.apply_action(action)
            decisions += 1
            if seat != last:
                turns += 1
                last = seat
        rounds = None
        if round_var is not None:
            value = st.observed_variable(round_var, None)
            rounds = value if isinstance(value, int) else None
        row.update({"seat_names": list(st.lay.seat_names), "scores": st.scores(), "ranking": st.ranking(),
                    "winners": st.winners(), "first_player": first, "parts": st.score_parts(),
                    "decisions": decisions, "turns": turns, "rounds": rounds, "actions": actions,
                    "together": st.won_together(), "error": None})
    except RuleRuntimeError as exc:
        row["error"] = exc.diagnostic().format()
    except Exception as exc:          # reported with the seed; the other games go on
        row["error"] = f"{type(exc).__name__}: {exc}"
    return row


def play_batch(task) -> list:
    """One backend task: (path, config, players, seeds, bots, max_decisions) → rows."""
    path, config, players, seeds, bots_spec, max_decisions = task
    return [play_game(path, config, players, s, bots_spec, max_decisions) for s in seeds]


def tasks_of(plan: Plan, batch_size: int) -> list:
    out = []
    seeds = list(range(plan.first_seed, plan.first_seed + plan.games))
    for config in plan.configs:
        for i in range(0, len(seeds), batch_size):
            out.append((plan.rulebook, config, plan.players, seeds[i:i + batch_size], plan.bots, plan.max_decisions))
    return out


def run_games(plan: Plan, backend, done=None) -> list:
    """Every game of the plan on ``backend``; rows in (configuration, seed) order whatever ran them.
    A task whose worker failed gives one row per seed with ``error`` set."""
    jobs = getattr(backend, "jobs", None) or 1
    size = max(1, min(50, plan.games // (4 * jobs) or 1))
    tasks = tasks_of(plan, size)
    found: dict = {}
    for d in backend.run(play_batch, tasks):
        path, config, players, seeds, bots_spec, _ = tasks[d.index]
        if d.error is None:
            found[d.index] = d.value
        else:
            found[d.index] = [{"config": config.label, "variants": list(config.variants),
                               "options": config.option_dict, "players": players, "seed": s, "bots": bots_spec,
                               "error": f"the worker failed: {d.error}"} for s in seeds]
        if done:
            done(len(seeds))
    return [row for i in sorted(found) for row in found[i]]
