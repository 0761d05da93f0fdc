"""Bots of ``regelwerk serve``: a few worker threads shared fairly by every table.

A job is **one** bot decision at one table, never a whole game.  A worker takes,
among the tables whose bot may move now (``--bot-delay`` after the last
decision, without holding a worker while it waits), the one that has used the
least bot time so far (fair queueing: a table of thinking bots waits behind the
quick ones, and cannot starve them).  A table that arrives starts at the least
time of those waiting, so an old busy table does not get all the workers either.
A table's bots have a time budget (``limits.serve_bot_seconds`` of bot thinking
in all); past it the table's bots move by the first legal action, which costs
nothing, so a table of search bots cannot hold a worker for ever.
"""
from __future__ import annotations

import threading
import time


class BotQueue:
    def __init__(self, step, delay: float = 0.0, workers: int = 2):
        """``step(table)`` makes one bot decision at ``table`` and returns whether a bot is to
        move again there."""
        self.step = step
        self.delay = delay
        self.cond = threading.Condition()
        self.ready: dict = {}       # table -> the time its bot may move
        self.spent: dict = {}       # table -> seconds of bot work so far
        self.running: set = set()
        self.stopped = False
        self.threads = [threading.Thread(target=self._work, name=f"regelwerk-bots-{i}", daemon=True)
                        for i in range(workers)]
        for t in self.threads:
            t.start()

    def add(self, table, delay: float | None = None) -> None:
        """Let ``table``'s bot move after ``delay`` seconds (the queue's by default; again after
        each decision while a bot is to move)."""
        delay = self.delay if delay is None else delay
        with self.cond:
            if table in self.running or table in self.ready:
                return
            if table not in self.spent:
                self.spent[table] = min(self.spent.values(), default=0.0)
            self.ready[table] = time.monotonic() + delay
            self.cond.notify()

    def forget(self, table) -> None:
        with self.cond:
            self.ready.pop(table, None)
            if table not in self.running:
                self.spent.pop(table, None)

    def _next(self):
        with self.cond:
            while not self.stopped:
                now = time.monotonic()
                due = [t for t, at in self.ready.items() if at <= now]
                if due:
                    table = min(due, key=lambda t: self.spent[t])
                    del self.ready[table]
                    self.running.add(table)
                    return table
                soonest = min(self.ready.values(), default=None)
                self.cond.wait(None if soonest is None else max(0.001, soonest - now))
            return None

    def _work(self) -> None:
        while True:
            table = self._next()
            if table is None:
                return
            start = time.thread_time()
            again = False
            try:
                again = self.step(table)
            finally:
                with self.cond:
                    self.running.discard(table)
                    self.spent[table] = self.spent.get(table, 0.0) + (time.thread_time() - start)
                    if not again:
                        self.spent.pop(table, None)
            if again:
                self.add(table, self.delay)

    def used(self, table) -> float:
        with self.cond:
            return self.spent.get(table, 0.0)

    def close(self) -> None:
        with self.cond:
            self.stopped = True
            self.ready.clear()
            self.cond.notify_all()
