"""``regelwerk serve RULEBOOK… [--db PATH] [--host H] [--port P] [--replay LOG]``: play in the browser.

Two kinds of play, on one server (Starlette for routing, on uvicorn: :mod:`.httpserver`;
bound to 127.0.0.1 unless ``--host`` says otherwise):

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

Every request passes :mod:`.guard` first (Host, Origin, JSON bodies, sizes, headers).
The pages draw every text with the DOM's text nodes, never as HTML.
"""
from __future__ import annotations

import gc
import json
import secrets
import sys
import threading
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import Route

from ...ai.bots import BOTS
from ..gamelog import header
from ...game import GameSetupError
from ...game import IllegalAction
from ...userstate import serve_db
from ..session import HUMAN, Session, parse_seats
from ..view import build_view
from ..view.model import ViewCache
from .guard import Guard, Refused, endpoint, error, option_map, query_seat, text, text_list, whole
from .images import image_routes
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
        self.views = ViewCache()         # views made again only where something changed (any game it shows)
        self._lock = threading.Lock()
        # every hot-seat request holds the gate: /api/new replaces the table that /api/act would use (N7)
        self.gate = threading.RLock()
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
    @staticmethod
    def hides_nothing(s: Session) -> bool:
        """Whether the seed and the whole log may be shown: the game is over, or only bots play."""
        return s.state.is_terminal() or not s.humans()

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
            view = build_view(st, seat, self.views)
            view["actions"] = []              # the past is for looking at
            story = s.tell(s.story, seat)      # the whole story; the page marks decision `at`
        else:
            at = n
            view = build_view(s.state, seat, self.views)
            if seat is None or not s.is_human(seat) or s.state.current_player() != seat:
                view["actions"] = []
            story = s.tell(s.story, seat)
        return {"info": self.info(), "game": {
            "view": view, "at": at, "decisions": n, "story": story,
            "seats": s.kinds, "seat_names": s.seat_names, "viewer": seat,
            "players": s.players, "seed": s.seed if self.hides_nothing(s) else None,
            "variants": s.variants, "options": s.options,
            "bot_to_move": (not s.state.is_terminal()) and not s.is_human(s.state.current_player()),
            "over": s.state.is_terminal(), "can_undo": any(s.is_human(p) for p, _ in s.history),
            "open_view": s.state.is_terminal() or not s.humans()}}

    # --- routes ---------------------------------------------------------------------
    def routes(self) -> list:
        """The hot-seat page and its API (behind :class:`.guard.Guard`)."""

        def seat_of(value):
            """``?seat=`` / ``"seat"`` checked (a seat number in range, 'none', 'auto' or nothing)."""
            if isinstance(value, bool) or not isinstance(value, (str, int, type(None))):
                raise Refused("'seat' must be a seat number, 'none' or 'auto'")
            query_seat(str(value) if isinstance(value, int) else value,
                       len(self.session.kinds) if self.session is not None else 0)
            return value

        def index(request, _):
            return FileResponse(STATIC / "index.html")

        def api_info(request, _):
            return self.info()

        def api_state(request, _):
            q = request.query_params
            at = q.get("at")
            with self.gate, self.lock:
                try:
                    at = int(at) if at not in (None, "") else None
                except ValueError:
                    return error("'at' takes a number")
                return self.payload(seat_of(q.get("seat")), at)

        def api_new(request, d):
            players = whole(d, "players", self.rb.game.min_players, 1, 1000)
            seed = d.get("seed")
            seed = secrets.randbelow(2**31) if seed in (None, "") else whole(d, "seed", 0)
            seats = ",".join(text_list(d, "seats")) or HUMAN
            options = option_map(d)
            variants = text_list(d, "variants")
            names = text_list(d, "names")           # people's names for the seats ("" keeps "Player n")
            try:
                parse_seats(seats, 1)
            except ValueError as exc:
                return error(str(exc))
            with self.gate:
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
                        return self.payload()
                try:
                    session = Session(self.rb, players, seed, options, variants, seats, names=names)
                except (ValueError, TypeError, GameSetupError) as exc:
                    return error(str(exc))
                except RuleRuntimeError as exc:
                    return error(exc.diagnostic().format())
                with self.lock:
                    self._session = session
                    return self.payload()

        def api_act(request, d):
            action = text(d, "action", "", 2000)
            with self.gate, self.lock:
                s = self.session
                if s is None:
                    return error("no game: start one", 409)
                if not s.waiting_for_human():
                    return error("no person is to decide now", 409)
                if self.table is not None:
                    self.hall.apply(self.table, s.state.current_player(), action)
                    return self.payload()
                try:
                    s.apply(action)
                except IllegalAction as exc:
                    return error(str(exc))
                except RuleRuntimeError as exc:
                    return error(exc.diagnostic().format(), 500)
                return self.payload()

        def api_bot(request, d):
            with self.gate, self.lock:
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
                return self.payload(seat)

        def api_undo(request, d):
            with self.gate, self.lock:
                s = self.session
                last = None if s is None else max((i for i, (p, _) in enumerate(s.history) if s.is_human(p)),
                                                  default=None)
                if last is None:
                    return error("nothing to undo", 409)
                if self.table is not None:
                    self.hall.take_back(self.table, s.history[last][0], last)
                else:
                    s.reset_to(last)
                return self.payload()

        def api_log(request, _):
            with self.gate, self.lock:
                s = self.session
                if s is None:
                    return error("no game: start one", 409)
                if not self.hides_nothing(s):
                    return error("the log is given once the game is over (it would tell the bots' secret "
                                 "choices and the seed)", 409)
                head = header(self.rb.path, self.rb.path / "x", self.rb.name, s.players, s.seed, s.options,
                              s.variants, s.kinds, s.names)
                head["rulebook"] = str(self.rb.path.resolve())   # a download lands anywhere
                lines = [json.dumps(head)] + [json.dumps({"seat": p, "action": a}) for p, a in s.history]
            name = f"{self.rb.path.resolve().name}-seed{s.seed}.jsonl"
            return Response("\n".join(lines) + "\n", media_type="application/x-ndjson",
                            headers={"Content-Disposition": f'attachment; filename="{name}"'})

        return [
            Route("/", endpoint(index, threaded=False)),
            Route("/api/info", endpoint(api_info)),
            Route("/api/state", endpoint(api_state)),
            Route("/api/new", endpoint(api_new, body=True), methods=["POST"]),
            Route("/api/act", endpoint(api_act, body=True), methods=["POST"]),
            Route("/api/bot", endpoint(api_bot, body=True), methods=["POST"]),
            Route("/api/undo", endpoint(api_undo, body=True), methods=["POST"]),
            Route("/api/log", endpoint(api_log)),
        ]


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


async def _http_error(request, exc: HTTPException):
    message = {404: "no such page", 405: f"{request.method} is not allowed here"}.get(exc.status_code,
                                                                                     str(exc.detail))
    return error(message, exc.status_code)


async def _fault(request, exc: Exception):
    """The server's own fault: a JSON 500 (the Guard prints the traceback to the server's output)."""
    return error("the server failed on this request (see its output)", 500)


def build_app(hall, hotseat: GameServer | None, allowed_hosts: set) -> Guard:
    routes = hotseat.routes() if hotseat is not None else [
        Route("/", endpoint(lambda request, _: RedirectResponse("/lobby"), threaded=False))]

    def favicon(request, _):
        return Response(b"", 204)

    def static(request, _):
        name = request.path_params["name"]
        path = STATIC / name
        if "/" in name or "\\" in name or name.startswith(".") or not path.is_file():
            raise Refused("no such page", 404)
        return FileResponse(path)

    routes += [Route("/favicon.ico", endpoint(favicon, threaded=False)),
               Route("/static/{name}", endpoint(static, threaded=False))]
    routes += table_routes(hall, STATIC)
    routes += image_routes(hall.rulebooks.values())
    app = Starlette(routes=routes, exception_handlers={HTTPException: _http_error, Exception: _fault})
    return Guard(app, allowed_hosts)


def make(rulebooks, port: int, session=None, db=None, host: str = "127.0.0.1", allow_hosts=(),
         bot_delay: float = 0.3, sync: str = "normal"):
    """The server (not yet serving), its address and the hot-seat GameServer (None with several
    rulebooks).  ``rulebooks``: one Rulebook or a list; ``db``: the SQLite file (None: in memory).
    Raises :class:`.store.StoreProblem` for a database it cannot use, OSError for an address."""
    from .httpserver import Served
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
    try:
        httpd = Served(app, host, port, hall)
    except OSError:
        hall.close()
        store.close()
        raise
    shown = host if ":" not in host else f"[{host}]"
    if host in ("0.0.0.0", "::"):
        shown = "127.0.0.1"
    return httpd, f"http://{shown}:{httpd.server_port}/", gs


def _long_running() -> None:
    """Tune Python's cycle collector for a process that runs for hours: what is loaded by now
    (rulebooks, restored tables) is left out of its passes (``gc.freeze``), and its youngest
    generation is collected after 50,000 allocations instead of 700.  A decision makes tens of
    thousands of short-lived objects without cycles (freed by reference counting), while the
    tables' states and cached views are long-lived; collecting at the default rate cost ~17 % of
    the server's CPU per decision under load (docs/serve.md).  Cyclic garbage is still collected."""
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


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
    from .store import StoreProblem
    try:
        httpd, url, gs = make(rulebooks, args.port, session, db, args.host, args.allow_host or (),
                              args.bot_delay, args.sync)
    except StoreProblem as exc:
        print(f"regelwerk: error: {exc}", file=sys.stderr)
        return 2
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
          f" ({hall.restored} unfinished table(s) restored"
          + (f", {len(hall.problems)} not" if hall.problems else "") + ")", flush=True)
    print(f"  your creator's link (making tables, handing out seats, closing tables; keep it to yourself): "
          f"{url}lobby?key={hall.key}", flush=True)
    _long_running()
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
        hall.close()
    return 0
