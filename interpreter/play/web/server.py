"""``regelwerk serve RULEBOOK… [--db PATH] [--host H] [--port P] [--replay LOG]``: play in the browser.

Two kinds of play, on one server (bottle for routing; the standard library's
threaded WSGI server, bound to 127.0.0.1 unless ``--host`` says otherwise):

* **Tables** (:mod:`.tableapi`, :mod:`.tables`): a lobby (``/lobby``) lists the
  rulebooks and open tables; a table has a secret link per seat and one for
  spectators, live updates, bots moving on the server, and every decision kept in
  SQLite (:mod:`.store`).  See docs/serve.md.
* **The hot-seat page** (``/`` when one rulebook is served): one game, every
  seat at one screen (a table of the store too, see :class:`GameServer`):

====================  ======================================================
GET  /                the page
GET  /api/info        the game: player counts, variants, options, bots
POST /api/new         a new game: players, seed, seats, variants, options
GET  /api/state       the view for the person to move (``?at=N``: after N
                      decisions, for time travel; ``?seat=S``: as seat S,
                      allowed once the game is over or when nobody plays)
POST /api/act         a person's decision ``{"action": id}``
POST /api/bot         one bot decision (the page shows bots step by step)
POST /api/undo        back to the last decision a person made
GET  /api/log         the game log (JSON lines; ``regelwerk replay`` reads it)
====================  ======================================================

Every request passes :mod:`.guard` first (Host, Origin, JSON bodies, sizes).
The pages draw every text with the DOM's text nodes, never as HTML.
"""
from __future__ import annotations

import json
import socketserver
import sys
import threading
from pathlib import Path
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import bottle

from ...ai.bots import BOTS
from ..gamelog import header
from ...game import LIMITS, GameSetupError
from ...game import IllegalAction
from ...userstate import serve_db
from ..session import HUMAN, Session, parse_seats
from ..view import build_view
from .images import image_routes
from .guard import Refused, install, json_body, option_map, query_seat, reply, text, text_list, whole
from .tableapi import table_routes
from dsl.diagnostics import RuleRuntimeError

STATIC = Path(__file__).resolve().parent / "static"


class GameServer:
    """The hot-seat page's game.  With a :class:`~.tables.Hall` its game is a table of the store
    (made by ``/api/new``, every decision and undo written before the answer, the last unfinished
    one opened again when the server starts); without one (or for a log opened with ``--replay``)
    it lives in memory."""

    def __init__(self, rb, session: Session | None = None, hall=None, key: str | None = None):
        self.rb = rb
        self.hall = hall
        self.key = key
        self.table = None
        self._session = session
        self._lock = threading.Lock()
        if session is None and hall is not None:
            tid = hall.store.latest_hotseat(key)
            table = hall.table(tid) if tid is not None else None
            if table is not None and table.session is not None and not table.problem:
                self.table = table

    @property
    def session(self) -> Session | None:
        return self.table.session if self.table is not None else self._session

    @property
    def lock(self):
        return self.table.lock if self.table is not None else self._lock

    # --- helpers ------------------------------------------------------------------
    def info(self) -> dict:
        g = self.rb.game
        return {"game": g.name, "min_players": g.min_players, "max_players": g.max_players,
                "variants": sorted(g.variants), "bots": list(BOTS), "seat_kinds": [HUMAN] + list(BOTS),
                "options": [{"name": o.name, "default": o.default} for o in g.options.values()]}

    def viewer(self, s: Session, asked):
        """Whose view the page shows: the person to move (or the last one), or any seat once that hides
        nothing from a person (the game is over, or only bots play)."""
        open_view = s.state.is_terminal() or not s.humans()
        if asked not in (None, "", "auto"):
            seat = None if asked == "none" else int(asked)
            if open_view:
                return seat
        st = s.state
        if not st.is_terminal() and s.is_human(st.current_player()):
            return st.current_player()
        humans = s.humans()
        if len(humans) == 1:
            return humans[0]
        last = next((seat for seat, _ in reversed(s.history) if s.is_human(seat)), None)
        return last if not open_view else None

    def payload(self, asked_seat=None, at=None) -> dict:
        s = self.session
        if s is None:
            return {"info": self.info(), "game": None}
        n = len(s.history)
        seat = self.viewer(s, asked_seat)
        if at is not None and 0 <= at < n:
            st = s.state_after(at)
            view = build_view(st, seat)
            view["actions"] = []              # the past is for looking at
            story = s.tell(s.story, seat)      # the whole story; the page marks decision `at`
        else:
            at = n
            view = build_view(s.state, seat)
            if seat is None or not s.is_human(seat) or s.state.current_player() != seat:
                view["actions"] = []
            story = s.tell(s.story, seat)
        return {"info": self.info(), "game": {
            "view": view, "at": at, "decisions": n, "story": story,
            "seats": s.kinds, "seat_names": s.seat_names, "viewer": seat,
            "players": s.players, "seed": s.seed, "variants": s.variants, "options": s.options,
            "bot_to_move": (not s.state.is_terminal()) and not s.is_human(s.state.current_player()),
            "over": s.state.is_terminal(), "can_undo": any(s.is_human(p) for p, _ in s.history),
            "open_view": s.state.is_terminal() or not s.humans()}}

    # --- routes ---------------------------------------------------------------------
    def routes(self, app: bottle.Bottle) -> None:
        """The hot-seat page and its API on ``app`` (behind :func:`.guard.install`)."""

        def error(message, status=400):
            return reply({"error": message}, status)

        def seat_of(value):
            """``?seat=`` / ``"seat"`` checked (a seat number in range, 'none', 'auto' or nothing)."""
            if isinstance(value, bool) or not isinstance(value, (str, int, type(None))):
                raise Refused("'seat' must be a seat number, 'none' or 'auto'")
            query_seat(str(value) if isinstance(value, int) else value,
                       len(self.session.kinds) if self.session is not None else 0)
            return value

        @app.get("/")
        def index():
            return bottle.static_file("index.html", root=str(STATIC))

        @app.get("/api/info")
        def api_info():
            return reply(self.info())

        @app.get("/api/state")
        def api_state():
            q = bottle.request.query
            at = q.get("at")
            with self.lock:
                try:
                    at = int(at) if at not in (None, "") else None
                except ValueError:
                    return error("'at' takes a number")
                return reply(self.payload(seat_of(q.get("seat")), at))

        @app.post("/api/new")
        def api_new():
            d = json_body()
            players = whole(d, "players", self.rb.game.min_players, 1, 1000)
            seed = whole(d, "seed", 0)
            seats = ",".join(text_list(d, "seats")) or HUMAN
            options = option_map(d)
            variants = text_list(d, "variants")
            names = text_list(d, "names")           # people's names for the seats ("" keeps "Player n")
            try:
                parse_seats(seats, 1)
            except ValueError as exc:
                return error(str(exc))
            if self.hall is not None:
                try:
                    table = self.hall.create(self.key, players, seed, seats.split(","), variants, options, names,
                                             undo=True, hotseat=True)
                except ValueError as exc:
                    return error(str(exc))
                old, self.table = self.table, table
                if old is not None:
                    self.hall.set_aside(old)
                with self.lock:
                    return reply(self.payload())
            try:
                session = Session(self.rb, players, seed, options, variants, seats, names=names)
            except (ValueError, TypeError, GameSetupError) as exc:
                return error(str(exc))
            except RuleRuntimeError as exc:
                return error(exc.diagnostic().format())
            with self.lock:
                self._session = session
                return reply(self.payload())

        @app.post("/api/act")
        def api_act():
            d = json_body()
            action = text(d, "action", "", 2000)
            with self.lock:
                s = self.session
                if s is None:
                    return error("no game: start one", 409)
                if not s.waiting_for_human():
                    return error("no person is to decide now", 409)
                if self.table is not None:
                    self.hall.apply(self.table, s.state.current_player(), action)
                    return reply(self.payload())
                try:
                    s.apply(action)
                except IllegalAction as exc:
                    return error(str(exc))
                except RuleRuntimeError as exc:
                    return error(exc.diagnostic().format(), 500)
                return reply(self.payload())

        @app.post("/api/bot")
        def api_bot():
            d = json_body()
            with self.lock:
                s = self.session
                if s is None:
                    return error("no game: start one", 409)
                seat = seat_of(d.get("seat"))
                try:
                    if self.table is not None:
                        if not s.state.is_terminal() and not s.is_human(s.state.current_player()):
                            who = s.state.current_player()
                            self.hall.apply(self.table, who, s.bots[who].choose(s.state))
                    else:
                        s.bot_step()
                except RuleRuntimeError as exc:
                    return error(exc.diagnostic().format(), 500)
                return reply(self.payload(seat))

        @app.post("/api/undo")
        def api_undo():
            json_body()
            with self.lock:
                s = self.session
                last = None if s is None else max((i for i, (p, _) in enumerate(s.history) if s.is_human(p)),
                                                  default=None)
                if last is None:
                    return error("nothing to undo", 409)
                if self.table is not None:
                    self.hall.take_back(self.table, s.history[last][0], last)
                else:
                    s.reset_to(last)
                return reply(self.payload())

        @app.get("/api/log")
        def api_log():
            with self.lock:
                s = self.session
                if s is None:
                    return error("no game: start one", 409)
                head = header(self.rb.path, self.rb.path / "x", self.rb.name, s.players, s.seed, s.options,
                              s.variants, s.kinds)
                head["rulebook"] = str(self.rb.path.resolve())   # a download lands anywhere
                lines = [json.dumps(head)] + [json.dumps({"seat": p, "action": a}) for p, a in s.history]
            bottle.response.content_type = "application/x-ndjson"
            name = f"{self.rb.path.resolve().name}-seed{s.seed}.jsonl"
            bottle.response.set_header("Content-Disposition", f'attachment; filename="{name}"')
            return "\n".join(lines) + "\n"


class _Quiet(WSGIRequestHandler):
    timeout = 30                   # a client that sends nothing does not hold its thread for ever

    def log_message(self, *args):  # no line per request
        pass


_BUSY = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
         b'{"error": "the server holds as many connections as it may (limit \'serve_connections\'): try again"}')


class _Threading(socketserver.ThreadingMixIn, WSGIServer):
    """A thread per connection, at most ``limits.serve_connections`` at once (more get a 503)."""
    daemon_threads = True
    request_queue_size = 128

    def server_activate(self):
        super().server_activate()
        self.active = 0
        self.counting = threading.Lock()

    def process_request(self, request, client_address):
        with self.counting:
            full = self.active >= LIMITS.serve_connections
            if not full:
                self.active += 1
        if full:
            try:
                request.sendall(_BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self.counting:
                self.active -= 1


def rulebook_keys(rulebooks) -> dict:
    """key (the folder's name; -2, -3… for a second folder of the same name) -> Rulebook."""
    out = {}
    for rb in rulebooks:
        key = Path(rb.path).resolve().name
        n = 2
        while key in out:
            key = f"{Path(rb.path).resolve().name}-{n}"
            n += 1
        out[key] = rb
    return out


def build_app(hall, hotseat: GameServer | None, allowed_hosts: set) -> bottle.Bottle:
    app = bottle.Bottle()
    if hotseat is not None:
        hotseat.routes(app)
    else:
        @app.get("/")
        def root():
            return bottle.redirect("/lobby")

    @app.get("/favicon.ico")
    def favicon():
        bottle.response.status = 204
        return ""

    @app.get("/static/<name>")
    def static(name):
        return bottle.static_file(name, root=str(STATIC))

    table_routes(app, hall, STATIC)
    image_routes(app, hall.rulebooks.values())
    install(app, allowed_hosts)
    return app


def make(rulebooks, port: int, session=None, db=None, host: str = "127.0.0.1", allow_hosts=(),
         bot_delay: float = 0.3, sync: str = "normal"):
    """The server (not yet serving), its address and the hot-seat GameServer (None with several
    rulebooks).  ``rulebooks``: one Rulebook or a list; ``db``: the SQLite file (None: in memory)."""
    from .store import Store
    from .tables import Hall
    if not isinstance(rulebooks, (list, tuple)):
        rulebooks = [rulebooks]
    books = rulebook_keys(rulebooks)
    store = Store(db if db is not None else ":memory:", sync)
    hall = Hall(books, store, bot_delay, log=lambda text: print(text, file=sys.stderr, flush=True))
    hall.problems = hall.restore()
    gs = GameServer(rulebooks[0], session, hall, next(iter(books))) if len(rulebooks) == 1 else None
    allowed = {host.lower(), *(h.lower() for h in allow_hosts)}
    app = build_app(hall, gs, allowed)
    httpd = make_server(host, port, app, server_class=_Threading, handler_class=_Quiet)
    shown = host if ":" not in host else f"[{host}]"
    if host in ("0.0.0.0", "::"):
        shown = "127.0.0.1"
    httpd.hall = hall
    return httpd, f"http://{shown}:{httpd.server_port}/", gs


def cmd_serve(args) -> int:
    from ...game import Rulebook
    from ..replay import LogProblem, LogProblems, print_problems
    rulebooks = [Rulebook.load(p) for p in args.rulebook]
    session = None
    if args.replay:
        if len(rulebooks) != 1:
            print("regelwerk: error: --replay opens a log of one rulebook: name only that one", file=sys.stderr)
            return 2
        try:
            session = Session.from_log(rulebooks[0], args.replay)
        except (LogProblems, LogProblem) as exc:
            return print_problems(exc)
    db = Path(args.db) if args.db else serve_db()      # never the current folder (interpreter/userstate.py)
    db.parent.mkdir(parents=True, exist_ok=True)
    try:
        httpd, url, gs = make(rulebooks, args.port, session, db, args.host, args.allow_host or (),
                              args.bot_delay, args.sync)
    except OSError as exc:
        print(f"regelwerk: error: cannot serve on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    hall = httpd.hall
    for line in hall.problems:
        print(f"regelwerk: warning: {line}", file=sys.stderr, flush=True)
    names = ", ".join(rb.name for rb in rulebooks)
    where = ("only this computer can connect (--host 0.0.0.0 opens it to the network)"
             if args.host in ("127.0.0.1", "localhost", "::1") else
             f"listening on {args.host}: every computer that reaches it can connect")
    print(f"Regelwerk: {names} at {url}  (Ctrl-C stops)", flush=True)
    print(f"  lobby {url}lobby · {where} · games kept in {db}"
          f" ({len(hall.tables)} unfinished table(s) restored)", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
        hall.close()
    return 0
