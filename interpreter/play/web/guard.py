"""What every request to ``regelwerk serve`` must pass before a route sees it, and JSON errors.

* ``Host`` must name this server: ``localhost``, an IP address, or a name given
  with ``--allow-host`` — a web page on another name that resolves to this
  machine (DNS rebinding) is refused.
* A ``POST`` must carry ``Content-Type: application/json`` (a form or
  ``text/plain`` post from another site needs no preflight, JSON does) and, when
  the browser says where it comes from (``Origin``, ``Sec-Fetch-Site``), come
  from this server's own pages.
* A body is at most ``limits.serve_body`` bytes and must be one JSON object.

Every refusal, wrong method, unknown route or fault is a JSON answer
``{"error": "…"}`` with a 4xx (5xx for the server's own faults), never an HTML
page or a traceback.
"""
from __future__ import annotations

import ipaddress
import json
import sys
import traceback

import bottle

from ...game import LIMITS


class Refused(Exception):
    """A request that is refused: the answer is ``{"error": message}`` with ``status``."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


def reply(data, status: int = 200):
    bottle.response.status = status
    bottle.response.content_type = "application/json"
    return json.dumps(data)


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


def check_request(allowed_hosts: set) -> None:
    req = bottle.request
    if not host_allowed(req.get_header("Host", ""), allowed_hosts):
        raise Refused("this server answers to its own address only (Host refused; see --allow-host)", 403)
    if req.method in ("POST", "PUT", "DELETE", "PATCH"):
        site = req.get_header("Sec-Fetch-Site", "")
        if site and site not in ("same-origin", "none"):
            raise Refused("a request from another site is refused", 403)
        origin = req.get_header("Origin")
        if origin is not None:
            scheme, _, rest = origin.partition("://")
            if scheme not in ("http", "https") or rest.lower() != req.get_header("Host", "").lower():
                raise Refused("a request from another origin is refused", 403)
        ctype = (req.content_type or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise Refused("the body must be JSON (Content-Type: application/json)", 415)


def _drain(stream, length: int, most: int) -> None:
    """Read and drop a refused body of up to ``most`` bytes, so that the client, still
    sending, reads the answer instead of a broken pipe; a longer one is left unread
    (the connection closes after the answer)."""
    if length > most:
        return
    while length > 0:
        chunk = stream.read(min(length, 65_536))
        if not chunk:
            return
        length -= len(chunk)


def json_body() -> dict:
    """The request's JSON object (an empty body is ``{}``); Refused for anything else."""
    req = bottle.request
    limit = LIMITS.serve_body
    try:
        length = int(req.get_header("Content-Length") or 0)
    except ValueError:
        raise Refused("Content-Length is not a number") from None
    if length > limit:
        _drain(req.environ["wsgi.input"], length, 16 * limit)
        raise Refused(f"the body is longer than {limit:,} bytes (limit 'serve_body')", 413)
    raw = req.environ["wsgi.input"].read(length) if length > 0 else b""
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


# --- installing -------------------------------------------------------------------------

def install(app: bottle.Bottle, allowed_hosts: set) -> None:
    """Every route of ``app`` behind :func:`check_request`, with JSON errors."""

    def plugin(callback):
        def wrapper(*args, **kwargs):
            try:
                check_request(allowed_hosts)
                out = callback(*args, **kwargs)
            except Refused as exc:
                return reply({"error": exc.message}, exc.status)
            bottle.response.set_header("X-Content-Type-Options", "nosniff")
            bottle.response.set_header("Referrer-Policy", "no-referrer")     # seat links carry their token
            return out
        return wrapper

    app.install(plugin)

    def on_error(err: bottle.HTTPError):
        status = err.status_code
        if status >= 500:
            if err.exception is not None:
                traceback.print_exception(type(err.exception), err.exception, err.exception.__traceback__,
                                          file=sys.stderr)
            message = "the server failed on this request (see its output)"
        elif status == 405:
            message = f"{bottle.request.method} is not allowed here"
        elif status == 404:
            message = "no such page"
        else:
            message = str(err.body or "refused")
        bottle.response.content_type = "application/json"
        bottle.response.set_header("X-Content-Type-Options", "nosniff")
        return json.dumps({"error": message})

    app.default_error_handler = on_error
