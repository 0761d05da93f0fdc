"""The story of a game as lines of text: round and phase headers, every decision, the rulebook's log lines.

Every decision is told, in the words of the action's ``say:`` template when
the rulebook's ``display:`` has one ("Player 1: Take all red tiles from
factory 3"), else as its id ("Player 1: take_factory(factory_no=3, color=red)"),
except secret parameters
(``secret:`` on the action, its default, or an action the ``display:`` hints
call ``secret``: a card chosen face down), which only the deciding seat is told.  The rulebook's ``log:`` lines are
public.
"""
from __future__ import annotations

import re

from ..game import public_action_id
from ..game import read_hints
from ..game import Phrases
from .view.model import component_names, maker_for


_WORD = re.compile(r"[\w'-]+")


def _stem(word: str) -> str:
    w = word.lower()
    for end in ("ing", "es", "s"):
        if len(w) > len(end) + 2 and w.endswith(end):
            return w[: -len(end)]
    return w


def repeats(line: str, seat_name: str, sentence: str) -> bool:
    """Whether the log ``line`` says no more than the decision told as ``sentence``: it begins with
    the seat's name and every other word of it is a word of the sentence (bids ~ bid)."""
    if not line.startswith(seat_name + " "):
        return False
    said = {_stem(w) for w in _WORD.findall(sentence)}
    return all(_stem(w) in said for w in _WORD.findall(line[len(seat_name):]))


def pretty_action(action_id: str) -> str:
    """``take(f=3,c=red)`` → ``take(f=3, c=red)``."""
    return action_id.replace(",", ", ")


class Narrator:
    """Feed it each decision; it returns the new lines of the story."""

    def __init__(self, state):
        hints = read_hints(state.game)
        self.round_var = hints.round
        self.secret = hints.secret
        self.game = state.game
        self.names = list(state.lay.seat_names)
        names = component_names(maker_for(state).labels)
        self.phrases = Phrases(state.game, self.names, names)
        # in the rulebook's log lines a component's label reads as its name too ("blue7" -> "blue 7"),
        # for labels that are no plain word (a plain word, such as "seal", may be meant as a word)
        marked = {k: v for k, v in names.items() if not k.replace("_", "").isalpha()}
        self._label_re = re.compile(r"(?<![\w@-])(" + "|".join(map(re.escape, sorted(marked, key=len, reverse=True)))
                                    + r")(?![\w@-])") if marked else None
        self._label_names = marked
        self.printed = 0
        self.where = None
        self.ended = False

    def _where(self, state):
        rnd = None
        if self.round_var is not None:
            rnd = state.observed_variable(self.round_var, None)      # (as an onlooker is shown it)
        phase = next((name for kind, name in reversed(state.open_scopes()) if kind == "phase"), None)
        return rnd, phase

    def lines_before(self, state) -> list:
        """The rulebook's new log lines and a header if play entered a new round or phase."""
        start, end = self.printed, len(state.log)
        out = [self._named(x) for x in state.log[start:end]]
        self.printed = end
        if state.is_terminal():
            return out
        marks = [m for m in getattr(state, "log_marks", ()) if start <= m <= end]
        cut = marks[-1] - start if marks else len(out)      # the header where its round or phase began
        return out[:cut] + self._header(state) + out[cut:]

    def _header(self, state) -> list:
        """``── round 2 · phase take ──`` when play is in another round or phase than the last header said."""
        where = self._where(state)
        if where == self.where:
            return []
        self.where = where
        rnd, phase = where
        parts = []
        if rnd is not None:
            parts.append(f"{self.round_var} {rnd}")
        if phase:
            parts.append(f"phase {phase}")
        return [f"── {' · '.join(parts)} ──"] if parts else []

    def decision(self, seat: int, action_id: str, viewer=None, everyone: bool = False) -> str:
        """"Player 1: take(f=3, c=red)"; a secret action's parameters only for its own seat
        (``viewer``) or when ``everyone`` may see all (bots only, a finished game)."""
        if not everyone and viewer != seat:
            action_id = public_action_id(self.game, action_id)
        if self.phrases.has_say(action_id.partition("(")[0]):
            return f"{self.names[seat]}: {self.phrases.sentence(action_id, seat)}"
        return f"{self.names[seat]}: {pretty_action(action_id)}"

    def lines_after(self, state, decided=None) -> list:
        """The log lines a decision caused, indented; when it led into a new round or phase, that
        header stands where the round or phase began (the lines before it closed the last one).
        ``decided`` (seat, action id): a log line that only repeats what its sentence told everyone
        ("Player 1 bids 8 at pillow 1" after "Player 1: Bid your card 8 at pillow 1") is left out."""
        start, end = self.printed, len(state.log)
        self.printed = end
        told = self._told(decided)
        lines = [(i, x) for i, x in enumerate(state.log[start:end], start) if not (told and repeats(self._named(x), *told))]
        marks = [m for m in getattr(state, "log_marks", ()) if start <= m <= end]
        if state.is_terminal() or not marks:
            return ["  " + self._named(x) for _, x in lines]
        cut = marks[-1]
        return (["  " + self._named(x) for i, x in lines if i < cut] + self._header(state)
                + ["  " + self._named(x) for i, x in lines if i >= cut])

    def _told(self, decided):
        """(seat name, the sentence everyone is told) of a decision told in its say: words, else None."""
        if decided is None:
            return None
        seat, action = decided
        public = public_action_id(self.game, action)
        if not self.phrases.has_say(public.partition("(")[0]):
            return None
        return self.names[seat], self.phrases.sentence(public, seat)

    def _named(self, line: str) -> str:
        if self._label_re is None:
            return line
        return self._label_re.sub(lambda m: self._label_names[m.group(1)], line)

    def ending(self, state) -> list:
        """Once the game is over (and once only): how the final scores are made up, per seat the
        score's named parts (`end: parts:`) and the total."""
        if not state.is_terminal() or self.ended:
            return []
        self.ended = True
        parts = state.score_parts()
        scores = state.scores()
        if not any(parts):
            return []                       # the final scores follow anyway; there is nothing to explain
        out = ["── final scoring ──"]
        for name, row, total in zip(self.names, parts, scores):
            detail = ", ".join(f"{k} {v:+d}" if isinstance(v, int) and not isinstance(v, bool) else f"{k} {v}"
                               for k, v in row.items())
            out.append(f"{name}: {detail} = {total}")
        return out
