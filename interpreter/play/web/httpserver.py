"""The HTTP server under ``regelwerk serve``: uvicorn (asyncio, httptools) running the Starlette app.

uvicorn parses HTTP, keeps idle keep-alive connections for a few seconds and
streams answers; this module adds two bounds it does not have:

* **connections**: at most ``limits.serve_connections`` open at once; one more is
  answered 503 and closed at once (an idle connection costs a socket and a few
  kilobytes, no thread);
* **a whole-request deadline**: a request (its line, headers and body) must arrive
  within ``limits.serve_request_seconds`` of its first byte (of the connection
  for the first one); a client that sends one byte now and then (slowloris) is cut
  off then, whatever it sends, so slow clients cannot hold the slots for long.

:class:`Served` is the running server as the command and the tests use it:
``serve_forever()`` (in any thread), ``shutdown()``, ``server_close()``,
``server_port`` and ``hall``.
"""
from __future__ import annotations

import socket
import threading

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from ...game import LIMITS



def _answer(status: str, message: str) -> bytes:
    """A whole HTTP answer written straight to the socket (before or instead of the app)."""
    body = ('{"error": "%s"}' % message).encode()
    return (f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nConnection: close\r\n"
            f"X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


_BUSY = _answer("503 Service Unavailable",
                "the server holds as many connections as it may (limit 'serve_connections'): try again")
_SLOW = _answer("408 Request Timeout",
                "the request did not arrive in time (limit 'serve_request_seconds'): send it again")


class BoundedProtocol(HttpToolsProtocol):
    """uvicorn's HTTP protocol with the connection cap and the whole-request deadline."""

    _deadline = None
    _refused = False

    def connection_made(self, transport) -> None:
        if len(self.connections) >= LIMITS.serve_connections:
            self._refused = True
            self.transport = transport
            transport.write(_BUSY)
            transport.close()
            return
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc) -> None:
        self._disarm()
        if self._refused:
            return
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        super().data_received(data)

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(LIMITS.serve_request_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete:   # no answer begun: say why
            self.transport.write(_SLOW)
        self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()


class Served:
    """A bound, not yet serving server; ``serve_forever`` runs it (blocking) until ``shutdown``."""

    def __init__(self, app, host: str, port: int, hall):
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((host, port))
        self.socket.listen(1024)
        self.socket.setblocking(False)
        self.server_port = self.socket.getsockname()[1]
        self.hall = hall
        config = uvicorn.Config(app, http=BoundedProtocol, loop="asyncio", lifespan="off", log_level="warning",
                                access_log=False, timeout_keep_alive=5, timeout_graceful_shutdown=2,
                                server_header=False, date_header=False, backlog=1024)
        self.server = uvicorn.Server(config)
        self._done = threading.Event()
        self._done.set()

    def serve_forever(self) -> None:
        self._done.clear()
        try:
            self.server.run(sockets=[self.socket])
        finally:
            self._done.set()

    def shutdown(self) -> None:
        """Stop serving (live streams end at once) and wait until the loop has stopped."""
        self.hall.stopping = True
        self.hall.wake_all()
        self.server.should_exit = True
        self._done.wait(10)

    def server_close(self) -> None:
        try:
            self.socket.close()
        except OSError:
            pass
