"""Tables of ``regelwerk serve``: many games at once, a secret link per seat, kept in SQLite.

A :class:`Table` is one game (a :class:`~interpreter.session.Session`) with a
token per seat and one for spectators.  Whoever holds a seat's token is that
seat: the server sends it that seat's view and nothing else (the board through
the observation API, the story with others' secret choices hidden, its own
history as its log); the spectators' token sees what every seat may see.  The
seed is told to nobody before the game is over (with it and the rulebook, the
order of every deck could be worked out).

The :class:`Hall` holds the loaded rulebooks and the tables, writes every
table and decision to the :class:`~.store.Store` before it answers, restores
unfinished tables when the server starts (replaying their decisions; a table
whose rulebook changed since is reported and left as it is), moves bots in
background threads and wakes the live-update streams when a table changes.
"""
from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ...ai.bots import BOTS
from ..gamelog import FORMAT, rulebook_hash
from ...game import GameSetupError, check_names
from ...game import LIMITS
from ...game import IllegalAction
from ..session import HUMAN, Session
from ..view import build_view
from .guard import Refused
from .store import SPECTATORS, Store, TableRecord, effective_history
from dsl.diagnostics import RuleRuntimeError


def state_hash(state) -> str:
    """SHA-256 of the whole state (its JSON form): two states with one hash are the same state."""
    return hashlib.sha256(json.dumps(state.to_json(), sort_keys=True).encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(18)


class Table:
    def __init__(self, rec: TableRecord, rb, session: Session | None, problem: str | None = None):
        self.rec = rec
        self.rb = rb
        self.session = session
        self.problem = problem         # why the table cannot go on (a changed rulebook…), or None
        self.rows = len(rec.decisions)  # decision rows written (acts and undos)
        self.lock = threading.Condition()
        self.version = 0               # grows with every change; live streams wait for it
        self.bots_busy = False
        self._sent: dict = {}           # seat -> the JSON of its payload at this version

    @property
    def id(self) -> str:
        return self.rec.id

    @property
    def over(self) -> bool:
        return self.session is not None and self.session.state.is_terminal()

    def seat_of(self, token: str):
        for seat, t in self.rec.tokens.items():
            if secrets.compare_digest(t, token):
                return seat
        raise KeyError(token)

    def bot_to_move(self) -> bool:
        s = self.session
        return s is not None and not s.state.is_terminal() and not s.is_human(s.state.current_player())

    def changed(self) -> None:
        """Call with the lock held."""
        self.version += 1
        self._sent = {}
        self.lock.notify_all()

    def payload_json(self, seat) -> str:
        """:meth:`payload` of the present as JSON text, made once per change and seat (the live
        streams of a seat's tabs and its own decision's answer share it).  Call with the lock held."""
        text = self._sent.get(seat)
        if text is None:
            text = self._sent[seat] = json.dumps(self.payload(seat))
        return text

    # --- what a seat is sent -----------------------------------------------------------
    def payload(self, seat, asked="auto", at=None) -> dict:
        """The page's data for the holder of ``seat``'s token (None: a spectator).  Once the
        game is over the holder may look as any seat (``asked``)."""
        s = self.session
        over = s.state.is_terminal()
        viewer = seat
        if over and asked != "auto":
            viewer = asked
        n = len(s.history)
        if at is not None and 0 <= at < n:
            view = build_view(s.state_after(at), viewer)
            view["actions"] = []
        else:
            at = n
            view = build_view(s.state, viewer)
            if seat is None or over or s.state.current_player() != seat:
                view["actions"] = []
        rec = self.rec
        game = {
            "view": view, "at": at, "decisions": n, "story": s.tell(s.story, viewer),
            "seats": s.kinds, "seat_names": s.seat_names, "viewer": viewer, "me": seat,
            "player_names": [rec.names.get(i, "") for i in range(len(s.kinds))],
            "players": s.players, "variants": s.variants, "options": s.options,
            "bot_to_move": False,                  # bots move on the server
            "bots_moving": self.bot_to_move(),
            "over": over, "open_view": over,
            "can_undo": self.can_undo(seat) is not None,
            "table": rec.id, "version": self.version}
        if over:
            game["seed"] = s.seed
        return {"info": {"game": self.rb.name, "rulebook": rec.rulebook}, "game": game}

    def log_lines(self, seat) -> tuple[list, bool]:
        """The game log for ``seat``: the whole log once the game is over (``regelwerk replay``
        reads it), before that the seat's own history (others' secret choices as ``…``; no seed)."""
        s = self.session
        over = s.state.is_terminal()
        head = {"format": FORMAT, "rulebook": self.rec.rulebook, "rulebook_sha256": self.rec.sha256,
                "game": self.rb.name, "players": s.players, "options": s.options, "variants": s.variants,
                "seats": s.kinds}
        if over:
            head["seed"] = s.seed
            moves = s.state.history
        else:
            head["view"] = "spectator" if seat is None else seat
            moves = s.state.history_for(seat)
        return [json.dumps(head)] + [json.dumps({"seat": p, "action": a}) for p, a in moves], over

    def can_undo(self, seat):
        """The number of decisions an undo by ``seat`` goes back to, or None: a table that
        allows undo, the seat's own last decision, and no other person decided since."""
        s = self.session
        if not self.rec.undo or seat is None or self.problem or s.state.is_terminal():
            return None
        hist = s.history
        last = max((i for i, (p, _) in enumerate(hist) if p == seat), default=None)
        if last is None or any(s.is_human(p) and p != seat for p, _ in hist[last + 1:]):
            return None
        return last


class Hall:
    """The rulebooks, the tables and the store.  ``rulebooks``: key -> Rulebook."""

    def __init__(self, rulebooks: dict, store: Store, bot_delay: float = 0.3, log=None):
        self.rulebooks = rulebooks
        self.hashes = {key: rulebook_hash(rb.path) for key, rb in rulebooks.items()}
        self.store = store
        self.bot_delay = bot_delay
        self.tables: dict = {}        # id -> Table
        self.tokens: dict = {}        # token -> table id
        self.lock = threading.Lock()
        self.streams = 0
        self.bots = ThreadPoolExecutor(max_workers=2, thread_name_prefix="regelwerk-bots")
        self.log = log or (lambda text: None)

    # --- start-up -------------------------------------------------------------------
    def restore(self) -> list:
        """Load every unfinished table; returns a line per table that cannot go on."""
        problems = []
        for tid in self.store.table_ids(unfinished_only=True):
            table = self._load(tid)
            if table is not None and table.problem:
                problems.append(f"table {tid} ({table.rec.rulebook}): {table.problem}")
            elif table is not None:
                self.kick(table)
        return problems

    def _load(self, tid: str) -> Table | None:
        with self.lock:
            if tid in self.tables:
                return self.tables[tid]
        rec = self.store.load(tid)
        if rec is None:
            return None
        rb = self.rulebooks.get(rec.rulebook)
        session, problem = None, None
        if rb is None:
            problem = f"its rulebook '{rec.rulebook}' is not among the rulebooks this server was started with"
        elif self.hashes[rec.rulebook] != rec.sha256:
            problem = (f"the rulebook changed since the table was made (SHA-256 {rec.sha256[:12]}…, now "
                       f"{self.hashes[rec.rulebook][:12]}…): not replayed; start the server with the old rulebook")
        else:
            try:
                names = [rec.names.get(i, "") for i in range(rec.players)]
                try:
                    check_names(names, rec.players)
                except ValueError:          # a table made before names named the seats: as it was
                    names = None
                session = Session(rb, rec.players, rec.seed, rec.options, rec.variants, rec.kinds, names=names)
                for no, (seat, action) in enumerate(effective_history(rec.decisions)):
                    if session.state.current_player() != seat:
                        raise IllegalAction(f"decision {no + 1} was made by seat {seat}, but seat "
                                            f"{session.state.current_player()} is to decide")
                    session.apply(action)
            except (IllegalAction, RuleRuntimeError, GameSetupError, ValueError) as exc:
                session, problem = None, f"its decisions do not replay: {exc}"
        table = Table(rec, rb, session, problem)
        with self.lock:
            table = self.tables.setdefault(tid, table)
            for token in rec.tokens.values():
                self.tokens[token] = tid
        return table

    # --- finding ------------------------------------------------------------------------
    def find(self, token: str) -> tuple[Table, int | None]:
        """The table and seat (None: a spectator) of a token; Refused(404) for an unknown one."""
        if not isinstance(token, str) or not 10 <= len(token) <= 64:
            raise Refused("no table has this link", 404)
        with self.lock:
            tid = self.tokens.get(token)
        if tid is None:
            tid = self.store.table_of(token)
        table = self._load(tid) if tid is not None else None
        if table is None:
            raise Refused("no table has this link", 404)
        seat = table.seat_of(token)
        if table.problem:
            raise Refused(f"this table cannot go on: {table.problem}", 409)
        return table, (None if seat == SPECTATORS else seat)

    def table(self, tid: str) -> Table:
        if not isinstance(tid, str) or len(tid) > 64:
            raise Refused("no such table", 404)
        table = self._load(tid)
        if table is None:
            raise Refused("no such table", 404)
        return table

    def open_count(self) -> int:
        with self.lock:
            return sum(1 for t in self.tables.values() if t.session is not None and not t.over)

    # --- the lobby --------------------------------------------------------------------------
    def lobby(self) -> dict:
        books = []
        for key, rb in self.rulebooks.items():
            g = rb.game
            books.append({"key": key, "game": g.name, "min_players": g.min_players, "max_players": g.max_players,
                          "variants": sorted(g.variants), "bots": list(BOTS),
                          "options": [{"name": o.name, "default": o.default} for o in g.options.values()]})
        with self.lock:
            tables = list(self.tables.values())
        rows = []
        for t in sorted(tables, key=lambda t: -t.rec.created):
            if t.session is None or t.over or t.rec.hotseat:
                continue
            with t.lock:
                s = t.session
                rows.append({"id": t.id, "rulebook": t.rec.rulebook, "game": t.rb.name, "players": s.players,
                             "decisions": len(s.history), "undo": t.rec.undo,
                             "watch": f"/t/{t.rec.tokens[SPECTATORS]}",
                             "seats": [{"seat": i, "name": s.seat_names[i], "kind": k,
                                        "player": t.rec.names.get(i, ""),
                                        "open": k == HUMAN and i not in t.rec.claimed}
                                       for i, k in enumerate(s.kinds)]})
        return {"rulebooks": books, "tables": rows[:200]}

    # --- making a table ---------------------------------------------------------------------
    def create(self, key: str, players: int, seed: int | None, kinds: list, variants: list, options: dict,
               names: list, undo: bool, hotseat: bool = False) -> Table:
        rb = self.rulebooks.get(key)
        if rb is None:
            raise Refused(f"no rulebook '{key}' here (rulebooks: {', '.join(self.rulebooks)})", 404)
        if self.open_count() >= LIMITS.serve_tables:
            raise Refused(f"this server holds {LIMITS.serve_tables} unfinished tables already "
                          f"(limit 'serve_tables'): finish one first", 429)
        for k in kinds:
            if k != HUMAN and k not in BOTS:
                raise Refused(f"unknown seat '{k}' (seats: human, {', '.join(BOTS)})")
        if seed is None:
            seed = secrets.randbelow(2**31)
        try:
            session = Session(rb, players, seed, options, variants, ",".join(kinds) if kinds else HUMAN,
                              names=[str(x) for x in names[:players]])
        except (ValueError, TypeError, GameSetupError) as exc:
            raise Refused(str(exc)) from None
        except RuleRuntimeError as exc:
            raise Refused(exc.diagnostic().format()) from None
        n = len(session.kinds)
        tokens = {i: new_token() for i in range(n)}
        tokens[SPECTATORS] = new_token()
        rec = TableRecord(secrets.token_hex(6), key, str(Path(rb.path)), self.hashes[key], players, seed,
                          dict(session.options), list(session.variants), list(session.kinds), bool(undo),
                          time.time(), False, tokens,
                          {i: x for i, x in enumerate(names[:n]) if x}, hotseat=hotseat)
        self.store.add_table(rec)
        table = Table(rec, rb, session)
        with self.lock:
            self.tables[rec.id] = table
            for token in tokens.values():
                self.tokens[token] = rec.id
        self.kick(table)
        return table

    def set_aside(self, table: Table) -> None:
        """A hot-seat game replaced by a new one: kept in the store as it was, marked over so it is
        not restored again, and dropped from memory."""
        self.store.set_over(table.id)
        with self.lock:
            self.tables.pop(table.id, None)
            for token in table.rec.tokens.values():
                self.tokens.pop(token, None)

    def links(self, table: Table) -> dict:
        rec = table.rec
        return {"table": rec.id,
                "seats": [{"seat": i, "name": table.session.seat_names[i], "kind": k,
                           "link": f"/t/{rec.tokens[i]}" if k == HUMAN else None}
                          for i, k in enumerate(rec.kinds)],
                "watch": f"/t/{rec.tokens[SPECTATORS]}"}

    def join(self, table: Table, seat: int) -> str:
        """The link of an open (unclaimed human) seat, claimed for the asker."""
        with table.lock:
            if not 0 <= seat < len(table.rec.kinds):
                raise Refused(f"there is no seat {seat}")
            if table.rec.kinds[seat] != HUMAN or seat in table.rec.claimed:
                raise Refused("this seat is not open", 409)
            self.store.claim(table.rec.tokens[seat])
            table.rec.claimed.add(seat)
            table.changed()
            return f"/t/{table.rec.tokens[seat]}"

    def opened(self, table: Table, seat) -> None:
        """The holder of a seat's link opened it: the seat is taken (the lobby stops offering it)."""
        if seat is None or seat in table.rec.claimed:
            return
        with table.lock:
            self.store.claim(table.rec.tokens[seat])
            table.rec.claimed.add(seat)

    # --- playing ----------------------------------------------------------------------------
    def act(self, table: Table, seat, action, at) -> None:
        """Apply ``seat``'s decision if it is to move, ``at`` is the decision count it saw and
        the action is legal; stored before this returns.  Refused otherwise, nothing changed."""
        if seat is None:
            raise Refused("a spectator cannot decide", 403)
        if not isinstance(action, str) or len(action) > 2000:
            raise Refused("'action' must be an action id (text)")
        with table.lock:
            s = table.session
            if s.state.is_terminal():
                raise Refused("the game is over", 409)
            if at != len(s.history):
                raise Refused(f"the table has moved on (decision {len(s.history)}, you saw {at}): "
                              f"look again and decide anew", 409)
            if s.state.current_player() != seat:
                raise Refused(f"it is not your turn: {s.seat_names[s.state.current_player()]} decides now", 409)
            self.apply(table, seat, action)
        self.kick(table)

    def apply(self, table: Table, seat: int, action: str) -> None:
        """With the table's lock: apply ``seat``'s decision, store it, and only then count it as done;
        Refused (nothing changed) for an illegal one."""
        s = table.session
        n = len(s.history)
        try:
            s.apply(action)
        except IllegalAction as exc:
            raise Refused(f"not a legal action now: {exc}") from None
        except RuleRuntimeError as exc:
            s.reset_to(n)
            raise Refused("the rulebook failed on this decision: " + exc.diagnostic().format(), 500) from None
        try:
            self.store.add_decision(table.id, table.rows, seat, action, over=s.state.is_terminal())
        except BaseException:
            s.reset_to(n)
            raise
        table.rows += 1
        table.changed()

    def take_back(self, table: Table, seat, to: int) -> None:
        """With the table's lock: back to the first ``to`` decisions, recorded as an undo by ``seat``."""
        self.store.add_decision(table.id, table.rows, seat, None, undo_to=to)
        table.rows += 1
        table.session.reset_to(to)
        table.changed()

    def undo(self, table: Table, seat, at) -> None:
        with table.lock:
            s = table.session
            if at != len(s.history):
                raise Refused(f"the table has moved on (decision {len(s.history)}, you saw {at})", 409)
            to = table.can_undo(seat)
            if to is None:
                raise Refused("nothing to undo: this table does not allow undo, or you have not decided yet, "
                              "or another person decided since" if table.rec.undo else
                              "this table does not allow undo", 409)
            self.take_back(table, seat, to)
        self.kick(table)

    # --- bots -----------------------------------------------------------------------------
    def kick(self, table: Table) -> None:
        """Let the bots move if one is to (in the background; one runner per table; the hot-seat
        page steps its bots itself)."""
        with table.lock:
            if table.rec.hotseat or table.bots_busy or not table.bot_to_move():
                return
            table.bots_busy = True
        self.bots.submit(self._run_bots, table)

    def _run_bots(self, table: Table) -> None:
        try:
            while True:
                with table.lock:
                    if not table.bot_to_move():
                        table.bots_busy = False
                        return
                    s = table.session
                    seat, seen = s.state.current_player(), len(s.history)
                    state = s.state.clone()
                    bot = s.bots[seat]
                if self.bot_delay:
                    time.sleep(self.bot_delay)
                action = bot.choose(state)          # outside the lock: a bot may think for a while
                with table.lock:
                    if len(s.history) != seen or table.session is not s:
                        continue                     # an undo came in between: look again
                    self.apply(table, seat, action)
        except BaseException as exc:               # a failing bot must not kill the runner silently
            with table.lock:
                table.bots_busy = False
                table.problem = table.problem or f"a bot failed: {exc}"
                table.changed()
            self.log(f"table {table.id}: a bot failed: {exc}")

    def close(self) -> None:
        self.bots.shutdown(wait=False, cancel_futures=True)
