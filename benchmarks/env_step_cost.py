"""What a step costs through the AI environments, beside the raw state API.

    python benchmarks/env_step_cost.py                     # the four games, 2 players, medians of 3
    python benchmarks/env_step_cost.py --games 20 --repeat 5 --game yak

Per game the same random games (the choices of ``random.Random(k)``) are played
three ways, and the time per decision is printed side by side:

``pettingzoo``   the AEC environment, ``reset(seed=k)``: per decision ``env.last()``
                 (the acting agent's observation vector and action mask) and
                 ``env.step(index)``, the index drawn from the mask;
``raw``          the same games on the plain ``State``: per decision
                 ``legal_actions()`` + ``apply_action(id)`` (the ids the
                 PettingZoo run took);
``chance``       OpenSpiel with explicit chance nodes and no observations:
                 ``legal_actions()`` + ``apply_action`` per decision, and per chance
                 node ``chance_outcomes()`` + ``apply_action(outcome)`` (outcomes
                 drawn uniformly, so the games differ from raw ones in their draws
                 but not in length);
``chance_raw``   the same games of explicit chance as ``State`` games: each chance
                 node answered by the outcome the chance run chose (the raw cost of
                 exactly the games ``chance`` played).

``ChanceState``  the same games on the engine's chance API without OpenSpiel
                 (``Rulebook.new_chance_game``: ``chance_outcomes`` + ``apply_outcome``,
                 ``legal_actions`` + ``apply_action``).

Ratios: ``pettingzoo / raw``, ``chance / chance_raw`` and ``ChanceState / chance_raw``.
Times are CPU time of this process (``time.process_time``): on a shared machine
they vary less than the wall time.  Each figure is the
median of ``--repeat`` runs of ``--games`` games; runs of the ways alternate so that
a slower moment of a shared machine hits all of them alike.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interpreter.engine.chance import _start  # noqa: E402
from interpreter.game import Rulebook  # noqa: E402
from interpreter.engine.runtime import run  # noqa: E402

GAMES = ["azul_summer_pavilion", "iquazu", "moonlight_market", "yak"]


def raw_games(rb, players, seeds, scripts):
    """The games the PettingZoo run played (``scripts``: the action ids per game), on the
    plain State: per decision ``legal_actions()`` and ``apply_action(id)``."""
    decisions = 0
    t = time.process_time()
    for seed, script in zip(seeds, scripts):
        st = rb.new_game(players, seed, logging=False)
        for a in script:
            st.legal_actions()
            st.apply_action(a)
            decisions += 1
        assert st.is_terminal()
    return time.process_time() - t, decisions


def pettingzoo_games(env, seeds):
    """Games through the AEC environment, random legal actions; the time, the decisions and
    per game the action ids taken."""
    import numpy as np
    ids = env.space.ids
    decisions = 0
    scripts = []
    t = time.process_time()
    for k in seeds:
        pick = random.Random(k)
        env.reset(seed=k)
        script = []
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            a = int(legal[pick.randrange(len(legal))])
            env.step(a)
            script.append(ids[a])
            decisions += 1
        scripts.append(script)
    return time.process_time() - t, decisions, scripts


def chance_games(game, games):
    """Explicit chance through OpenSpiel; returns the time, the decisions, and per game
    the list of (chance outcomes, decision index) to replay raw."""
    decisions = 0
    scripts = []
    t = time.process_time()
    for k in range(games):
        pick = random.Random(k)
        state = game.new_initial_state()
        script = []
        while not state.is_terminal():
            if state.is_chance_node():
                n = len(state.chance_outcomes())
                o = pick.randrange(n)
                state.apply_action(o)
                script.append(o)
            else:
                legal = state.legal_actions()
                a = legal[pick.randrange(len(legal))]
                state.apply_action(a)
                script.append(("a", a))
                decisions += 1
        scripts.append(script)
    return time.process_time() - t, decisions, scripts


def chance_raw_games(rb, players, scripts):
    """The games of ``chance_games`` on the plain State: chance answered from the script."""
    space = rb.action_space(players)
    decisions = 0
    t = time.process_time()
    for script in scripts:
        outcomes = iter([o for o in script if not isinstance(o, tuple)])
        actions = [space.action_id(a) for tag, a in (o for o in script if isinstance(o, tuple))]
        st = _start(rb, players, None, ())
        st.chance = lambda n, it=outcomes: next(it) if n > 1 else 0
        run(st)
        for a in actions:
            st.legal_actions()
            st.apply_action(a)
            decisions += 1
        assert st.is_terminal()
    return time.process_time() - t, decisions


def chance_state_games(rb, players, scripts):
    """The games of ``chance_games`` on the engine's own chance API (``ChanceState``), without
    OpenSpiel: the cost of explicit chance itself."""
    space = rb.action_space(players)
    decisions = 0
    t = time.process_time()
    for script in scripts:
        cs = rb.new_chance_game(players)
        for o in script:
            if isinstance(o, tuple):
                cs.legal_actions()
                cs.apply_action(space.action_id(o[1]))
                decisions += 1
            else:
                cs.chance_outcomes()
                cs.apply_outcome(o)
        assert cs.is_terminal()
    return time.process_time() - t, decisions


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10, help="games per run (default 10)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per way; the median is shown (default 3)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--game", action="append", help="a game of rules/ (repeatable; default: all four)")
    args = ap.parse_args(argv)
    rows = []
    for name in args.game or GAMES:
        path = ROOT / "rules" / name
        rb = Rulebook.load(path)
        from interpreter.ai.adapters.openspiel import load
        from interpreter.ai.adapters.pettingzoo import RulebookEnv
        env = RulebookEnv(rb, args.players)
        game = load(path, players=args.players)
        seeds = list(range(args.games))
        _t, _n, scripts = pettingzoo_games(env, seeds[:1])          # warm: layouts, spaces, encoders
        raw_games(rb, args.players, seeds[:1], scripts)
        chance_games(game, 1)
        per = {"raw": [], "pettingzoo": [], "chance": [], "chance_raw": [], "chance_state": []}
        for _ in range(args.repeat):
            t, n, scripts = pettingzoo_games(env, seeds)
            per["pettingzoo"].append(t / n)
            t, n = raw_games(rb, args.players, seeds, scripts)
            per["raw"].append(t / n)
            t, n, scripts = chance_games(game, args.games)
            per["chance"].append(t / n)
            t, n = chance_raw_games(rb, args.players, scripts)
            per["chance_raw"].append(t / n)
            t, n = chance_state_games(rb, args.players, scripts)
            per["chance_state"].append(t / n)
        med = {k: statistics.median(v) for k, v in per.items()}
        rows.append((name, med))
        print(f"{name:22} raw {med['raw'] * 1e6:7.0f} µs  pettingzoo {med['pettingzoo'] * 1e6:7.0f} µs "
              f"({med['pettingzoo'] / med['raw']:.2f}×)   chance_raw {med['chance_raw'] * 1e6:7.0f} µs  "
              f"chance {med['chance'] * 1e6:7.0f} µs ({med['chance'] / med['chance_raw']:.2f}×)  "
              f"ChanceState {med['chance_state'] * 1e6:7.0f} µs ({med['chance_state'] / med['chance_raw']:.2f}×)",
              flush=True)
    pz = statistics.median(m["pettingzoo"] / m["raw"] for _, m in rows)
    ch = statistics.median(m["chance"] / m["chance_raw"] for _, m in rows)
    cs = statistics.median(m["chance_state"] / m["chance_raw"] for _, m in rows)
    print(f"median over the games: pettingzoo/raw {pz:.2f}×, chance/chance_raw {ch:.2f}×, "
          f"ChanceState/chance_raw {cs:.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
