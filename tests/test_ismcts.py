"""The ISMCTS bot (interpreter/ismcts.py) and its benchmark's smoke run."""
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import RULES
from interpreter.ai.bots import make_bots
from interpreter.game import Rulebook
from interpreter.ai.ismcts import IsmctsBot

ROOT = Path(__file__).resolve().parents[1]


def _swap_hidden(st, seat):
    """A copy in which two hidden components of one seat's deck and hand change places."""
    from interpreter.engine.knowledge.observe import zone_visible
    s = st.clone()
    hidden = [z for z in s.lay.zones if not zone_visible(s, z, seat) and len(s.z[z.id]) > 1]
    z = hidden[0]
    s.z[z.id] = list(reversed(s.z[z.id]))
    return s


def test_ismcts_decides_on_samples_never_on_hidden_contents():
    rb = Rulebook.load(RULES / "moonlight_market")
    st = rb.new_game(2, 3, logging=False)
    seat = st.current_player()
    other = _swap_hidden(st, seat)
    assert other.to_json()["zones"] != st.to_json()["zones"]
    # the samples only depend on which components are hidden, not on where they lie
    assert st.resample(seat, 9).to_json()["zones"] == other.resample(seat, 9).to_json()["zones"]
    # a budget of iterations, not of time, so that both searches are the same
    a = IsmctsBot(5, seat, playouts=40, seconds=600).choose(st)
    b = IsmctsBot(5, seat, playouts=40, seconds=600).choose(other)
    assert a == b and a in st.legal_actions()


def test_ismcts_plays_whole_games_with_a_budget():
    rb = Rulebook.load(RULES / "moonlight_market")
    st = rb.new_game(2, 1, logging=False)
    bots = make_bots("ismcts:4,random", 2, 1)
    n = 0
    while not st.is_terminal() and n < 400:
        st.apply_action(bots[st.current_player()].choose(st))
        n += 1
    assert st.is_terminal()
    assert bots[0].last_iterations <= 4


def test_a_budget_is_only_for_ismcts():
    with pytest.raises(ValueError):
        make_bots("random:5", 2, 1)
    with pytest.raises(ValueError):
        make_bots("ismcts:0", 2, 1)


@pytest.mark.slow
def test_benchmark_smoke_run():
    """The benchmark on 5 games per game and opponent, short thinking time (CI smoke)."""
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "ismcts_vs.py"), "--games", "5",
                          "--seconds", "0.05"], capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stderr
    lines = [x for x in out.stdout.splitlines() if " vs " in x]
    assert len(lines) == 8 and all("CI" in x for x in lines)


def test_ismcts_starts_no_iteration_that_would_end_after_its_time(monkeypatch):
    """On a clock where every iteration takes 0.3 s, a 1 s budget allows three,
    ending at 0.9 s: a fourth would end at 1.2 s."""
    import interpreter.ai.ismcts as ismcts
    rb = Rulebook.load(RULES / "moonlight_market")
    st = rb.new_game(2, 1, logging=False)
    while len(st.legal_actions()) < 2:
        st.apply_action(st.legal_actions()[0])
    clock = [0.0]
    monkeypatch.setattr(ismcts.time, "perf_counter", lambda: clock[0])
    bot = IsmctsBot(5, st.current_player(), seconds=1.0)
    iterate = bot._iterate

    def slow_iterate(*args):
        clock[0] += 0.3
        iterate(*args)
    bot._iterate = slow_iterate
    assert bot.choose(st) in st.legal_actions()
    assert bot.last_iterations == 3 and clock[0] <= 1.0


# --- a search whose sampling fails says so (issue 42) ------------------------------
class _Unsampleable:
    """A real game whose resample fails as a rulebook's can (RW921: no world gives the seat
    what it saw): everything else is the real state's."""

    def __init__(self, st):
        self._st = st

    def __getattr__(self, name):
        return getattr(self._st, name)

    def resample(self, seat, seed):
        from dsl.diagnostics import Pos, RuleRuntimeError
        raise RuleRuntimeError("resample: no game in 1,000 tries draws the values hidden from seat 1",
                               Pos("game.yaml", 14, 9), "RW921")


def _sealed_bids():
    from conftest import ROOT
    from interpreter.game import Rulebook
    return Rulebook.load(ROOT / "tests" / "rulebooks" / "sealed_bids").new_game(2, 1)


def test_ismcts_whose_every_sample_fails_reports_it_and_plays_nothing():
    import pytest
    from interpreter.ai.ismcts import SearchFailed
    bot = IsmctsBot(seed=1, seat=0, playouts=20)
    with pytest.raises(SearchFailed, match="all 20 samples failed") as err:
        bot.choose(_Unsampleable(_sealed_bids()))
    assert err.value.code == "RW921" and err.value.pos.line == 14
    assert bot.failed_samples == 20 and bot.fallbacks == 0


def test_ismcts_random_fallback_is_opt_in_warns_with_the_count_and_names_itself():
    import pytest
    from interpreter.ai.bots import make_bots
    from interpreter.ai.ismcts import SamplingWarning
    bot = make_bots("ismcts:20:fallback", 2, 1)[0]
    st = _sealed_bids()
    with pytest.warns(SamplingWarning, match=r"20 of 20 samples failed, playing a legal action at random.*RW921"):
        action = bot.choose(_Unsampleable(st))
    assert action in st.legal_actions()
    assert bot.fallbacks == 1 and bot.name == "ismcts (random fallback 1 time)"
    assert make_bots("ismcts:20", 2, 1)[0].fallback is False



def test_ismcts_on_a_rulebook_after_a_reveal_never_plays_at_random_silently():
    """Sealed bids after the first reveal: resample may fail there (the revealed bids must be
    hit again; the knowledge issue fixes it) — then the bot says so; else it searched."""
    import warnings as w
    from interpreter.ai.ismcts import SamplingWarning, SearchFailed
    st = _sealed_bids()
    for a in ("bid(amount=2)", "bid(amount=4)"):
        st.apply(a)
    bot = IsmctsBot(seed=3, seat=0, playouts=10)
    with w.catch_warnings(record=True) as caught:
        w.simplefilter("always")
        try:
            bot.choose(st)
        except SearchFailed as exc:
            assert bot.last_failed == 10 and "samples failed" in exc.message
            return
    told = [c for c in caught if issubclass(c.category, SamplingWarning)]
    assert bool(told) == (bot.last_failed > 0)
    assert bot.fallbacks == 0 and bot.name == "ismcts"
