"""The routes of tables (see :mod:`.tables` and docs/serve.md).

=========================  ============================================================
GET  /lobby                the lobby page
GET  /t/TOKEN              a table's page for the seat (or the spectators) of TOKEN
GET  /api/lobby            the rulebooks and the unfinished tables (open seats, watch links)
POST /api/tables           a new table: ``rulebook``, ``players``, ``seats`` (a kind per
                           seat), ``variants``, ``options``, ``names``, ``undo``, ``seed``;
                           answers every seat's link and the spectators' link
POST /api/tables/ID/join   ``{"seat": S}``: the link of an open seat (it is then taken)
GET  /api/t/TOKEN/state    the seat's view (``?at=N`` time travel; ``?seat=S`` once over)
POST /api/t/TOKEN/act      ``{"action": id, "at": decisions seen}``: the seat's decision
POST /api/t/TOKEN/undo     ``{"at": decisions seen}``: take back the seat's last decision
GET  /api/t/TOKEN/events   live updates (Server-Sent Events: the seat's view on each change)
GET  /api/t/TOKEN/log      the seat's own history; the whole log once the game is over
=========================  ============================================================
"""
from __future__ import annotations

import secrets

import bottle

from ...game import LIMITS
from ..session import HUMAN
from .guard import Refused, json_body, option_map, query_seat, reply, text, text_list, whole

BOOT = secrets.token_hex(4)     # live-update event ids name this run: a restarted server sends all anew


def table_routes(app: bottle.Bottle, hall, static_root) -> None:
    """The routes above on ``app``; the pages are files in ``static_root``."""
    root = str(static_root)

    @app.get("/lobby")
    def lobby_page():
        return bottle.static_file("lobby.html", root=root)

    @app.get("/t/<token>")
    def table_page(token):
        return bottle.static_file("table.html", root=root)

    @app.get("/api/lobby")
    def api_lobby():
        return reply(hall.lobby())

    @app.post("/api/tables")
    def api_create():
        d = json_body()
        key = text(d, "rulebook", next(iter(hall.rulebooks)))
        rb = hall.rulebooks.get(key)
        if rb is None:
            raise Refused(f"no rulebook '{key}' here", 404)
        players = whole(d, "players", rb.game.min_players, 1, 1000)
        seed = None if d.get("seed") in (None, "") else whole(d, "seed")
        kinds = text_list(d, "seats") or [HUMAN]
        names = [x.strip() for x in text_list(d, "names")]
        if any(len(x) > 40 for x in names):
            raise Refused("a player's name has at most 40 characters")
        undo = d.get("undo", False)
        if not isinstance(undo, bool):
            raise Refused("'undo' must be true or false")
        table = hall.create(key, players, seed, kinds, text_list(d, "variants"), option_map(d), names, undo)
        return reply(hall.links(table))

    @app.post("/api/tables/<tid>/join")
    def api_join(tid):
        d = json_body()
        table = hall.table(tid)
        if table.problem or table.session is None:
            raise Refused(f"this table cannot go on: {table.problem}", 409)
        return reply({"link": hall.join(table, whole(d, "seat", None, 0, 1000))})

    def at_of(d):
        if "at" not in d:
            raise Refused("say which decision you saw: 'at' (the number of decisions so far)")
        return whole(d, "at")

    @app.get("/api/t/<token>/state")
    def api_state(token):
        table, seat = hall.find(token)
        hall.opened(table, seat)
        q = bottle.request.query
        at = q.get("at")
        try:
            at = int(at) if at not in (None, "") else None
        except ValueError:
            raise Refused("'at' takes a number") from None
        with table.lock:
            asked = query_seat(q.get("seat"), len(table.session.kinds))
            if (asked == "auto" or not table.over) and at is None:
                bottle.response.content_type = "application/json"
                return table.payload_json(seat)          # the present, as the live stream sends it
            return reply(table.payload(seat, asked, at))

    @app.post("/api/t/<token>/act")
    def api_act(token):
        d = json_body()
        table, seat = hall.find(token)
        hall.act(table, seat, d.get("action"), at_of(d))
        with table.lock:
            bottle.response.content_type = "application/json"
            return table.payload_json(seat)

    @app.post("/api/t/<token>/undo")
    def api_undo(token):
        d = json_body()
        table, seat = hall.find(token)
        hall.undo(table, seat, at_of(d))
        with table.lock:
            return reply(table.payload(seat))

    @app.get("/api/t/<token>/log")
    def api_log(token):
        table, seat = hall.find(token)
        with table.lock:
            lines, over = table.log_lines(seat)
        who = "all" if over else ("spectator" if seat is None else f"seat{seat + 1}")
        bottle.response.content_type = "application/x-ndjson"
        bottle.response.set_header("Content-Disposition",
                                   f'attachment; filename="{table.rec.rulebook}-{table.id}-{who}.jsonl"')
        return "\n".join(lines) + "\n"

    @app.get("/api/t/<token>/events")
    def api_events(token):
        table, seat = hall.find(token)
        with hall.lock:
            if hall.streams >= LIMITS.serve_streams:
                raise Refused(f"too many live connections ({LIMITS.serve_streams}, limit 'serve_streams'): "
                              f"try again later", 503)
            hall.streams += 1
        last = bottle.request.get_header("Last-Event-ID", "")
        seen = int(last.split("-")[1]) if last.startswith(BOOT + "-") and last.split("-")[1].isdigit() else -1
        bottle.response.content_type = "text/event-stream"
        bottle.response.set_header("Cache-Control", "no-cache")
        bottle.response.set_header("X-Accel-Buffering", "no")

        def stream(seen=seen):
            try:
                yield "retry: 2000\n\n"
                while True:
                    with table.lock:
                        if table.version == seen:
                            table.lock.wait(timeout=15)
                        data, over = None, table.over
                        if table.version != seen:
                            seen = table.version
                            data = table.payload_json(seat)
                    yield f"id: {BOOT}-{seen}\ndata: {data}\n\n" if data is not None else ": still here\n\n"
                    if over:
                        return           # a finished game changes no more (the page stops listening)
            finally:
                with hall.lock:
                    hall.streams -= 1
        return stream()
