"""What a step costs through the AI environments, beside the raw state API.

    python benchmarks/env_step_cost.py                     # the four games, 2 players, 20 games, medians of 3
    python benchmarks/env_step_cost.py --games 40 --repeat 5 --game yak

Per game the random games are drawn first (untimed: the choices of
``random.Random(k)``), then replayed the following ways; every way steps
through the same choices, so no way pays for drawing them:

``pettingzoo``   the AEC environment, ``reset(seed=k)``: per decision ``env.last()``
                 (the acting agent's observation vector and action mask) and
                 ``env.step(index)`` (the index the draw took from the mask);
``raw``          the same games on the plain ``State``: per decision
                 ``legal_actions()`` + ``apply_action(id)`` (the same actions' ids);
``chance``       OpenSpiel with explicit chance nodes and no observations:
                 per decision ``legal_actions()`` + ``apply_action(action)``, per
                 chance node ``chance_outcomes()`` + ``apply_action(outcome)``
                 (outcomes drawn uniformly, so these games differ from the raw
                 ones in their draws);
``chance_raw``   the same games of explicit chance as ``State`` games: each chance
                 node answered by the outcome the chance run chose (the raw cost of
                 exactly the games ``chance`` played);
``ChanceState``  the same games on the engine's chance API without OpenSpiel
                 (``Rulebook.new_chance_game``: ``chance_outcomes`` + ``apply_outcome``,
                 ``legal_actions`` + ``apply_action``).

Every way asks ``is_terminal()`` before each step, as a playing loop does.
Ratios: ``pettingzoo / raw``, ``chance / chance_raw`` and ``ChanceState / chance_raw``.
Times are CPU time of this process (``time.process_time``): on a shared machine
they vary less than the wall time.  A round replays every game once each way,
game after game, the ways of one game one after the other (their order turning
from game to game), so that a slower moment of a shared machine hits all ways
alike; each figure is the median over ``--repeat`` rounds of the time per
decision.  The load average before and after is printed (the machine may be shared).

``--vector N`` (issue 39) instead compares, per game, the engine's index path
(one game at a time), the Gymnasium vector environment of N copies with its
observations written (returned as copies, Gymnasium's default, and with ``copy=False``)
and without them (masks only), and the index path on N games
interleaved — one decision of each in turn, no environment: what any vector
environment of N copies pays before its own work (the caches and the cycle
collector then see every game's objects).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interpreter.engine.run.chance import _start  # noqa: E402
from interpreter.game import Rulebook  # noqa: E402
from interpreter.engine.run.runtime import run  # noqa: E402

GAMES = ["azul_summer_pavilion", "iquazu", "moonlight_market", "yak"]
WAYS = ("pettingzoo", "raw", "chance", "chance_raw", "chance_state")


# --- drawing the games (untimed) ------------------------------------------------
def draw_pettingzoo(env, k):
    """Game ``k`` through the AEC environment, random legal actions from the mask: the
    indices taken, in order."""
    import numpy as np
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
        script.append(a)
    return script


def draw_chance(game, k):
    """Game ``k`` through OpenSpiel with explicit chance, uniform random outcomes and
    actions: the steps, a chance outcome as an int and a decision as ``("a", action)``."""
    pick = random.Random(k)
    state = game.new_initial_state()
    script = []
    while not state.is_terminal():
        if state.is_chance_node():
            o = pick.randrange(len(state.chance_outcomes()))
            state.apply_action(o)
            script.append(o)
        else:
            legal = state.legal_actions()
            a = legal[pick.randrange(len(legal))]
            state.apply_action(a)
            script.append(("a", a))
    return script


# --- the timed ways: one game each; the time and the decisions ---------------------
def pettingzoo_game(env, k, script):
    """Game ``k`` through the AEC environment: per decision ``env.last()`` + ``env.step``."""
    it = iter(script)
    t = time.process_time()
    env.reset(seed=k)
    for _agent in env.agent_iter():
        _obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(next(it))
    return time.process_time() - t, len(script)


def raw_game(rb, players, k, ids):
    """The same game on the plain State: per decision ``legal_actions()`` + ``apply_action(id)``."""
    it = iter(ids)
    t = time.process_time()
    st = rb.new_game(players, k, logging=False)
    while not st.is_terminal():
        st.legal_actions()
        st.apply_action(next(it))
    t = time.process_time() - t
    assert next(it, None) is None, "the raw game ended before the PettingZoo game"
    return t, len(ids)


def chance_game(game, script):
    """Explicit chance through OpenSpiel: per chance node ``chance_outcomes()`` +
    ``apply_action(outcome)``, per decision ``legal_actions()`` + ``apply_action(action)``."""
    it = iter(script)
    decisions = 0
    t = time.process_time()
    state = game.new_initial_state()
    while not state.is_terminal():
        step = next(it)
        if state.is_chance_node():
            state.chance_outcomes()
            state.apply_action(step)
        else:
            state.legal_actions()
            state.apply_action(step[1])
            decisions += 1
    return time.process_time() - t, decisions


def chance_raw_game(rb, players, outcomes, ids):
    """The game of ``chance_game`` on the plain State, chance answered from its outcomes."""
    t = time.process_time()
    left = iter(outcomes)
    st = _start(rb, players, None, ())
    st.chance = lambda n, it=left: next(it) if n > 1 else 0
    run(st)
    it = iter(ids)
    while not st.is_terminal():
        st.legal_actions()
        st.apply_action(next(it))
    return time.process_time() - t, len(ids)


def chance_state_game(rb, players, script, ids):
    """The game of ``chance_game`` on the engine's own chance API (``ChanceState``), without
    OpenSpiel: the cost of explicit chance itself."""
    it = iter(script)
    names = iter(ids)
    t = time.process_time()
    cs = rb.new_chance_game(players)
    while not cs.is_terminal():
        step = next(it)
        if cs.is_chance_node():
            cs.chance_outcomes()
            cs.apply_outcome(step)
        else:
            cs.legal_actions()
            cs.apply_action(next(names))
    return time.process_time() - t, len(ids)


def measure(name, games: int, repeat: int, players: int) -> dict:
    """The median time per decision of each way for ``games`` games of ``name``."""
    from interpreter.ai.adapters.openspiel import load
    from interpreter.ai.adapters.pettingzoo import RulebookEnv
    path = ROOT / "rules" / name
    rb = Rulebook.load(path)
    env = RulebookEnv(rb, players)
    game = load(path, players=players)
    space = env.space
    pz_scripts = [draw_pettingzoo(env, k) for k in range(games)]
    pz_ids = [[space.ids[a] for a in s] for s in pz_scripts]
    ch_scripts = [draw_chance(game, k) for k in range(games)]
    ch_outcomes = [[o for o in s if type(o) is int] for s in ch_scripts]
    ch_ids = [[space.ids[o[1]] for o in s if type(o) is tuple] for s in ch_scripts]
    ways = {
        "pettingzoo": lambda k: pettingzoo_game(env, k, pz_scripts[k]),
        "raw": lambda k: raw_game(rb, players, k, pz_ids[k]),
        "chance": lambda k: chance_game(game, ch_scripts[k]),
        "chance_raw": lambda k: chance_raw_game(rb, players, ch_outcomes[k], ch_ids[k]),
        "chance_state": lambda k: chance_state_game(rb, players, ch_scripts[k], ch_ids[k]),
    }
    for way in WAYS:                        # warm: layouts, spaces, encoders
        ways[way](0)
    per = {way: [] for way in WAYS}
    for _ in range(repeat):
        spent = dict.fromkeys(WAYS, 0.0)
        decided = dict.fromkeys(WAYS, 0)
        for k in range(games):
            turn = k % len(WAYS)
            for way in WAYS[turn:] + WAYS[:turn]:
                t, n = ways[way](k)
                spent[way] += t
                decided[way] += n
        for way in WAYS:
            per[way].append(spent[way] / decided[way])
    return {way: statistics.median(v) for way, v in per.items()}


# --- issue 39: the vector environment against the engine's index path ------------------------------
def index_path(rb, players, decisions: int, seed: int = 0) -> float:
    """CPU seconds per decision of random games on the engine's fastest path:
    ``legal_action_indices()`` + ``apply_index(random position)``, new games as they end."""
    rng = random.Random(seed)
    n, k = 0, 0
    t = time.process_time()
    while n < decisions:
        st = rb.new_game(players, k, logging=False)
        k += 1
        while st.status != "over" and n < decisions:
            st.apply_index(rng.randrange(len(st.legal_action_indices())))
            n += 1
    return (time.process_time() - t) / n


def interleaved_path(rb, players, copies: int, decisions: int, seed: int = 0) -> float:
    """CPU seconds per decision of the index path on ``copies`` games at once, one decision of
    each in turn (a new game where one ends): what a vector environment of that many copies pays
    before any work of its own — the caches and the cycle collector see every game's objects."""
    rng = random.Random(seed)
    games = [rb.new_game(players, k, logging=False) for k in range(copies)]
    k, n = copies, 0
    t = time.process_time()
    while n < decisions:
        for i in range(copies):
            st = games[i]
            if st.status == "over":
                st = games[i] = rb.new_game(players, k, logging=False)
                k += 1
            st.apply_index(rng.randrange(len(st.legal_action_indices())))
        n += copies
    return (time.process_time() - t) / n


def vector_path(rb, players, copies: int, decisions: int, observe: bool = True, seed: int = 0,
                copy: bool = True) -> float:
    """CPU seconds per decision (learners' and random opponents') through the Gymnasium vector
    environment of ``copies`` games: per step each learner's random legal action (from the
    legal indices the env keeps: the same draw as the index path's) and ``envs.step``
    (batched observations written, ``observe=False``: masks only) and ``action_masks()``
    (``copy=False``: the env returns the batch's own arrays, as Gymnasium's ``copy`` knob)."""
    import numpy as np
    from interpreter.ai.adapters.vector import RulebookVectorEnv, VectorGames
    games = VectorGames(rb, players, copies, seed=seed)
    games.write_obs = observe
    envs = RulebookVectorEnv(games, copy=copy)
    envs.reset(seed=seed)
    rng = random.Random(seed)
    t = time.process_time()
    start = games.decisions
    while games.decisions - start < decisions:
        acts = np.array([legal[rng.randrange(len(legal))] for legal in games.legal])
        envs.step(acts)
        envs.action_masks()
    return (time.process_time() - t) / (games.decisions - start)


def measure_vector(name, players: int, copies: int, decisions: int, repeat: int) -> dict:
    rb = Rulebook.load(ROOT / "rules" / name)
    ways = {"index": lambda: index_path(rb, players, decisions),
            "vector": lambda: vector_path(rb, players, copies, decisions, True),
            "vector_own": lambda: vector_path(rb, players, copies, decisions, True, copy=False),
            "vector_no_obs": lambda: vector_path(rb, players, copies, decisions, False),
            "interleaved": lambda: interleaved_path(rb, players, copies, decisions)}
    index_path(rb, players, 500)
    vector_path(rb, players, copies, 500)
    per = {w: [] for w in ways}
    names = list(ways)
    for r in range(repeat):
        for w in names[r % len(names):] + names[:r % len(names)]:
            per[w].append(ways[w]())
    return {w: statistics.median(v) for w, v in per.items()}


def main_vector(args) -> int:
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({args.vector} copies, "
          f"{args.decisions} decisions a way, medians of {args.repeat} rounds, {args.players} players)", flush=True)
    rows = []
    for name in args.game or GAMES:
        m = measure_vector(name, args.players, args.vector, args.decisions, args.repeat)
        rows.append((name, m))
        print(f"{name:22} index path {1 / m['index']:8.0f} decisions/s   vector env {1 / m['vector']:8.0f}/s "
              f"({m['index'] / m['vector']:.2f}× the index path)   copy=False {1 / m['vector_own']:8.0f}/s "
              f"({m['index'] / m['vector_own']:.2f}×)   without observations {1 / m['vector_no_obs']:8.0f}/s "
              f"(observations cost {m['vector'] / m['vector_no_obs']:.2f}×)   index path on {args.vector} games "
              f"interleaved {1 / m['interleaved']:8.0f}/s ({m['index'] / m['interleaved']:.2f}×)", flush=True)
    speed = statistics.median(m["index"] / m["vector"] for _, m in rows)
    own = statistics.median(m["index"] / m["vector_own"] for _, m in rows)
    obs = statistics.median(m["vector"] / m["vector_no_obs"] for _, m in rows)
    ceiling = statistics.median(m["index"] / m["interleaved"] for _, m in rows)
    print(f"median over the games: vector env / index path {speed:.2f}× the speed ({own:.2f}× with copy=False), "
          f"a step with observations {obs:.2f}× one without; the index path on {args.vector} interleaved "
          f"games {ceiling:.2f}× (no vector env of {args.vector} copies can do better)")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20, help="games per round (default 20)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds; the median is shown (default 3)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--game", action="append", help="a game of rules/ (repeatable; default: all four)")
    ap.add_argument("--vector", type=int, metavar="N",
                    help="instead: the vector environment of N copies against the engine's index path")
    ap.add_argument("--decisions", type=int, default=20_000, help="with --vector: decisions a way a round")
    args = ap.parse_args(argv)
    if args.vector:
        return main_vector(args)
    rows = []
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"({args.games} games, medians of {args.repeat} rounds, {args.players} players)", flush=True)
    for name in args.game or GAMES:
        med = measure(name, args.games, args.repeat, args.players)
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
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
