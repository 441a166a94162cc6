"""The web server: gunicorn managing uvicorn worker processes (`Worker`), each serving
`config.asgi:application` on an event loop.

Why gunicorn + uvicorn: gunicorn keeps doing what it did for the WSGI server (process
management, restarts of a dead worker, WEB_CONCURRENCY, graceful timeout); uvicorn's
event loop holds thousands of waiting clients (long polls, event streams) with no thread
each. On top of uvicorn's own, this worker:

* writes the event loop's log lines from a thread of its own, never blocking the loop;
* lifts its open-file limit to the hard limit: every waiting client holds a socket;
* drains live waiters first on shutdown (`core.notifications.drain`): long polls answer,
  event streams end, so clients reconnect to another process and resume by event id;
* answers the requests its HTTP parser refuses (a negative Content-Length, control
  characters in a header, a URL over MAX_URL_BYTES) with problem+json like every other
  API error, not uvicorn's plain-text 400;
* closes connections that hold a socket without sending a request (`ConnectionLimits`):
  a request's line and headers, and then its body, must arrive in time, and one client
  address may hold only so many connections to a process. Idle connections between
  requests are uvicorn's own keep-alive timeout (gunicorn's --keep-alive, the Procfile).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import queue
import resource
import sys
import threading
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from logging.handlers import QueueHandler, QueueListener
from typing import Any

from gunicorn.arbiter import Arbiter
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import Server
from uvicorn_worker import UvicornWorker

MAX_URL_BYTES = 4096
# The scope key of when the request's headers were read (`time.monotonic()`): a long
# poll's wait counts from then (core.live), however busy the loop is until its view runs.
RECEIVED_AT = "liarsdice.received_at"
PROBLEM_BASE = "https://liarsdice.example/problems/"


class UrlTooLong(Exception):
    pass


def problem_bytes(status: int, code: str, title: str, detail: str) -> bytes:
    body = {
        "type": PROBLEM_BASE + code,
        "title": title,
        "status": status,
        "detail": detail,
        "code": code,
    }
    return json.dumps(body).encode()


@dataclass
class ConnectionLimits:
    """How long a client may take to send a request, and how many connections one
    address may hold, in one web process (docs/DEPLOYMENT.md). None is off.

    Why here and not uvicorn's options: uvicorn has no read timeout. Its keep-alive timer
    starts only once a response is sent and stops at the first byte of the next request,
    so a connection that sends nothing, or half a request, is held for ever; and its
    `limit_concurrency` answers requests (503), it never refuses a connection (an idle
    one never gets as far), and it counts every client as one."""

    header_timeout: float | None = 10.0
    body_timeout: float | None = 30.0
    per_address: int | None = 256
    open: Counter = field(default_factory=Counter)  # connections by client address

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> ConnectionLimits:
        def setting(name: str, default: float, kind: type) -> Any:
            value = kind(environ.get(name, default))
            return value if value > 0 else None  # 0 turns it off

        return cls(
            header_timeout=setting("WEB_HEADER_TIMEOUT_SECONDS", cls.header_timeout, float),
            body_timeout=setting("WEB_BODY_TIMEOUT_SECONDS", cls.body_timeout, float),
            per_address=setting("WEB_CONNECTIONS_PER_ADDRESS", cls.per_address, int),
        )

    def admit(self, address: str) -> bool:
        if self.per_address is not None and self.open[address] >= self.per_address:
            return False
        self.open[address] += 1
        return True

    def release(self, address: str) -> None:
        self.open[address] -= 1
        if not self.open[address]:
            del self.open[address]


class ProblemHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with problem+json for requests it cannot parse, and
    the deadlines and per-address cap of `ConnectionLimits`.

    One read deadline at a time: from the connection's start, and again from the end of
    each response, the request line and headers must be complete within header_timeout;
    then its body within body_timeout. Once a request is read there is none, so a long
    poll or an event stream is never cut by it (nor by uvicorn's keep-alive timer, which
    starts after the response). A connection past its deadline that had begun a request
    gets a 408; one that sent nothing is closed, as a keep-alive timeout closes it."""

    def __init__(self, *args: Any, limits: ConnectionLimits | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = limits or ConnectionLimits()
        self._address: str | None = None  # counted in limits.open while open
        self._read_deadline: asyncio.TimerHandle | None = None
        self._reading_headers = False  # a request begun, its headers not complete

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else None
        if address is not None:
            # Counted on the socket's peer: behind a proxy that is the proxy (the client's
            # X-Forwarded-For is not read yet, and may not be trusted), so turn it off.
            if not self.limits.admit(address):
                self._send_problem(
                    429,
                    "too_many_connections",
                    "Too many connections",
                    f"At most {self.limits.per_address} open connections from one address.",
                )
                return
            self._address = address
        self._expect_request()

    def connection_lost(self, exc: Exception | None) -> None:
        self._set_read_deadline(None)
        if self._address is not None:
            self.limits.release(self._address)
            self._address = None
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._url_too_long = False
        self._reading_headers = True

    def on_headers_complete(self) -> None:
        self.scope[RECEIVED_AT] = time.monotonic()
        self._reading_headers = False
        self._set_read_deadline(self.limits.body_timeout)  # cancelled when it is complete
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._set_read_deadline(None)
        super().on_message_complete()
        if self.cycle.response_complete:  # answered before its body was in
            self._expect_request()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.cycle.more_body or self.transport.is_closing():
            return  # its body is still due: that deadline stands
        if self.timeout_keep_alive_task is not None:  # no pipelined request: wait for one
            self._expect_request()

    def _expect_request(self) -> None:
        self._set_read_deadline(self.limits.header_timeout)

    def _set_read_deadline(self, seconds: float | None) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
            self._read_deadline = None
        if seconds is not None:
            self._read_deadline = self.loop.call_later(seconds, self._read_timed_out)

    def _read_timed_out(self) -> None:
        self._read_deadline = None
        if self.transport.is_closing():
            return
        if not self._reading_headers and (self.cycle is None or self.cycle.response_complete):
            self.transport.close()  # nothing of a request came
            return
        part = "headers" if self._reading_headers else "body"
        limit = self.limits.header_timeout if self._reading_headers else self.limits.body_timeout
        self._send_problem(
            408,
            "request_timeout",
            "Request timeout",
            f"The request's {part} did not arrive within {limit:g} s.",
        )

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        if len(self.url) > MAX_URL_BYTES:
            self._url_too_long = True
            raise UrlTooLong  # the parser stops; send_400_response answers

    def send_400_response(self, msg: str) -> None:
        if getattr(self, "_url_too_long", False):
            self._send_problem(
                414,
                "uri_too_long",
                "URI too long",
                f"A request URL may be at most {MAX_URL_BYTES} bytes.",
            )
        else:
            self._send_problem(
                400,
                "bad_request",
                "Bad request",
                "Malformed HTTP request (request line, headers or Content-Length).",
            )

    def _send_problem(self, status: int, code: str, title: str, detail: str) -> None:
        """Answers problem+json and closes the connection."""
        body = problem_bytes(status, code, title, detail)
        head = [STATUS_LINE[status]]
        for name, value in self.server_state.default_headers:
            head.extend([name, b": ", value, b"\r\n"])
        head.extend(
            [
                b"content-type: application/problem+json\r\n",
                b"content-length: " + str(len(body)).encode("ascii") + b"\r\n",
                b"connection: close\r\n\r\n",
                body,
            ]
        )
        self.transport.write(b"".join(head))
        self.transport.close()


class DrainingServer(Server):
    async def shutdown(self, sockets: Any = None) -> None:
        from core import notifications

        notifications.drain()
        await super().shutdown(sockets)


class Worker(UvicornWorker):
    CONFIG_KWARGS: dict[str, Any] = {
        "loop": "uvloop",
        "http": ProblemHttpToolsProtocol,
        # The app serves no WebSocket (Django's ASGI handler refuses them); an upgraded
        # connection would leave ProblemHttpToolsProtocol and its address count behind.
        "ws": "none",
        "lifespan": "on",
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Every waiting client is an open socket: the soft file limit (often 1,024) would
        # refuse connections long before memory or CPU runs out.
        _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        with contextlib.suppress(ValueError, OSError):  # an unlimited hard limit
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        # In-flight requests get gunicorn's graceful timeout, then are cancelled.
        self.config.timeout_graceful_shutdown = self.cfg.graceful_timeout
        # One ConnectionLimits (settings and address counts) for the process's connections.
        self.config.http = functools.partial(
            ProblemHttpToolsProtocol, limits=ConnectionLimits.from_environ(os.environ)
        )

    async def _serve(self) -> None:
        self.config.app = self.wsgi
        server = DrainingServer(config=self.config)
        self._install_sigquit_handler()
        log_writer = write_logs_off_the_loop()
        try:
            await server.serve(sockets=self.sockets)
        finally:
            if log_writer is not None:
                log_writer.stop()
        if not server.started:
            sys.exit(Arbiter.WORKER_BOOT_ERROR)


class OffTheLoopHandler(logging.Handler):
    """Writes a line where it is logged, unless that is the event loop's thread: its
    lines go to a queue that a thread of its own writes. A write to a slow pipe (a
    supervisor behind on reading) must not stall the loop, and with it every client of
    the process; a request thread may wait for it, as under a WSGI server, and handing
    each of its lines to another thread costs a wake-up and a GIL hand-over a request."""

    def __init__(self, writer: logging.Handler, to_queue: QueueHandler, loop_thread: int) -> None:
        super().__init__(writer.level)
        self.writer = writer
        self.to_queue = to_queue
        self.loop_thread = loop_thread

    def handle(self, record: logging.LogRecord) -> bool:
        if record.thread == self.loop_thread:
            return self.to_queue.handle(record)
        return self.writer.handle(record)


def write_logs_off_the_loop() -> QueueListener | None:
    """Installs `OffTheLoopHandler` for the calling thread's event loop; returns the
    listener that writes the loop's lines (stop it at shutdown)."""
    root = logging.getLogger()
    if len(root.handlers) != 1 or not isinstance(root.handlers[0], logging.StreamHandler):
        return None  # not the configuration this was made for (settings.LOGGING)
    (writer,) = root.handlers
    lines: queue.SimpleQueue = queue.SimpleQueue()
    to_queue = QueueHandler(lines)
    to_queue.setLevel(writer.level)
    to_queue.setFormatter(writer.formatter)  # the (JSON) line is made by the caller
    listener = QueueListener(lines, _Unformatted(writer))
    root.handlers = [OffTheLoopHandler(writer, to_queue, threading.get_ident())]
    listener.start()
    return listener


class _Unformatted(logging.Handler):
    """The writer, for records the queue handler has already formatted into `msg`."""

    def __init__(self, writer: logging.Handler) -> None:
        super().__init__(writer.level)
        self.writer = writer
        self.plain = logging.Formatter("%(message)s")

    def handle(self, record: logging.LogRecord) -> bool:
        try:
            line = self.plain.format(record)
            with self.writer.lock:
                self.writer.stream.write(line + self.writer.terminator)
                self.writer.flush()
        except Exception:  # as Handler.emit does: a failed write must not end the thread
            self.writer.handleError(record)
        return True
