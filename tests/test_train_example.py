"""benchmarks/train_maskable_ppo.py: MaskablePPO learns a small rulebook through the
single-agent environment.  Needs the train extra (stable-baselines3, sb3-contrib, torch);
without it these tests skip."""
import importlib.util

import pytest

from conftest import ROOT

pytest.importorskip("sb3_contrib", reason="the training example needs the train extra: pip install -e '.[rl,train]'")


def load_example():
    spec = importlib.util.spec_from_file_location("train_maskable_ppo", ROOT / "benchmarks" / "train_maskable_ppo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_maskable_ppo_beats_random_after_a_short_training():
    """About 20 s of CPU: 6,000 steps on tests/rulebooks/tiny_duel.  Against random, an untrained
    (random-like) policy wins about half its games; a trained one plays the highest card that
    the die allows and wins most (seen: 46 % -> 86 %, 200 games each)."""
    out = load_example().train(ROOT / "tests" / "rulebooks" / "tiny_duel", players=2, steps=6_000, games=200)
    before, after = out["before"], out["after"]
    assert 0.25 < before["win_rate"] < 0.75
    assert after["ci95"][0] > before["ci95"][1]             # the intervals do not overlap
    assert after["win_rate"] > 0.7


def test_the_evaluation_counts_wins_with_a_wilson_interval():
    example = load_example()

    class FirstLegal:                                      # a "model": the first legal action
        def predict(self, obs, action_masks, deterministic):
            return int(action_masks.nonzero()[0][0]), None

    r = example.evaluate(FirstLegal(), ROOT / "tests" / "rulebooks" / "tiny_duel", 2, 20, seed=0)
    assert r["games"] == 20 and 0 <= r["win_rate"] <= 1
    lo, hi = r["ci95"]
    assert lo <= r["win_rate"] <= hi and hi - lo > 0.1
