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
  API error, not uvicorn's plain-text 400.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import resource
import sys
import threading
from logging.handlers import QueueHandler, QueueListener
from typing import Any

from gunicorn.arbiter import Arbiter
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import Server
from uvicorn_worker import UvicornWorker

MAX_URL_BYTES = 4096
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


class ProblemHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with problem+json for requests it cannot parse."""

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._url_too_long = False

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        if len(self.url) > MAX_URL_BYTES:
            self._url_too_long = True
            raise UrlTooLong  # the parser stops; send_400_response answers

    def send_400_response(self, msg: str) -> None:
        if getattr(self, "_url_too_long", False):
            status, code, title = 414, "uri_too_long", "URI too long"
            detail = f"A request URL may be at most {MAX_URL_BYTES} bytes."
        else:
            status, code, title = 400, "bad_request", "Bad request"
            detail = "Malformed HTTP request (request line, headers or Content-Length)."
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
