"""``regelwerk serve RULEBOOK [--port P] [--replay LOG]``: play in the browser.

A small JSON API (bottle for routing; the standard library's WSGI server,
bound to 127.0.0.1 only) around one :class:`~interpreter.session.Session`;
the page (``static/``, shipped in the package: no network at run time) draws
the same view data the terminal draws.

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
from ...game import GameSetupError
from ...game import IllegalAction
from ..session import HUMAN, Session, parse_seats
from ..view import build_view
from dsl.diagnostics import RuleRuntimeError

STATIC = Path(__file__).resolve().parent / "static"


class GameServer:
    def __init__(self, rb, session: Session | None = None):
        self.rb = rb
        self.session = session
        self.lock = threading.Lock()
        self.app = bottle.Bottle()
        self._routes()

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
    def _routes(self):
        app = self.app

        def reply(data, status=200):
            bottle.response.status = status
            bottle.response.content_type = "application/json"
            return json.dumps(data)

        def error(message, status=400):
            return reply({"error": message}, status)

        def body() -> dict:
            try:
                data = json.loads(bottle.request.body.read() or b"{}")
            except (ValueError, UnicodeDecodeError):
                return {}
            return data if isinstance(data, dict) else {}

        @app.get("/")
        def index():
            return bottle.static_file("index.html", root=str(STATIC))

        @app.get("/favicon.ico")
        def favicon():
            bottle.response.status = 204
            return ""

        @app.get("/static/<name>")
        def static(name):
            return bottle.static_file(name, root=str(STATIC))

        @app.get("/api/info")
        def api_info():
            return reply(self.info())

        @app.get("/api/state")
        def api_state():
            q = bottle.request.query
            at = q.get("at")
            with self.lock:
                try:
                    return reply(self.payload(q.get("seat"), int(at) if at not in (None, "") else None))
                except ValueError:
                    return error("at and seat take numbers")

        @app.post("/api/new")
        def api_new():
            d = body()
            try:
                players = int(d.get("players", self.rb.game.min_players))
                seed = int(d.get("seed", 0))
                seats = d.get("seats") or [HUMAN]
                if isinstance(seats, list):
                    seats = ",".join(str(x) for x in seats)
                options = {str(k): str(v) for k, v in (d.get("options") or {}).items() if str(v) != ""}
                variants = [str(v) for v in (d.get("variants") or [])]
                parse_seats(str(seats), 1)
                session = Session(self.rb, players, seed, options, variants, str(seats))
            except (ValueError, TypeError, GameSetupError) as exc:
                return error(str(exc))
            except RuleRuntimeError as exc:
                return error(exc.diagnostic().format())
            with self.lock:
                self.session = session
                return reply(self.payload())

        @app.post("/api/act")
        def api_act():
            d = body()
            with self.lock:
                s = self.session
                if s is None:
                    return error("no game: start one")
                if not s.waiting_for_human():
                    return error("no person is to decide now")
                try:
                    s.apply(str(d.get("action", "")))
                except IllegalAction as exc:
                    return error(str(exc))
                except RuleRuntimeError as exc:
                    return error(exc.diagnostic().format(), 500)
                return reply(self.payload())

        @app.post("/api/bot")
        def api_bot():
            with self.lock:
                s = self.session
                if s is None:
                    return error("no game: start one")
                try:
                    s.bot_step()
                except RuleRuntimeError as exc:
                    return error(exc.diagnostic().format(), 500)
                return reply(self.payload(body().get("seat")))

        @app.post("/api/undo")
        def api_undo():
            with self.lock:
                s = self.session
                if s is None or not s.undo():
                    return error("nothing to undo")
                return reply(self.payload())

        @app.get("/api/log")
        def api_log():
            with self.lock:
                s = self.session
                if s is None:
                    return error("no game: start one")
                head = header(self.rb.path, self.rb.path / "x", self.rb.name, s.players, s.seed, s.options,
                              s.variants, s.kinds)
                head["rulebook"] = str(self.rb.path.resolve())   # a download lands anywhere
                lines = [json.dumps(head)] + [json.dumps({"seat": p, "action": a}) for p, a in s.history]
            bottle.response.content_type = "application/x-ndjson"
            name = f"{self.rb.path.resolve().name}-seed{s.seed}.jsonl"
            bottle.response.set_header("Content-Disposition", f'attachment; filename="{name}"')
            return "\n".join(lines) + "\n"


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args):  # no line per request
        pass


class _Threading(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


def make(rb, port: int, session=None):
    """The server (not yet serving) and its address."""
    gs = GameServer(rb, session)
    httpd = make_server("127.0.0.1", port, gs.app, server_class=_Threading, handler_class=_Quiet)
    return httpd, f"http://127.0.0.1:{httpd.server_port}/", gs


def cmd_serve(args) -> int:
    from ...game import Rulebook
    from ..replay import LogProblem, LogProblems, print_problems
    rb = Rulebook.load(args.rulebook)
    session = None
    if args.replay:
        try:
            session = Session.from_log(rb, args.replay)
        except (LogProblems, LogProblem) as exc:
            return print_problems(exc)
    httpd, url, _ = make(rb, args.port, session)
    print(f"Regelwerk: {rb.name} at {url}  (Ctrl-C stops)", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
    return 0
