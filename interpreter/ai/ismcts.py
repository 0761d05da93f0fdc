"""An information-set Monte Carlo tree search bot (single observer, ISMCTS).

Each iteration samples a state the bot cannot tell from the real one
(``state.resample(seat, seed)``: hidden components redistributed, the
future reseeded), descends a tree of action ids shared by all samples —
choosing by UCB among the actions legal in this sample, counting how often
each was available — adds one node, plays on at random for at most
``depth`` (30) decisions and scores the result for every seat: at the end,
the share of the win (1/k for k winners); before it, the seat's lead over
the best other score, squashed into 0…1 (``0.5 + 0.5·tanh(lead / scale)``,
the scale growing with the scores), so that a larger lead is worth more
than a narrow one.  The action chosen is the most visited.  It never reads
the real state's hidden contents.

It starts no iteration that would end after the time allowed, judging by
the longest one so far, so a decision takes at most about that long.
``--bots ismcts`` thinks for up to 1 second per decision;
``ismcts:N`` for at most N iterations (and the second).

A search never degrades silently.  A sample the rules cannot give or continue
(``resample`` finds no world that gives the seat what it saw, RW921; a rule
error while playing on) is skipped and counted: ``last_failed`` and
``failed_samples`` hold the counts, and a :class:`SamplingWarning` says how
many of the decision's samples failed and why.  When every sample of a
decision fails, the bot raises :class:`SearchFailed` (a located rule error,
the first failure's) — unless its random fallback is asked for
(``fallback=True``, ``--bots ismcts:fallback`` or ``ismcts:200:fallback``):
then it warns, plays a legal action at random, counts it (``fallbacks``) and
its ``name`` says so (``ismcts (random fallback 3 times)``), so a result
names what was actually played.
"""
from __future__ import annotations

import math
import time
import warnings

from dsl.diagnostics import RuleRuntimeError

from ..game import Rng


class _Node:
    __slots__ = ("children", "n", "w", "avail")

    def __init__(self):
        self.children: dict = {}
        self.n = 0
        self.w = 0.0
        self.avail = 0


class SamplingWarning(UserWarning):
    """Some samples of a search failed (how many, and the first reason)."""


class SearchFailed(RuleRuntimeError):
    """Every sample of a search failed, and the bot's random fallback was not asked for."""


class IsmctsBot:
    def __init__(self, seed: int = 0, seat: int = 0, playouts=None, seconds: float = 1.0, depth: int = 30,
                 exploration: float = 0.7, fallback: bool = False):
        self.rng = Rng(seed, 5000 + seat)
        self.seat = seat
        parts = [] if playouts in (None, "") else str(playouts).split(":")
        if "fallback" in parts:                 # 'ismcts:200:fallback' or 'ismcts:fallback'
            fallback = True
            parts.remove("fallback")
        self.playouts = int(parts[0]) if parts else None
        self.seconds = seconds
        self.depth = depth
        self.c = exploration
        self.fallback = bool(fallback)
        self.last_iterations = 0
        #: samples that failed in the last decision, and in all decisions so far
        self.last_failed = 0
        self.failed_samples = 0
        #: decisions played at random because every sample failed (only with ``fallback``)
        self.fallbacks = 0

    @property
    def name(self) -> str:
        """``ismcts``; with the times it played at random instead said (a result names what played)."""
        if self.fallbacks:
            return f"ismcts (random fallback {self.fallbacks} time{'s' if self.fallbacks != 1 else ''})"
        return "ismcts"

    def choose(self, state) -> str:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        me = state.current_player()
        root = _Node()
        start = now = time.perf_counter()
        deadline = start + self.seconds
        longest = 0.0               # the longest iteration so far: the next may take as long
        done = 0
        failed = 0
        first = None
        while (self.playouts is None or done < self.playouts) and now + longest < deadline:
            done += 1
            try:
                self._iterate(state, me, root)
            except RuleRuntimeError as exc:
                failed += 1         # a sample the rules cannot give or continue: skipped, counted
                if first is None:
                    first = exc
            then, now = now, time.perf_counter()
            longest = max(longest, now - then)
        self.last_iterations = done
        self.last_failed = failed
        self.failed_samples += failed
        visited = [(root.children[a].n, a) for a in legal if a in root.children]
        if failed:
            why = f"{first.message} [{first.code}]" if first is not None else "?"
            if not visited and not self.fallback:
                raise SearchFailed(f"ismcts (seat {me}): all {failed} samples failed, nothing searched "
                                   f"(ask for the random fallback with ismcts:fallback): {first.message}",
                                   first.pos, first.code)
            what = "playing a legal action at random instead" if not visited else "the rest searched"
            warnings.warn(f"ismcts (seat {me}): {failed} of {done} samples failed, {what}: {why}",
                          SamplingWarning, stacklevel=2)
        if not visited:
            self.fallbacks += 1
            return legal[self.rng.below(len(legal))]
        top = max(n for n, _ in visited)
        best = [a for n, a in visited if n == top]
        return best[self.rng.below(len(best))]

    def _iterate(self, state, me, root) -> None:
        det = state.resample(me, self.rng.below(1 << 62))
        node = root
        path = []
        while not det.is_terminal():
            who = det.current_player()
            acts = det.legal_actions()
            for a in acts:
                child = node.children.get(a)
                if child is not None:
                    child.avail += 1
            untried = [a for a in acts if a not in node.children]
            if untried:
                a = untried[self.rng.below(len(untried))]
                child = node.children[a] = _Node()
                child.avail = 1
                det.apply_action(a)
                path.append((child, who))
                break
            best, best_value = None, None
            for a in acts:                  # UCB with the availability count (ISMCTS)
                ch = node.children[a]
                value = ch.w / ch.n + self.c * math.sqrt(math.log(ch.avail) / ch.n) if ch.n else float("inf")
                if best_value is None or value > best_value:
                    best, best_value = a, value
            det.apply_action(best)
            node = node.children[best]
            path.append((node, who))
        for _ in range(self.depth):
            if det.is_terminal():
                break
            det.apply_index(self.rng.below(len(det.legal_action_indices())))
        values = _values(det)
        for node, who in path:
            node.n += 1
            node.w += values[who]


def _values(st) -> list:
    """Per seat, in 0…1: the share of the win at the end; before it, the lead over
    the best other seat's score (turned round when lower scores are better),
    0.5 for level, towards 1 (0) for a large lead (deficit)."""
    n = st.lay.num_seats
    if st.game.together is not None:            # one result for all: won, or the shared score
        if st.is_terminal():
            return [1.0 if st.won_together() else 0.0] * n
        s = st.scores()[0] * (-1 if st.game.score_direction == "lower" else 1)
        return [0.5 + 0.5 * math.tanh(s / max(3.0, 0.15 * abs(s)))] * n
    if st.is_terminal():
        places = st.ranking()
        k = places.count(1)
        return [1.0 / k if p == 1 else 0.0 for p in places]
    if n == 1:
        return [1.0]
    scores = st.scores()
    if st.game.score_direction == "lower":
        scores = [-s for s in scores]
    scale = max(3.0, 0.15 * sum(abs(s) for s in scores) / n)
    out = []
    for p, s in enumerate(scores):
        lead = s - max(t for q, t in enumerate(scores) if q != p)
        out.append(0.5 + 0.5 * math.tanh(lead / scale))
    return out
