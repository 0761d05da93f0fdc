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
from collections import Counter, deque

import secrets
import threading
import time
from pathlib import Path

from ...ai.bots import BOTS
from ..gamelog import rulebook_hash
from ...game import GameSetupError, check_names, choosing_states
from ...game import LIMITS
from ...game import IllegalAction
from ..session import HUMAN, Session
from ..view.model import ViewCache
from .botqueue import BotQueue
from .guard import Refused
from .held import HeldChoices
from .store import SPECTATORS, Store, TableRecord
from .seatviews import SeatViews
from .updates import BOOT, update_id
from dsl.diagnostics import RuleRuntimeError

# A decision is made on the event loop, not handed to a worker thread, at a table whose decisions are
# known to take less than this (seconds; see Hall.inline).  The hand-off and the worker's fight with
# the event loop for the interpreter's lock cost more than such a decision (docs/serve.md).
INLINE_SECONDS = 0.010


def state_hash(state) -> str:
    """SHA-256 of the whole state (its JSON form): two states with one hash are the same state."""
    return hashlib.sha256(json.dumps(state.to_json(), sort_keys=True).encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(18)


def seen_labels(state, seat, obs: dict | None = None) -> Counter:
    """What ``seat`` sees of the components: the labels it sees in every zone (hidden zones show as
    counts and add nothing), as a multiset, with the random generator's position (a chance value
    drawn since may have been shown) and the variables' values it is shown (which ones, not the
    values: a bid revealed to it is new, its own score changing is not)."""
    seen: Counter = Counter()
    if obs is None:             # (``obs``: its observation of ``state``, history=False, if made already)
        obs = state.observation(seat, history=False)
    for name, shown in obs.get("variables", {}).items():     # a value shown to it that it was not shown before
        for key in (shown if isinstance(shown, dict) else (None,)):
            seen[("variable", name, key)] = 1
    for zone in obs.get("zones", {}).values():
        if isinstance(zone, list):
            seen.update(json.dumps(x, sort_keys=True) if not isinstance(x, str) else x for x in zone)
        elif isinstance(zone, dict):
            for key, value in zone.items():
                if key != "count":
                    seen[f"{key}={json.dumps(value, sort_keys=True)}"] += 1
    seen[("rng", state.rng)] = 1
    return seen


class Table(SeatViews):
    """One game at a table: its seats' tokens, its lock and change count, undo's seals, the choices held
    for a decision taken together; what each seat is sent: :class:`~.seatviews.SeatViews`."""

    def __init__(self, rec: TableRecord, rb, session: Session | None, problem: str | None = None,
                 wake=None):
        self.rec = rec
        self.rb = rb
        self.session = session
        self.problem = problem         # why the table cannot go on (a changed rulebook…), or None
        self.rows = len(rec.decisions)  # decision rows written (acts and undos); only grows, in the store too
        self.lock = threading.Condition()
        self.version = 0               # grows with every change in this run of the server
        self.touched = rec.touched or rec.created   # the last decision (or the making), for expiry
        self.closed = False
        self._sent: dict = {}           # seat -> Sent of this version (the JSON of its payload, and of its change)
        self._last: dict = {}           # seat -> (update, families, story) of the payload it was last made
        self._told: dict = {}           # viewer -> (story list, entries told, everyone?, lines): told once each
        self.views = ViewCache()        # the seats' views are made again only where something changed
        self._wake = wake or (lambda table, *only: None)
        self.watchers: dict = {}        # the live streams' wake-up events (asyncio) -> the seat each sends
        # undo (N6): a seat may not take back a decision made before it last saw something new
        self.sealed: dict = {}          # seat -> decisions it may no longer take back (the first n)
        self._seen: dict = {}           # seat -> seen_labels now
        self.bot_seconds = 0.0          # bot thinking at this table in this run (limit 'serve_bot_seconds')
        self.costs = deque(maxlen=8)    # the work of its last decisions (seconds), for Hall.inline
        # a decision taken together: every seat taking part chooses at once, each choice held (and shown to
        # its seat only) until the last is in; then they are applied in seat order (Hall.hold)
        self.held: dict = {}            # seat -> its action id in the decision taken together now
        self.own: Counter = Counter()   # seat -> changes only it was sent (its held choice): in its update ids
        self._together = (None, None, None)   # (rows and decisions, the state, together()): once per decision
        self._observed = (None, None, {})     # (the state, its decisions and status, {seat: observation}): Table.observed

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
        if s is None or self.closed or self.problem or s.state.is_terminal():
            return False
        together = self.together()
        if together is not None:
            return any(not s.is_human(p) and p not in self.held for p in together)
        return not s.is_human(s.state.current_player())

    def together(self) -> dict | None:
        """``{seat: state at which it decides}`` (``choosing_states``) while a decision taken together
        waits for two or more seats: each of them chooses now, its choice held until the last is in
        (:meth:`Hall.hold`).  None otherwise, and at the hot-seat page (one screen: seat by seat)."""
        s = self.session
        if s is None or self.rec.hotseat or self.closed or self.problem:
            return None
        st = s.state
        key = (self.rows, len(s.history))
        kept = self._together
        if kept[0] != key or kept[1] is not st:        # (the state itself kept: an id could be reused)
            states = choosing_states(st) if st.pending is not None and len(st.pending_seats()) > 1 else {}
            kept = self._together = (key, st, states if len(states) > 1 else None)
        return kept[2]

    def update_id(self, seat=None) -> str:
        """The live-update id of ``seat``'s updates: the server run (``BOOT``), the decision rows ever
        written (they only grow, across restarts too) and this run's change count — the table's and
        the seat's own (its held choice, :meth:`changed_for`), so that no seat's ids count another's
        held choices.  A page takes an update whose rows are more than it saw, or as many and (same
        run) a later change: a restarted server's are new."""
        return update_id(BOOT, self.rows, self.version + self.own[seat])

    def changed(self) -> None:
        """Call with the lock held.  The payloads of the seats whose live streams are open are made
        here, before the streams wake: they find them made (:meth:`ready`) and send them without
        taking a thread."""
        self._sent = {}                 # (before the version: a stream that sees the new one finds no old payload)
        self.version += 1
        self.lock.notify_all()
        if self.watchers:
            if self.session is not None:
                for seat in set(self.watchers.values()):
                    try:
                        self.present(seat)
                    except Exception:   # noqa: BLE001 - the stream makes it again itself and fails there
                        break
            self._wake(self)

    def changed_for(self, seat) -> None:
        """Call with the lock held: a change only ``seat`` is sent (its held choice).  Only its
        payload is made again and only its streams wake: what every other seat is sent, and when,
        does not depend on it."""
        self._sent.pop(seat, None)
        self.own[seat] += 1
        self.lock.notify_all()
        if seat in self.watchers.values():
            self.present(seat)
            self._wake(self, seat)

    def note_seen(self, before: int) -> None:
        """After decisions from ``before`` on: seal, for each person, the decisions made before it saw
        something it had not seen (with the lock held; only at tables that allow undo)."""
        if not self.rec.undo or self.rec.hotseat or self.session is None:
            return                      # (the hot-seat page: every seat at one screen sees it all anyway)
        s = self.session
        n = len(s.history)
        for seat in s.humans():
            now = seen_labels(s.state, seat, self.observed(seat))
            old = self._seen.get(seat)
            if old is not None and (now - old):
                self.sealed[seat] = max(self.sealed.get(seat, 0), n)
            self._seen[seat] = now

    def can_undo(self, seat):
        """The number of decisions an undo by ``seat`` goes back to, or None: a table that
        allows undo, the seat's own last decision, no other person decided since, and the seat
        saw nothing new since it made that decision (a card drawn or revealed to it, a chance
        value: see :meth:`note_seen`) — else undo would let it look and choose again."""
        s = self.session
        if not self.rec.undo or seat is None or self.problem or self.closed or s.state.is_terminal():
            return None
        hist = s.history
        last = max((i for i, (p, _) in enumerate(hist) if p == seat), default=None)
        if last is None or any(s.is_human(p) and p != seat for p, _ in hist[last + 1:]):
            return None
        if last < self.sealed.get(seat, 0):
            return None                  # it saw something new since: taking the decision back would be a peek
        return last


class Hall(HeldChoices):
    """The rulebooks, the tables and the store.  ``rulebooks``: key -> Rulebook.

    In memory: the unfinished tables, and at most ``limits.serve_finished_kept`` finished or
    closed ones (the most recent); any other table is loaded from the store when its link is
    used.  ``key``: the creator's key (in the creator's lobby link): making a table, handing
    out a seat and closing a table need it."""

    def __init__(self, rulebooks: dict, store: Store, bot_delay: float = 0.3, log=None):
        self.rulebooks = rulebooks
        self.hashes = {key: rulebook_hash(rb.path) for key, rb in rulebooks.items()}
        self.store = store
        self.bot_delay = bot_delay
        self.tables: dict = {}        # id -> Table
        self.tokens: dict = {}        # token -> table id
        self.finished: list = []      # ids of finished tables kept in memory, oldest first
        self.lock = threading.RLock()
        self.streams = 0
        self.stopping = False
        self.loop = None              # the event loop of the live streams (set by the first one)
        self.key = store.creator_key()
        self.bots = BotQueue(self._bot_step, bot_delay)
        self.log = log or (lambda text: None)

    # --- live streams ---------------------------------------------------------------
    def _wake(self, table: Table, *only) -> None:
        """Wake the live streams of ``table`` (``only``: of that seat's)."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            events = [e for e, seat in list(table.watchers.items()) if not only or seat == only[0]]
            try:
                loop.call_soon_threadsafe(lambda: [e.set() for e in events])
            except RuntimeError:      # the loop stopped meanwhile
                pass

    def wake_all(self) -> None:
        with self.lock:
            tables = list(self.tables.values())
        for t in tables:
            self._wake(t)

    def check_key(self, key) -> None:
        if not isinstance(key, str) or not secrets.compare_digest(key.encode(), self.key.encode()):
            raise Refused("this needs the creator's link (the lobby address the server printed when it "
                          "started, with its key)", 403)

    # --- start-up -------------------------------------------------------------------
    def restore(self) -> list:
        """Load every unfinished table; returns a line per table that cannot go on."""
        problems = []
        self.restored = 0
        for tid in self.store.table_ids(unfinished_only=True):
            try:
                table = self._load(tid)
            except ValueError as exc:          # a row the store cannot read (not JSON…)
                problems.append(f"table {tid}: its row in the database cannot be read: {exc}")
                continue
            if table is not None and table.problem:
                problems.append(f"table {tid} ({table.rec.rulebook}): {table.problem}")
            elif table is not None:
                self.restored += 1
                self.kick(table)
        self.expire()
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
            except (RuleRuntimeError, GameSetupError, ValueError, TypeError) as exc:
                session, problem = None, f"it cannot be set up again: {exc}"
        table = Table(rec, rb, session, problem, wake=self._wake)
        if session is not None:
            try:
                table.note_seen(0)
                for no, (seat, action, undo_to) in enumerate(rec.decisions):
                    if action is None:
                        session.reset_to(undo_to)
                        for p in table.sealed:
                            table.sealed[p] = min(table.sealed[p], undo_to)
                        table._seen = {}
                        table.note_seen(undo_to)
                        continue
                    if session.state.current_player() != seat:
                        raise IllegalAction(f"decision {no + 1} was made by seat {seat}, but seat "
                                            f"{session.state.current_player()} is to decide")
                    session.apply(action)
                    table.note_seen(len(session.history) - 1)
                self._held_again(table)
            except (IllegalAction, RuleRuntimeError, GameSetupError, ValueError) as exc:
                table.session, table.problem = None, f"its decisions do not replay: {exc}"
            except Refused as exc:
                table.session, table.problem = None, f"its held choices do not apply: {exc.message}"
        table.closed = rec.closed
        with self.lock:
            if tid in self.tables:
                return self.tables[tid]
            self.tables[tid] = table
            for token in rec.tokens.values():
                self.tokens[token] = tid
            if table.over or table.closed or (rec.over and not table.problem):
                self._keep_finished(table)
        return table

    # --- memory ---------------------------------------------------------------------------
    def _keep_finished(self, table: Table) -> None:
        """With the hall's lock: ``table`` is finished (or closed); drop the oldest finished ones
        past ``limits.serve_finished_kept`` from memory (they stay in the store)."""
        if table.id in self.finished:
            return
        self.finished.append(table.id)
        while len(self.finished) > LIMITS.serve_finished_kept:
            self._drop(self.finished.pop(0))

    def _drop(self, tid: str) -> None:
        table = self.tables.pop(tid, None)
        if table is not None:
            for token in table.rec.tokens.values():
                self.tokens.pop(token, None)
            self.bots.forget(table)

    def expire(self, now: float | None = None) -> list:
        """Close every unfinished table nobody touched for ``limits.serve_idle_hours``; their ids."""
        now = time.time() if now is None else now
        cutoff = now - LIMITS.serve_idle_hours * 3600
        with self.lock:
            old = [t for t in self.tables.values()
                   if not t.over and not t.closed and not t.rec.hotseat and t.touched < cutoff]
        for t in old:
            self.close_table(t, "it was idle too long (limit 'serve_idle_hours')")
        return [t.id for t in old]

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
        try:
            seat = table.seat_of(token)
        except KeyError:
            raise Refused("no table has this link", 404) from None
        if table.problem:
            raise Refused(f"this table cannot go on: {table.problem}", 409)
        return table, (None if seat == SPECTATORS else seat)

    def inline(self, token) -> bool:
        """Whether a decision through ``token`` is made on the event loop (no worker thread): its
        table is in memory, all but the slowest of its last 8 decisions took less than
        ``INLINE_SECONDS`` each (one may have met a pass of the cycle collector), and the store
        does not wait for the disk.  Anything else (a table not loaded yet or without decisions in
        this run, a rulebook whose decisions are slow, ``--sync full``) goes to a worker thread,
        so that it cannot hold up every other table."""
        if self.store.sync == "full":
            return False
        with self.lock:
            tid = self.tokens.get(token) if isinstance(token, str) else None
            table = self.tables.get(tid) if tid is not None else None
        if table is None or not table.costs:
            return False
        costs = sorted(table.costs)
        return costs[-2 if len(costs) > 1 else -1] < INLINE_SECONDS

    def table(self, tid: str) -> Table:
        if not isinstance(tid, str) or len(tid) > 64:
            raise Refused("no such table", 404)
        table = self._load(tid)
        if table is None:
            raise Refused("no such table", 404)
        return table

    def open_count(self) -> int:
        with self.lock:
            return sum(1 for t in self.tables.values() if t.session is not None and not t.over and not t.closed)

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
            if t.session is None or t.over or t.closed or t.rec.hotseat:
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
            self.expire()                  # the idle ones make room first
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
        table = Table(rec, rb, session, wake=self._wake)
        table.note_seen(0)
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
            self._drop(table.id)

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

    def close_table(self, table: Table, why: str = "its creator closed it") -> None:
        """End an unfinished table without a result: kept in the store (marked over and closed), its
        links show it as it was, nobody decides any more, its bots stop."""
        with table.lock:
            if table.closed or table.over:
                return
            self.store.set_over(table.id, closed=True)
            table.closed = True
            table.rec.closed = True
            table.changed()
        self.bots.forget(table)
        with self.lock:
            self._keep_finished(table)
        self.log(f"table {table.id} closed: {why}")

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
            if table.closed:
                raise Refused("this table was closed", 409)
            if at != len(s.history):
                raise Refused(f"the table has moved on (decision {len(s.history)}, you saw {at}): "
                              f"look again and decide anew", 409)
            together = table.together()
            if together is not None and seat in together:
                self.hold(table, seat, action)
            elif together is not None:
                raise Refused(f"it is not your turn: {', '.join(s.seat_names[p] for p in together)} "
                              f"choose together now", 409)
            elif s.state.current_player() != seat:
                raise Refused(f"it is not your turn: {s.seat_names[s.state.current_player()]} decides now", 409)
            else:
                self.apply(table, seat, action)
        self.kick(table)

    def apply(self, table: Table, seat: int, action: str) -> None:
        """With the table's lock: apply ``seat``'s decision, store it, and only then count it as done;
        Refused (nothing changed) for an illegal one."""
        s = table.session
        n = len(s.history)
        clock = self.work_clock()
        start = clock()
        try:
            s.apply(action)
        except IllegalAction as exc:
            raise Refused(f"not a legal action now: {exc}") from None
        except RuleRuntimeError as exc:
            s.reset_to(n)
            raise Refused("the rulebook failed on this decision: " + exc.diagnostic().format(), 500) from None
        over = s.state.is_terminal()
        try:
            self.store.add_decision(table.id, table.rows, seat, action, over=over)
        except BaseException:
            s.reset_to(n)
            raise
        self._decided(table, n, 1, clock() - start, over)

    @staticmethod
    def work_clock():
        """The clock a decision's work is timed with: on the event loop (the main thread) the time
        that passes; in a worker thread its own CPU time, not its waits for the interpreter's lock
        (a slower clock)."""
        return time.perf_counter if threading.current_thread() is threading.main_thread() else time.thread_time

    def _decided(self, table: Table, before: int, rows: int, cost: float, over: bool) -> None:
        """With the table's lock, after ``rows`` decisions from ``before`` on were applied and stored:
        count them, seal what the seats saw, tell the streams, note the work (Hall.inline)."""
        table.rows += rows
        table.touched = time.time()
        table.note_seen(before)
        table.changed()
        table.costs.append(cost)
        if over:
            with self.lock:
                self._keep_finished(table)

    def take_back(self, table: Table, seat, to: int) -> None:
        """With the table's lock: back to the first ``to`` decisions, recorded as an undo by ``seat``."""
        self.store.add_decision(table.id, table.rows, seat, None, undo_to=to)
        table.rows += 1
        table.touched = time.time()
        table.session.reset_to(to)
        if table.held:                       # (choices held for a decision the undo takes away)
            self.store.drop_held(table.id)
            table.held = {}
        for p in table.sealed:
            table.sealed[p] = min(table.sealed[p], to)
        table._seen = {}
        table.note_seen(to)
        table.changed()

    def undo(self, table: Table, seat, at) -> None:
        if seat is None:
            raise Refused("a spectator cannot take a decision back", 403)
        with table.lock:
            s = table.session
            if at != len(s.history):
                raise Refused(f"the table has moved on (decision {len(s.history)}, you saw {at})", 409)
            to = table.can_undo(seat)
            if to is None:
                raise Refused("nothing to undo: this table does not allow undo, or you have not decided yet, "
                              "or another person decided since, or you saw something new since (a card drawn "
                              "or shown to you, a chance value)" if table.rec.undo else
                              "this table does not allow undo", 409)
            self.take_back(table, seat, to)
        self.kick(table)

    # --- bots -----------------------------------------------------------------------------
    def kick(self, table: Table) -> None:
        """Let the bots move if one is to (in the background, one decision per job, fairly between
        tables: :mod:`.botqueue`; the hot-seat page steps its bots itself)."""
        with table.lock:
            if table.rec.hotseat or not table.bot_to_move():
                return
        self.bots.add(table)

    def _bot_step(self, table: Table) -> bool:
        """One bot decision at ``table`` (a worker of :class:`BotQueue`); whether a bot is to move again."""
        try:
            with table.lock:
                if not table.bot_to_move() or self.stopping:
                    return False
                s = table.session
                together = table.together()
                if together is not None:     # seats choosing together: a bot chooses at once, told nothing
                    seat = next(p for p in together if not s.is_human(p) and p not in table.held)
                    state = together[seat].clone()
                else:
                    seat = s.state.current_player()
                    state = s.state.clone()
                seen, rows = len(s.history), table.rows
                bot = s.bots[seat]
                tired = table.bot_seconds >= LIMITS.serve_bot_seconds
            start = time.thread_time()
            # outside the lock: a bot may think for a while.  Past the table's budget, the first legal action.
            action = state.legal_actions()[0] if tired else bot.choose(state)
            with table.lock:
                table.bot_seconds += time.thread_time() - start
                if (len(s.history) != seen or table.rows != rows or table.session is not s
                        or not table.bot_to_move()):
                    return table.bot_to_move()     # an undo came in between: look again
                if together is not None:
                    self.hold(table, seat, action)
                else:
                    self.apply(table, seat, action)
                return table.bot_to_move()
        except Refused as exc:
            problem = exc.message
        except Exception as exc:                   # a failing bot must not kill the worker silently
            problem = str(exc)
        with table.lock:
            table.problem = table.problem or f"a bot failed: {problem}"
            table.changed()
        self.log(f"table {table.id}: a bot failed: {problem}")
        return False

    def close(self) -> None:
        self.stopping = True
        self.bots.close()
