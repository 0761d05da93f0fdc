"""The player-facing API of a :class:`~interpreter.engine.run.runtime.State`, in OpenSpiel's
terms: the history (and what each seat was told of it: ``public_action_id``), the current
player, scores, their named parts, ranking with shared places, winners, returns
(``returns(kind)``: win, rank, zero-sum, score), the legal mask, and observations,
information states and resampled worlds (computed by ``engine/knowledge``).  A part of
``State`` (runtime.py composes it).
"""
from __future__ import annotations

from ..knowledge.observe import observation, observations, observed_variable


class PlayerAPI:
    """The player-facing API: a part of :class:`State`."""

    __slots__ = ()

    # --- the player-facing API, in OpenSpiel's terms ----------------------
    @property
    def history(self) -> list:
        """Every decision so far: ``(seat, action id)`` in order."""
        return [(who, o.id) for who, o in self._history]

    def history_for(self, seat: int | None) -> list:
        """Every decision so far as ``seat`` may know it (``None``: an onlooker):
        ``(seat, action id)`` in order; in another seat's decision the secret
        parameters show as ``…`` (``bid(card=…,k=2)``; ``name(…)`` when all are
        secret, as for a ``secret: true`` action or a ``display: secret`` one)."""
        game = self.game
        if not game.redact and not game.sealed:
            return self.history
        return [(who, action_id if who == seat else public_action_id(game, action_id))
                for who, action_id in self.history]

    def told_id(self, action_id: str) -> str:
        """``action_id`` as the seats other than its chooser are told it (:func:`public_action_id`)."""
        return public_action_id(self.game, action_id)

    def simultaneous(self) -> str | None:
        """The ``simultaneous:`` group of the pending decision (its decide step
        says the seats choose at the same time, one after the other here), or None."""
        return self.pending.group if self.pending is not None else None

    def current_player(self) -> int | None:
        """The seat that must decide now, or None when the game is over."""
        return self.pending.who if self.pending is not None else None

    def is_terminal(self) -> bool:
        return self.status == "over"

    def scores(self) -> list:
        score = self.game.score
        if self.game.together is not None:     # one score, shared (p is the first seat)
            return [score(self, [0])] * self.lay.num_seats
        return [score(self, [p]) for p in self.lay.seats]

    def won_together(self) -> bool | None:
        """In a cooperative game (``end: together:``): whether the seats have won, once the
        game is over (False before); None in a game of each against each."""
        if self.game.together is None:
            return None
        return self.status == "over" and bool(self.game.together(self, [None]))

    def score_parts(self) -> list:
        """Per seat, the score's named parts (``end: parts:``) as {name: value}, in
        the rulebook's order; with ``end: rest: NAME`` also NAME: the score minus
        the parts.  Empty dicts when the rulebook names no parts."""
        parts = self.game.score_parts
        if not parts and self.game.score_rest is None:
            return [{} for _ in self.lay.seats]
        out = []
        for p, total in zip(self.lay.seats, self.scores()):
            row = {name: fn(self, [p]) for name, fn in parts}
            if self.game.score_rest is not None:
                row[self.game.score_rest] = total - sum(row.values())
            out.append(row)
        return out

    def ranking(self) -> list:
        """Places (1 = best) per seat; seats equal on every ranking key share a place.
        With ``end: better: lower`` the lower keys are the better ones."""
        if self.game.together is not None:     # one result for all: one place
            return [1] * self.lay.num_seats
        keys = [tuple(k(self, [p]) for k in self.game.rank_by) for p in self.lay.seats]
        if self.game.score_direction == "lower":
            return [sum(1 for q in self.lay.seats if keys[q] < keys[p]) + 1 for p in self.lay.seats]
        return [sum(1 for q in self.lay.seats if keys[q] > keys[p]) + 1 for p in self.lay.seats]

    def winners(self) -> list:
        """The seats that won: the first place; in a cooperative game every seat or none."""
        if self.game.together is not None:
            return list(self.lay.seats) if self.won_together() else []
        return [p for p, place in enumerate(self.ranking()) if place == 1]

    def returns(self, kind: str = "win") -> list:
        """Per seat, at the end (0 for all before): ``win`` 1 for a (shared) win, else 0;
        ``rank`` 1 for first place down to 0 for last; ``zero_sum`` the win share
        (1/k for k winners) minus its mean over the seats; ``score`` the final score,
        negated when lower scores are better (``end: better: lower``), so that a
        higher return is always the better one.  In a cooperative game (``end: together:``)
        ``win`` and ``rank`` are 1 for every seat when they won together, else 0, and
        ``zero_sum`` is 0."""
        n = self.lay.num_seats
        if self.status != "over":
            return [0] * n
        if self.game.together is not None and kind in ("win", "rank", "zero_sum"):
            # one result for all: won (1) or lost (0); nothing to share out against each other
            won = 1.0 if self.won_together() else 0.0
            return [0.0 if kind == "zero_sum" else won] * n
        if kind == "win":
            winners = set(self.winners())
            return [1 if p in winners else 0 for p in self.lay.seats]
        if kind == "score":
            sign = -1.0 if self.game.score_direction == "lower" else 1.0
            return [sign * s for s in self.scores()]
        places = self.ranking()
        if kind == "rank":
            return [1.0 if n == 1 else (n - place) / (n - 1) for place in places]
        if kind == "zero_sum":
            k = places.count(1)
            share = [1.0 / k if place == 1 else 0.0 for place in places]
            return [s - 1.0 / n for s in share]
        raise ValueError(f"returns: unknown kind '{kind}' (win, rank, zero_sum, score)")

    def apply_action(self, action_id: str) -> None:
        self.apply(action_id)

    def legal_mask(self) -> list:
        """0/1 per id of the layout's fixed action space (``Rulebook.action_space``): 1 where legal."""
        from .spaces import space_of
        return space_of(self.game, self.lay).mask(self.legal_actions())

    def observation(self, viewer: int | None, history: bool = True) -> dict:
        """The state as seat ``viewer`` sees it (``None``: an onlooker); see observe.py
        (``history=False``: without the decisions so far)."""
        return observation(self, viewer, history)

    def observed_variable(self, name: str, viewer: int | None = None):
        """``observation(viewer)["variables"].get(name)``, without making the rest (see observe.py)."""
        return observed_variable(self, name, viewer)

    def observations(self, viewers, history: bool = True) -> dict:
        """``{viewer: observation(viewer, history)}`` for several viewers at once: what every seat
        sees is read once and shared by the dicts (read them, do not change them); see observe.py."""
        return observations(self, tuple(viewers), history)

    def resample(self, seat: int, seed: int):
        """A state ``seat`` cannot tell from this one, drawn from the posterior of what it was
        shown; the generator reseeded (see engine/knowledge/)."""
        from ..knowledge import resample
        return resample(self, seat, seed)

    def recall_notes(self, seat: int) -> list:
        """Where ``resample(seat, …)`` remembers less than ``seat`` could tell from the rules:
        ``[(decisions so far, zone name, why)]``: always [] since resample replays worlds (engine/knowledge/)."""
        from ..knowledge.infosets import recall_notes
        return recall_notes(self, seat)

    def observation_tensor(self, viewer: int) -> dict:
        """Named fixed-shape numpy arrays of what ``viewer`` may see (see interpreter/tensors.py)."""
        from ..knowledge.tensors import observation_tensor
        return observation_tensor(self, viewer)

    def information_state_tensor(self, seat: int) -> dict:
        """The observation tensor of ``seat`` and a summary of the decisions it knows
        of (``history:counts``, ``history:last``; see interpreter/infosets.py)."""
        from ..knowledge.infosets import information_state_tensor
        return information_state_tensor(self, seat)

    def information_state_string(self, seat: int) -> str:
        """What ``seat`` sees now and every decision it knows of, as text (interpreter/infosets.py)."""
        from ..knowledge.infosets import information_state_string
        return information_state_string(self, seat)

    def observation_string(self, viewer: int) -> str:
        """What ``viewer`` may see, as text (see interpreter/tensors.py)."""
        from ..knowledge.tensors import observation_string
        return observation_string(self, viewer)

    def open_scopes(self) -> list:
        """The scopes play is inside, outermost first, as (kind, name): ("round", "round"), ("phase", "take")…"""
        return [(sc.kind, sc.name) for sc in self.scopes]


def public_action_id(game, action_id: str) -> str:
    """``action_id`` as a seat other than the one that chose it is told: its secret
    parameters' values replaced by ``…`` (``GameDef.redact``); all secret: ``name(…)``."""
    name, sep, rest = action_id.partition("(")
    if name in getattr(game, "sealed", ()):     # taken together: nothing of it is told
        return "…"
    info = game.redact.get(name)
    if info is None or not sep:
        return action_id
    names, hidden = info
    if all(n in hidden for n in names):
        return f"{name}(…)"
    body = rest[:-1] if rest.endswith(")") else rest
    parts = []
    at = 0
    for i, pname in enumerate(names):
        key = pname + "="
        if not body.startswith(key, at):
            return f"{name}(…)"                 # not an id of this action: tell nothing
        start = at + len(key)
        end = body.find("," + names[i + 1] + "=", start) if i + 1 < len(names) else len(body)
        if end < 0:
            return f"{name}(…)"
        parts.append(f"{pname}={'…' if pname in hidden else body[start:end]}")
        at = end + 1
    return f"{name}({','.join(parts)})"
