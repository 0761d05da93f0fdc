"""A game being played by people and bots: seats, history, undo, the log.

Used by terminal play (:mod:`.tui`) and browser play (:mod:`.web`).  A seat
is ``human`` or a bot's name from :data:`interpreter.bots.BOTS`.  The state
is never edited by hand: undo replays the remaining decisions from the seed,
so an undone game is exactly a game that was played that way.
"""
from __future__ import annotations

from ..ai.bots import BOTS, split_names
from .gamelog import header, write_log
from .narrate import Narrator

HUMAN = "human"


def parse_seats(spec: str | None, seats: int) -> list:
    """'human,random' -> a kind per seat (the last one repeats); ValueError for an unknown name."""
    names = split_names(spec)
    for n in names:
        if n != HUMAN and n not in BOTS:
            raise ValueError(f"unknown seat '{n}' (seats: human, {', '.join(BOTS)})")
    return [names[min(i, len(names) - 1)] for i in range(seats)]


class Session:
    def __init__(self, rb, players: int, seed: int = 0, options=None, variants=(), seats: str | list = "human",
                 names=None):
        self.rb = rb
        self.players = players
        self.seed = seed
        self.options = dict(options or {})
        self.variants = list(variants)
        #: people's names for the seats, in seat order ("Ann,Bob": --names, the page), or None
        self.names = list(names) if names else None
        self.state = rb.new_game(players, seed, self.options, self.variants, names=self.names)
        n = self.state.lay.num_seats
        self.kinds = parse_seats(seats, n) if isinstance(seats, str) else list(seats)
        self.bots = {i: BOTS[k](seed, i) for i, k in enumerate(self.kinds) if k != HUMAN}
        self.history: list = []  # (seat, action id)
        self.story: list = []    # the narration so far: text lines and (seat, action) decisions
        self.narrator = Narrator(self.state)

    @classmethod
    def from_log(cls, rb, path, seats: str | None = None, complete_lines: bool = False) -> "Session":
        """The game of a log, ready to go on (seats as written unless ``seats`` is given; a bot this
        installation lacks plays randomly).  Raises LogProblem / LogProblems for a bad log or a log
        of another rulebook."""
        from dsl.diagnostics import RuleRuntimeError
        from .replay import LogProblem, replay_log
        from ..game import IllegalAction
        done = replay_log(path, complete_lines=complete_lines)
        log = done.log
        if seats is None:
            seats = ",".join(k if (k == HUMAN or k in BOTS) else "random" for k in log.seats) or "random"
        session = cls(rb, log.players, log.seed, log.options, log.variants, seats, names=log.names)
        for no, _, action in log.actions:
            try:
                session.apply(action)
            except (IllegalAction, RuleRuntimeError) as exc:
                raise LogProblem(log.path, no, f"this log is not a game of {rb.path}: {exc}") from None
        return session

    # --- queries --------------------------------------------------------------
    @property
    def seat_names(self) -> list:
        return list(self.state.lay.seat_names)

    def is_human(self, seat) -> bool:
        return seat is not None and self.kinds[seat] == HUMAN

    def humans(self) -> list:
        return [i for i, k in enumerate(self.kinds) if k == HUMAN]

    def waiting_for_human(self) -> bool:
        st = self.state
        return not st.is_terminal() and self.is_human(st.current_player())

    # --- playing --------------------------------------------------------------
    def apply(self, action: str) -> list:
        """Apply one decision of the seat to move; return the new entries of the story
        (text lines and (seat, action) pairs: see :meth:`tell`)."""
        st = self.state
        seat = st.current_player()
        if action not in st.legal_actions():
            st.apply_action(action)       # raises IllegalAction; the state is unchanged
        entries = self.narrator.lines_before(st) + [(seat, action)]
        st.apply_action(action)
        self.history.append((seat, action))
        entries += self.narrator.lines_after(st, (seat, action))
        entries += self.narrator.ending(st)
        self.story += entries
        return entries

    def tell(self, entries, viewer) -> list:
        """The story ``entries`` as lines for ``viewer``: secret choices of others stay secret,
        unless nobody plays (bots only) or the game is over."""
        everyone = not self.humans() or self.state.is_terminal()
        return [e if isinstance(e, str) else self.narrator.decision(e[0], e[1], viewer, everyone) for e in entries]

    def bot_step(self) -> list | None:
        """One bot decision if a bot is to move; None otherwise."""
        st = self.state
        if st.is_terminal() or self.is_human(st.current_player()):
            return None
        seat = st.current_player()
        return self.apply(self.bots[seat].choose(st))

    def run_bots(self) -> list:
        lines = []
        while True:
            step = self.bot_step()
            if step is None:
                return lines
            lines += step

    def undo(self) -> bool:
        """Back to the last decision a person made (it and everything after are taken back)."""
        last = max((i for i, (seat, _) in enumerate(self.history) if self.is_human(seat)), default=None)
        if last is None:
            return False
        self.reset_to(last)
        return True

    def reset_to(self, n: int) -> None:
        """Replay the first ``n`` decisions from the seed (used by undo and time travel)."""
        kept = self.history[:n]
        self.state = self.rb.new_game(self.players, self.seed, self.options, self.variants, names=self.names)
        self.history = []
        self.story = []
        self.narrator = Narrator(self.state)
        for _, action in kept:
            self.apply(action)

    def state_after(self, n: int):
        """A fresh state after the first ``n`` decisions (the session is not changed)."""
        st = self.rb.new_game(self.players, self.seed, self.options, self.variants, names=self.names)
        for _, action in self.history[:n]:
            st.apply_action(action)
        return st

    # --- the log -------------------------------------------------------------------
    def log_header(self, log_path) -> dict:
        return header(self.rb.path, log_path, self.rb.name, self.players, self.seed, self.options,
                      self.variants, self.kinds, self.names)

    def save(self, path) -> None:
        write_log(path, self.log_header(path), self.history)
