"""The routes of tables (see :mod:`.tables` and docs/serve.md).

=========================  ============================================================
GET  /lobby                the lobby page
GET  /t/TOKEN              a table's page for the seat (or the spectators) of TOKEN
GET  /api/lobby            the rulebooks and the unfinished tables (open seats, watch links);
                           ``?key=K``: ``"creator": true`` when K is the creator's key
POST /api/tables           a new table: ``key`` (the creator's), ``rulebook``, ``players``,
                           ``seats`` (a kind per seat), ``variants``, ``options``, ``names``,
                           ``undo``, ``seed``; answers every seat's link and the spectators'
POST /api/tables/ID/join   ``{"seat": S, "key": K}``: the link of an open seat (it is then taken)
POST /api/tables/ID/close  ``{"key": K}``: end an unfinished table (kept in the store)
GET  /api/t/TOKEN/state    the seat's view (``?at=N`` time travel; ``?seat=S`` once over)
POST /api/t/TOKEN/act      ``{"action": id, "at": decisions seen, "have": update}``: the seat's decision;
                           the answer is the new payload, as a change from ``have`` (the
                           ``game.update`` of the page's last live update) when it can be
POST /api/t/TOKEN/undo     ``{"at": decisions seen}``: take back the seat's last decision
GET  /api/t/TOKEN/events   live updates (Server-Sent Events: the seat's view on each change)
GET  /api/t/TOKEN/log      the seat's own history; the whole log once the game is over
=========================  ============================================================
"""
from __future__ import annotations

from starlette.responses import FileResponse, Response
from starlette.routing import Route

from ..session import HUMAN
from .events import EventStream
from .updates import update_id
from .guard import Refused, endpoint, json_text, option_map, query_seat, reply, text, text_list, whole


def table_routes(hall, static_root) -> list:
    """The routes above; the pages are files in ``static_root``."""
    root = static_root

    def lobby_page(request, _):
        return FileResponse(root / "lobby.html")

    def table_page(request, _):
        return FileResponse(root / "table.html")

    def api_lobby(request, _):
        out = hall.lobby()
        key = request.query_params.get("key")
        if key is not None:
            try:
                hall.check_key(key)
                out["creator"] = True
            except Refused:
                out["creator"] = False
        return out

    def api_create(request, d):
        hall.check_key(d.get("key"))
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
        return hall.links(table)

    def api_join(request, d):
        hall.check_key(d.get("key"))
        table = hall.table(request.path_params["tid"])
        if table.problem or table.session is None:
            raise Refused(f"this table cannot go on: {table.problem}", 409)
        return {"link": hall.join(table, whole(d, "seat", None, 0, 1000))}

    def api_close(request, d):
        hall.check_key(d.get("key"))
        table = hall.table(request.path_params["tid"])
        if table.session is None or table.over or table.closed:
            raise Refused("this table is over or closed already", 409)
        hall.close_table(table)
        return {"closed": table.id}

    def at_of(d):
        if "at" not in d:
            raise Refused("say which decision you saw: 'at' (the number of decisions so far)")
        return whole(d, "at")

    def api_state(request, _):
        table, seat = hall.find(request.path_params["token"])
        hall.opened(table, seat)
        q = request.query_params
        at = q.get("at")
        try:
            at = int(at) if at not in (None, "") else None
        except ValueError:
            raise Refused("'at' takes a number") from None
        with table.lock:
            asked = query_seat(q.get("seat"), len(table.session.kinds))
            if (asked == "auto" or not table.over) and at is None:
                return json_text(table.payload_json(seat))        # the present, as the live stream sends it
            return reply(table.payload(seat, asked, at))

    def have_of(d):
        """``have``: the update the page has (``game.update`` of its last live update), or None."""
        have = d.get("have")
        if have is None:
            return None
        if (not isinstance(have, dict) or not isinstance(have.get("boot"), str) or len(have["boot"]) > 64
                or any(not isinstance(have.get(k), int) or isinstance(have.get(k), bool) for k in ("rows", "n"))):
            raise Refused("'have' must be the update the page has: {\"boot\": text, \"rows\": number, \"n\": number}")
        return update_id(have["boot"], have["rows"], have["n"])

    def api_act(request, d):
        table, seat = hall.find(request.path_params["token"])
        have = have_of(d)
        hall.act(table, seat, d.get("action"), at_of(d))
        with table.lock:
            made = table.present(seat)
        # the answer as a change from the update the page has (as a live update would send it), else whole
        return json_text(made.change if have is not None and made.base == have and made.change is not None
                         else made.payload)

    def in_thread(request) -> bool:
        """A decision at a table whose decisions are quick is made on the event loop (Hall.inline)."""
        return not hall.inline(request.path_params["token"])

    def api_undo(request, d):
        table, seat = hall.find(request.path_params["token"])
        hall.undo(table, seat, at_of(d))
        with table.lock:
            return json_text(table.payload_json(seat))

    def api_log(request, _):
        table, seat = hall.find(request.path_params["token"])
        with table.lock:
            lines, over = table.log_lines(seat)
        who = "all" if over else ("spectator" if seat is None else f"seat{seat + 1}")
        return Response("\n".join(lines) + "\n", media_type="application/x-ndjson", headers={
            "Content-Disposition": f'attachment; filename="{table.rec.rulebook}-{table.id}-{who}.jsonl"'})

    def api_events(request, _):
        table, seat = hall.find(request.path_params["token"])
        last = request.headers.get("last-event-id", "")     # any text (latin-1): compared, never parsed
        return EventStream(hall, table, seat, last[:200])

    return [
        Route("/lobby", endpoint(lobby_page, threaded=False)),
        Route("/t/{token}", endpoint(table_page, threaded=False)),
        Route("/api/lobby", endpoint(api_lobby)),
        Route("/api/tables", endpoint(api_create, body=True), methods=["POST"]),
        Route("/api/tables/{tid}/join", endpoint(api_join, body=True), methods=["POST"]),
        Route("/api/tables/{tid}/close", endpoint(api_close, body=True), methods=["POST"]),
        Route("/api/t/{token}/state", endpoint(api_state)),
        Route("/api/t/{token}/act", endpoint(api_act, body=True, threaded=in_thread), methods=["POST"]),
        Route("/api/t/{token}/undo", endpoint(api_undo, body=True), methods=["POST"]),
        Route("/api/t/{token}/log", endpoint(api_log)),
        Route("/api/t/{token}/events", endpoint(api_events)),
    ]
