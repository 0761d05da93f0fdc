"""What every request to ``regelwerk serve`` must pass before a route sees it, and JSON errors.

* ``Host`` must name this server: ``localhost``, an IP address, or a name given
  with ``--allow-host`` — a web page on another name that resolves to this
  machine (DNS rebinding) is refused.
* A ``POST`` must carry ``Content-Type: application/json`` (a form or
  ``text/plain`` post from another site needs no preflight, JSON does) and, when
  the browser says where it comes from (``Origin``, ``Sec-Fetch-Site``), come
  from this server's own pages.
* A body is at most ``limits.serve_body`` bytes and must be one JSON object.

Every answer — pages, JSON, pictures, live streams, refusals and faults — carries
``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer`` (a seat's
address holds its token) and a Content-Security-Policy that allows only this
server's own scripts and forbids framing (:class:`Guard`, an ASGI middleware, so
no route can forget them).  Every refusal, wrong method, unknown route or fault is
a JSON answer ``{"error": "…"}`` with a 4xx (5xx for the server's own faults),
never an HTML page or a traceback.

A route is a plain function ``(request, body) -> answer`` wrapped by :func:`endpoint`:
the body is read here (bounded) and the function runs in a worker thread, so the
engine and SQLite never block the event loop.
"""
from __future__ import annotations

import ipaddress
import json
import sys
import traceback

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from ...game import LIMITS

#: the pages load only this server's scripts, styles and pictures, send requests only to it, and may not be framed
PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
               "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
           (b"x-frame-options", b"DENY")]


class Refused(Exception):
    """A request that is refused: the answer is ``{"error": message}`` with ``status``."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


def reply(data, status: int = 200) -> Response:
    return Response(json.dumps(data), status, media_type="application/json")


def json_text(text: str | bytes, status: int = 200) -> Response:
    """JSON already made (a table's payload, shared with its live streams: UTF-8 bytes)."""
    return Response(text, status, media_type="application/json")


def error(message: str, status: int = 400) -> Response:
    return reply({"error": message}, status)


def _host_name(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):                     # [::1]:8000
        return host[1:host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        return host.split(":")[0]
    return host


def host_allowed(host: str, allowed: set) -> bool:
    name = _host_name(host)
    if not name:
        return False
    if name in allowed or name == "localhost":
        return True
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False


def check_request(method: str, headers: dict, allowed_hosts: set) -> None:
    """``headers``: lower-case names -> values (latin-1 text, as HTTP has them)."""
    host = headers.get("host", "")
    if not host_allowed(host, allowed_hosts):
        raise Refused("this server answers to its own address only (Host refused; see --allow-host)", 403)
    if method in ("POST", "PUT", "DELETE", "PATCH"):
        site = headers.get("sec-fetch-site", "")
        if site and site not in ("same-origin", "none"):
            raise Refused("a request from another site is refused", 403)
        origin = headers.get("origin")
        if origin is not None:
            scheme, _, rest = origin.partition("://")
            if scheme not in ("http", "https") or rest.lower() != host.lower():
                raise Refused("a request from another origin is refused", 403)
        ctype = headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise Refused("the body must be JSON (Content-Type: application/json)", 415)


class Guard:
    """ASGI middleware: :func:`check_request` before any route, the security headers on every
    answer (a picture keeps its own stricter policy), and a JSON 500 for a fault."""

    def __init__(self, app, allowed_hosts: set):
        self.app = app
        self.allowed = allowed_hosts

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = False

        async def send_guarded(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                headers += [h for h in HEADERS if h[0] not in names]
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", PAGE_POLICY.encode()))
                message = {**message, "headers": headers}
            await send(message)

        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            check_request(scope["method"], headers, self.allowed)
        except Refused as exc:
            return await error(exc.message, exc.status)(scope, receive, send_guarded)
        try:
            await self.app(scope, receive, send_guarded)
        except Exception as exc:          # the server's own fault: told in its output, a JSON 500 to the client
            traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
            if not started:
                await error("the server failed on this request (see its output)", 500)(scope, receive, send_guarded)


async def read_json(request: Request) -> dict:
    """The request's JSON object (an empty body is ``{}``); Refused for anything else.  A body
    longer than ``limits.serve_body`` is refused after reading (and dropping) at most 16 times
    that, so that a client still sending reads the answer rather than a broken pipe."""
    limit = LIMITS.serve_body
    try:
        length = int(request.headers.get("content-length") or 0)
    except ValueError:
        raise Refused("Content-Length is not a number") from None
    chunks, got = [], 0
    if length <= 16 * limit:
        async for chunk in request.stream():
            got += len(chunk)
            if got <= limit:
                chunks.append(chunk)
            elif got > 16 * limit:
                break
    if length > limit or got > limit:
        raise Refused(f"the body is longer than {limit:,} bytes (limit 'serve_body')", 413)
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise Refused("the body is not JSON") from None
    except RecursionError:
        raise Refused("the body is nested too deeply") from None
    if not isinstance(data, dict):
        raise Refused("the body must be a JSON object")
    return data


def endpoint(fn, body: bool = False, threaded=True):
    """A Starlette endpoint of ``fn(request, data)``: ``data`` the JSON body (when ``body``),
    ``fn`` run in a worker thread (``threaded``: True, False, or a function of the request that
    says it); a dict answer is JSON, a Refused a JSON error."""

    async def handle(request: Request):
        try:
            data = await read_json(request) if body else None
            thread = threaded(request) if callable(threaded) else threaded
            out = await run_in_threadpool(fn, request, data) if thread else fn(request, data)
        except Refused as exc:
            return error(exc.message, exc.status)
        return reply(out) if isinstance(out, dict) else out

    handle.__name__ = fn.__name__
    return handle


# --- fields ---------------------------------------------------------------------------

def whole(d: dict, name: str, default=None, least: int = 0, most: int = 2**63 - 1) -> int:
    v = d.get(name, default)
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**63:
        v = int(v)
    if not isinstance(v, int) or isinstance(v, bool):
        raise Refused(f"'{name}' must be a whole number, not {_short(v)}")
    if not least <= v <= most:
        raise Refused(f"'{name}' must be between {least} and {most}, not {v}")
    return v


def text(d: dict, name: str, default: str = "", most: int = 200) -> str:
    v = d.get(name, default)
    if not isinstance(v, str):
        raise Refused(f"'{name}' must be text, not {_short(v)}")
    if len(v) > most:
        raise Refused(f"'{name}' is longer than {most} characters")
    return v


def text_list(d: dict, name: str, most: int = 64) -> list:
    v = d.get(name) or []
    if isinstance(v, str):
        v = [x for x in v.split(",") if x]
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v) or len(v) > most:
        raise Refused(f"'{name}' must be a list of at most {most} texts")
    return v


def option_map(d: dict, name: str = "options") -> dict:
    v = d.get(name) or {}
    if not isinstance(v, dict) or len(v) > 64 or not all(isinstance(x, (str, int, bool)) for x in v.values()):
        raise Refused(f"'{name}' must be an object of option names and values (text or numbers)")
    return {str(k): str(x) for k, x in v.items() if str(x) != ""}


def query_seat(value, seats: int):
    """A ``?seat=`` value: None for 'none', a seat number in range, else Refused."""
    if value in (None, "", "auto"):
        return "auto"
    if value == "none":
        return None
    try:
        seat = int(value)
    except (TypeError, ValueError):
        raise Refused("'seat' must be a seat number, 'none' or 'auto'") from None
    if not 0 <= seat < seats:
        raise Refused(f"there is no seat {seat} (seats 0 to {seats - 1})")
    return seat


def _short(v) -> str:
    s = json.dumps(v) if not isinstance(v, float) else repr(v)
    return s if len(s) <= 40 else s[:37] + "..."
