"""Live updates of a table: Server-Sent Events, one stream per open page, on the event loop.

A stream sends the seat's payload at once (unless ``Last-Event-ID`` names the
table's present update: a reconnect that missed nothing), then again each time
the table changes, and a comment line every 15 s so that proxies keep it open.
When the update it sent last is the one the seat's new payload was made after, it
sends only what changed (``Sent.change``: the families shown as they were become
``{"same": true}``, the story only its new entries, ``base`` the update it applies
to; the page puts the whole back together): where one family of many changes, a
change is a small part of the whole (docs/serve.md has the sizes measured).
An event's id is the table's :meth:`~.tables.Table.update_id`
(``BOOT-ROWS-VERSION``): the decision rows only grow, across restarts too, so
a page that reconnects to a restarted server takes its updates as new.

A stream holds no thread: it waits on an asyncio event that the table's
:meth:`~.tables.Table.changed` sets (from whichever thread changed it), which first makes
the payload of every seat with an open stream, so that the stream sends it from the event loop
(only a payload not made yet is made in a worker thread).  At most
``limits.serve_streams`` streams at once: the slot is taken and given back in
one ``try``/``finally`` around the whole stream, so no request, however bad its
headers, can keep one.
"""
from __future__ import annotations

import asyncio

from starlette.concurrency import run_in_threadpool

from ...game import LIMITS
from .guard import error

KEEPALIVE = 15.0


class EventStream:
    """An ASGI answer: the live updates of ``table`` for the holder of ``seat``'s token."""

    def __init__(self, hall, table, seat, last_id: str):
        self.hall = hall
        self.table = table
        self.seat = seat
        self.last_id = last_id

    async def __call__(self, scope, receive, send):
        hall, table = self.hall, self.table
        if hall.loop is None:
            hall.loop = asyncio.get_running_loop()
        with hall.lock:
            if hall.streams >= LIMITS.serve_streams:
                full = True
            else:
                full = False
                hall.streams += 1
        if full:
            return await error(f"too many live connections ({LIMITS.serve_streams}, limit 'serve_streams'): "
                               f"try again later", 503)(scope, receive, send)
        wake = asyncio.Event()
        gone = asyncio.Event()

        async def watch_disconnect():
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    gone.set()
                    wake.set()
                    return

        watcher = asyncio.ensure_future(watch_disconnect())
        table.watchers[wake] = self.seat
        try:
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"text/event-stream; charset=utf-8"),
                                    (b"cache-control", b"no-cache"), (b"x-accel-buffering", b"no")]})
            await send({"type": "http.response.body", "body": b"retry: 2000\n\n", "more_body": True})
            seen = self.last_id
            while not gone.is_set() and not hall.stopping:
                wake.clear()
                now = table.update_id(self.seat)
                if now != seen:
                    made = table.ready(self.seat)          # made when the table changed: no thread needed
                    if made is None or made.update_id == seen:
                        made = await run_in_threadpool(self._present)
                    # what changed since the update this stream sent last, if that is the one it is from
                    data = made.change if made.base == seen and made.change is not None else made.payload
                    seen, over = made.update_id, made.over
                    await send({"type": "http.response.body", "more_body": True,
                                "body": b"id: %s\ndata: %s\n\n" % (seen.encode(), data)})
                    if over:
                        break           # a finished or closed table changes no more (the page stops listening)
                    continue
                try:
                    await asyncio.wait_for(wake.wait(), KEEPALIVE)
                except asyncio.TimeoutError:
                    await send({"type": "http.response.body", "body": b": still here\n\n", "more_body": True})
            if not gone.is_set():
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass
        finally:
            table.watchers.pop(wake, None)
            watcher.cancel()
            with hall.lock:
                hall.streams -= 1

    def _present(self):
        table = self.table
        with table.lock:
            return table.present(self.seat)
