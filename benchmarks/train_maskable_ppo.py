"""Train sb3-contrib's MaskablePPO on a rulebook against a random opponent; win rate before and after.

    pip install -e '.[rl,train]'        # stable-baselines3, sb3-contrib, torch (CPU build)
    python benchmarks/train_maskable_ppo.py                                    # tests/rulebooks/tiny_duel
    python benchmarks/train_maskable_ppo.py --game rules/yak --steps 200000 --eval 200

The learner is ``player_0`` of the single-agent environment
(:mod:`interpreter.ai.adapters.single_agent`): the other seats play uniformly
random legal actions, the reward is the ``win`` return at the end (with
``illegal_action="terminate"``, though the mask keeps the learner legal).
Unseeded resets draw fresh games, so training sees many deals.  Before and
after training the policy (masked, deterministic) plays ``--eval`` games
against random opponents on seeds of its own; a game counts as won when the
learner finishes first, a shared first place counting half.  Printed: the
win rate with its 95 % Wilson interval, before and after, and the training
time.  ``--json`` prints the same as one JSON object.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interpreter.ai.adapters.single_agent import single_agent_env  # noqa: E402
from interpreter.tools.report.stats import wilson  # noqa: E402


def evaluate(model, path, players: int, games: int, seed: int) -> dict:
    """Play ``games`` games of the masked, deterministic policy against random opponents."""
    env = single_agent_env(path, players)
    points = 0.0
    for k in range(games):
        obs, _info = env.reset(seed=seed + k)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, _reward, done, _trunc, _info = env.step(int(action))
        st = env.aec.game_state
        winners = st.winners()
        points += (1.0 / len(winners)) if 0 in winners else 0.0
    lo, hi = wilson(round(points), games)
    return {"games": games, "win_rate": points / games, "ci95": [lo, hi]}


def train(path, players: int = 2, steps: int = 20_000, games: int = 300, seed: int = 0, vec: int = 0) -> dict:
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        raise SystemExit("needs the train extra: pip install -e '.[rl,train]'") from None
    import torch
    torch.set_num_threads(1)
    if vec:         # N games in one process, the learner's seat turning game by game (adapters/vector.py)
        from interpreter.ai.adapters.vector import sb3_vec_env
        env = sb3_vec_env(path, players, num_envs=vec, seed=seed)
        n_steps = max(512 // vec, 16)
    else:
        env = single_agent_env(path, players, seed=seed, illegal_action="terminate")
        n_steps = 512
    model = MaskablePPO("MlpPolicy", env, seed=seed, verbose=0, n_steps=n_steps, batch_size=64,
                        gamma=1.0, learning_rate=3e-4)
    before = evaluate(model, path, players, games, seed=1_000_000)
    t = time.perf_counter()
    model.learn(total_timesteps=steps)
    seconds = time.perf_counter() - t
    after = evaluate(model, path, players, games, seed=1_000_000)
    return {"game": str(path), "players": players, "steps": steps, "vec": vec, "train_seconds": round(seconds, 1),
            "before": before, "after": after}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default=str(ROOT / "tests" / "rulebooks" / "tiny_duel"), help="a rulebook folder")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--steps", type=int, default=20_000, help="training steps (learner decisions)")
    ap.add_argument("--eval", type=int, default=300, help="games before and after (default 300)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--vec", type=int, default=0, metavar="N",
                    help="train through the SB3 vector environment of N games (the learner's seat rotating)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    out = train(args.game, args.players, args.steps, args.eval, args.seed, args.vec)
    if args.json:
        print(json.dumps(out))
        return 0
    for when in ("before", "after"):
        r = out[when]
        print(f"{when:6}: win rate {r['win_rate']:.1%} against random "
              f"(95% CI {r['ci95'][0]:.1%}–{r['ci95'][1]:.1%}, {r['games']} games)")
    print(f"trained {out['steps']:,} steps in {out['train_seconds']} s on {out['game']} ({out['players']} players"
          + (f", {out['vec']} games at once" if out["vec"] else "") + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
