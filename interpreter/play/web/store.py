"""The tables of ``regelwerk serve`` kept in one SQLite file (the standard library's sqlite3, WAL).

Four tables:

``tables``     one row per table: its id, the rulebook's key, folder and SHA-256
               (over its files, as game logs have it), players, seed, options,
               variants, the kind of every seat (``human`` or a bot), whether undo
               is allowed, when it was made, whether it is over, and whether it is
               the hot-seat page's game (every seat at one screen)
``seats``      one row per seat: its token (the secret in the seat's link), the
               player's name, whether someone opened the link (claimed); the
               spectators' token is the row with seat -1
``decisions``  every decision in order: ``(table, no, seat, action)``, or an undo
               ``(table, no, seat, NULL, undo_to)`` which takes the table back to
               its first ``undo_to`` decisions
``held``       the choices made so far in a decision taken together (``together:``):
               ``(table, seat, at, action)``, the choice of ``seat`` when the table
               had ``at`` decisions; each seat's replaces its earlier one, and when
               the last seat has chosen they become decision rows (in seat order,
               one transaction) and their held rows go

A decision is committed before the server acknowledges it, so a crash loses
nothing a player was told had happened; a table is restored by replaying its
decisions from the seed.  Every write is one transaction; one connection is
shared under a lock (the server's threads take turns; SQLite serialises writers
anyway).  ``synchronous=NORMAL`` in WAL mode: a commit survives the process
being killed; after a power cut the last commits may be missing (``--sync full``
makes every commit wait for the disk).
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass, field

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    rulebook TEXT NOT NULL,
    folder TEXT NOT NULL,
    rulebook_sha256 TEXT NOT NULL,
    players INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    options TEXT NOT NULL,
    variants TEXT NOT NULL,
    kinds TEXT NOT NULL,
    undo INTEGER NOT NULL,
    created REAL NOT NULL,
    over INTEGER NOT NULL DEFAULT 0,
    hotseat INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    token TEXT PRIMARY KEY,
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    claimed INTEGER NOT NULL DEFAULT 0,
    UNIQUE (table_id, seat)
);
CREATE TABLE IF NOT EXISTS decisions (
    table_id TEXT NOT NULL REFERENCES tables(id),
    no INTEGER NOT NULL,
    seat INTEGER,
    action TEXT,
    undo_to INTEGER,
    at REAL NOT NULL,
    PRIMARY KEY (table_id, no)
);
CREATE TABLE IF NOT EXISTS held (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    at INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (table_id, seat)
);
"""

SPECTATORS = -1   # the seat number of the spectators' token


@dataclass
class TableRecord:
    id: str
    rulebook: str
    folder: str
    sha256: str
    players: int
    seed: int
    options: dict
    variants: list
    kinds: list
    undo: bool
    created: float
    over: bool
    tokens: dict = field(default_factory=dict)    # seat (SPECTATORS for the watchers) -> token
    names: dict = field(default_factory=dict)     # seat -> player name
    claimed: set = field(default_factory=set)
    decisions: list = field(default_factory=list)  # (seat, action or None, undo_to or None)
    held: dict = field(default_factory=dict)      # seat -> (at, action): held choices as stored (read at restore)
    hotseat: bool = False
    closed: bool = False                          # ended by its creator or by expiry, not played out
    touched: float = 0.0                          # when its last decision was made (0: none)


class StoreProblem(Exception):
    """The database cannot be used (not a database, damaged, read-only, missing folder…): the message
    says which file and what SQLite said."""


class Store:
    def __init__(self, path, sync: str = "normal"):
        self.path = str(path)
        self.sync = sync              # "full": every commit waits for the disk
        self.lock = threading.Lock()
        try:
            self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute(f"PRAGMA synchronous={'FULL' if sync == 'full' else 'NORMAL'}")
            self.db.execute("PRAGMA foreign_keys=ON")
            with self.lock:
                self.db.executescript(SCHEMA)
                cols = {r[1] for r in self.db.execute("PRAGMA table_info(tables)")}
                if "closed" not in cols:      # a file from before tables could be closed
                    self.db.execute("ALTER TABLE tables ADD COLUMN closed INTEGER NOT NULL DEFAULT 0")
                check = self.db.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise sqlite3.DatabaseError(f"the integrity check says: {check}")
        except sqlite3.Error as exc:
            raise StoreProblem(f"{self.path}: cannot use this file as the game database: {exc} "
                               f"(a damaged or read-only file? start with another --db, or restore a backup)") from None

    def creator_key(self) -> str:
        """The creator's key of this database (made once, kept: the creator's link survives restarts)."""
        import secrets
        with self.lock:
            row = self.db.execute("SELECT value FROM meta WHERE name = 'creator_key'").fetchone()
        if row is not None:
            return row[0]
        key = secrets.token_urlsafe(18)
        self._write([("INSERT OR IGNORE INTO meta (name, value) VALUES ('creator_key', ?)", (key,))])
        with self.lock:
            return self.db.execute("SELECT value FROM meta WHERE name = 'creator_key'").fetchone()[0]

    def close(self) -> None:
        with self.lock:
            self.db.close()

    def _write(self, statements) -> None:
        """Run (sql, parameters) pairs as one transaction."""
        with self.lock:
            cur = self.db.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in statements:
                    cur.execute(sql, params)
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            cur.execute("COMMIT")

    # --- writing ------------------------------------------------------------------
    def add_table(self, rec: TableRecord) -> None:
        rows = [("INSERT INTO tables (id, rulebook, folder, rulebook_sha256, players, seed, options, variants, "
                 "kinds, undo, created, over, hotseat) VALUES (?,?,?,?,?,?,?,?,?,?,?,0,?)",
                 (rec.id, rec.rulebook, rec.folder, rec.sha256, rec.players, rec.seed, json.dumps(rec.options),
                  json.dumps(rec.variants), json.dumps(rec.kinds), int(rec.undo), rec.created, int(rec.hotseat)))]
        for seat, token in rec.tokens.items():
            rows.append(("INSERT INTO seats (token, table_id, seat, name) VALUES (?,?,?,?)",
                         (token, rec.id, seat, rec.names.get(seat, ""))))
        self._write(rows)

    def add_decision(self, table_id: str, no: int, seat, action: str | None, undo_to: int | None = None,
                     over: bool = False) -> None:
        rows = [("INSERT INTO decisions (table_id, no, seat, action, undo_to, at) VALUES (?,?,?,?,?,?)",
                 (table_id, no, seat, action, undo_to, time.time()))]
        if over:
            rows.append(("UPDATE tables SET over = 1 WHERE id = ?", (table_id,)))
        self._write(rows)

    def add_decisions(self, table_id: str, no: int, decisions: list, over: bool = False) -> None:
        """The (seat, action) decisions of a decision taken together, numbered from ``no``, in one
        transaction that also drops the table's held choices (they are these decisions now)."""
        now = time.time()
        rows = [("INSERT INTO decisions (table_id, no, seat, action, undo_to, at) VALUES (?,?,?,?,NULL,?)",
                 (table_id, no + k, seat, action, now)) for k, (seat, action) in enumerate(decisions)]
        rows.append(("DELETE FROM held WHERE table_id = ?", (table_id,)))
        if over:
            rows.append(("UPDATE tables SET over = 1 WHERE id = ?", (table_id,)))
        self._write(rows)

    def hold(self, table_id: str, seat: int, at: int, action: str) -> None:
        """``seat``'s choice in the decision taken together at decision ``at`` (replacing its last)."""
        self._write([("INSERT OR REPLACE INTO held (table_id, seat, at, action) VALUES (?,?,?,?)",
                      (table_id, seat, at, action))])

    def drop_held(self, table_id: str) -> None:
        """Forget the table's held choices (an undo took the decision they were for away)."""
        self._write([("DELETE FROM held WHERE table_id = ?", (table_id,))])

    def set_over(self, table_id: str, closed: bool = False) -> None:
        self._write([("UPDATE tables SET over = 1, closed = ? WHERE id = ?", (int(closed), table_id))])

    def claim(self, token: str) -> None:
        self._write([("UPDATE seats SET claimed = 1 WHERE token = ?", (token,))])

    # --- reading ------------------------------------------------------------------
    def table_ids(self, unfinished_only: bool = False) -> list:
        sql = "SELECT id FROM tables" + (" WHERE over = 0" if unfinished_only else "") + " ORDER BY created, id"
        with self.lock:
            return [r[0] for r in self.db.execute(sql)]

    def latest_hotseat(self, rulebook: str) -> str | None:
        """The hot-seat page's unfinished game of ``rulebook`` made last, or None."""
        with self.lock:
            row = self.db.execute("SELECT id FROM tables WHERE hotseat = 1 AND over = 0 AND rulebook = ? "
                                  "ORDER BY created DESC LIMIT 1", (rulebook,)).fetchone()
        return row[0] if row else None

    def table_of(self, token: str) -> str | None:
        with self.lock:
            row = self.db.execute("SELECT table_id FROM seats WHERE token = ?", (token,)).fetchone()
        return row[0] if row else None

    def load(self, table_id: str) -> TableRecord | None:
        with self.lock:
            row = self.db.execute("SELECT id, rulebook, folder, rulebook_sha256, players, seed, options, variants, "
                                  "kinds, undo, created, over, hotseat, closed FROM tables WHERE id = ?",
                                  (table_id,)).fetchone()
            if row is None:
                return None
            seats = self.db.execute("SELECT seat, token, name, claimed FROM seats WHERE table_id = ?",
                                    (table_id,)).fetchall()
            moves = self.db.execute("SELECT seat, action, undo_to, at FROM decisions WHERE table_id = ? ORDER BY no",
                                    (table_id,)).fetchall()
            held = self.db.execute("SELECT seat, at, action FROM held WHERE table_id = ?", (table_id,)).fetchall()
        try:
            options, variants, kinds = (json.loads(row[i]) for i in (6, 7, 8))
        except (ValueError, TypeError) as exc:
            raise ValueError(f"a column of its row is not JSON ({exc})") from None
        rec = TableRecord(row[0], row[1], row[2], row[3], row[4], row[5], options, variants,
                          kinds, bool(row[9]), row[10], bool(row[11]), hotseat=bool(row[12]), closed=bool(row[13]))
        rec.touched = max((m[3] for m in moves), default=0.0)
        moves = [m[:3] for m in moves]
        for seat, token, name, claimed in seats:
            rec.tokens[seat] = token
            if name:
                rec.names[seat] = name
            if claimed:
                rec.claimed.add(seat)
        rec.decisions = [tuple(m) for m in moves]
        rec.held = {seat: (at, action) for seat, at, action in held}
        return rec


def effective_history(decisions) -> list:
    """The (seat, action) decisions that stand after the undos among ``decisions``."""
    out: list = []
    for seat, action, undo_to in decisions:
        if action is None:
            del out[undo_to:]
        else:
            out.append((seat, action))
    return out
