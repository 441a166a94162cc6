"""Server-Sent Events streams of the API that survive drops and server restarts.

A Stream is an iterator of decoded events. When the connection drops, or the server
ends the stream early (a shutdown), it reconnects with backoff and resumes after the
last event it yielded (`Last-Event-ID`, as API.md documents), until the stream's final
event; a `429`/`503` is waited out by its `Retry-After`, and a connection waits out a
used-up rate limit as the client's requests do; any other refusal (401, 403, 404) raises
its ApiError. `close()` from another thread ends it at once.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import httpx

from liarsdice.errors import error_for

if TYPE_CHECKING:
    from liarsdice.client import Client

T = TypeVar("T")
# A stream is quiet for at most 15 s between heartbeats.
STREAM_TIMEOUT = httpx.Timeout(30.0, read=45.0)


class StreamClosed(Exception):
    """Raised inside a Stream's reader when close() was called; never escapes it."""


def parse_events(lines: Iterator[str]) -> Iterator[tuple[int | None, str, Any]]:
    """(id, event name, data decoded as JSON) of each message; comments are skipped."""
    fields: dict[str, str] = {}
    for line in lines:
        if line:
            if not line.startswith(":"):
                name, _, value = line.partition(":")
                fields[name] = value.removeprefix(" ")
            continue
        if "data" in fields:
            event_id = fields.get("id")
            yield (
                int(event_id) if event_id else None,
                fields.get("event", "message"),
                json.loads(fields["data"]),
            )
        fields = {}


class Stream(Generic[T]):
    def __init__(
        self,
        client: Client,
        path: str,
        *,
        decode: Callable[[Any], T],
        params: dict[str, Any] | None = None,
        final: Callable[[T], bool] = lambda item: False,
        last_event_id: int | None = None,
        resume: bool = True,
        retries: int = 30,
        max_backoff: float = 5.0,
        on_connect: Callable[[], None] | None = None,
    ) -> None:
        self.client = client
        self.path = path
        self.decode = decode
        self.params = params or {}
        self.final = final
        self.last_event_id = last_event_id
        self.resume = resume
        self.retries = retries
        self.max_backoff = max_backoff
        self.on_connect = on_connect
        self.connections = 0  # successful connections, for whoever watches
        self.closed = False
        self._lock = threading.Lock()
        self._response: httpx.Response | None = None

    def close(self) -> None:
        """Ends the stream, waking a reader blocked on it."""
        with self._lock:
            self.closed = True
            response = self._response
        if response is not None:
            _shut_down(response)

    def __iter__(self) -> Iterator[T]:
        failures = 0
        while not self.closed:
            try:
                for item in self._connection():
                    failures = 0
                    yield item
                    if self.final(item):
                        return
            except StreamClosed:
                return
            except httpx.TransportError:
                if self.closed:
                    return
                failures += 1
                if failures > self.retries:
                    raise
            else:
                failures += 1  # ended early: the server is shutting down
                if failures > self.retries:
                    raise ConnectionError(f"{self.path} kept ending without its final event")
            self.client.sleep(min(0.25 * 2 ** min(failures, 8), self.max_backoff))

    def _connection(self) -> Iterator[T]:
        headers = self.client.auth_headers()
        params = dict(self.params)
        if self.last_event_id is not None and self.resume:
            headers["Last-Event-ID"] = str(self.last_event_id)
            params.pop("after", None)
        self.client.wait_for_allowance()  # a (re)connection spends the rate limit too
        with self.client.http.stream(
            "GET", f"/api/v1{self.path}", headers=headers, params=params, timeout=STREAM_TIMEOUT
        ) as response:
            self.client.note_allowance(response)
            with self._lock:
                if self.closed:
                    raise StreamClosed
                self._response = response
            try:
                if response.status_code != 200:
                    response.read()
                    yield from self._refused(response)
                    return
                self.connections += 1
                if self.on_connect is not None:
                    self.on_connect()
                for event_id, _name, data in parse_events(response.iter_lines()):
                    if event_id is not None:
                        self.last_event_id = event_id
                    yield self.decode(data)
            except (httpx.TransportError, httpx.StreamError, OSError):
                if self.closed:
                    raise StreamClosed from None
                raise httpx.ReadError("the stream dropped") from None
            finally:
                with self._lock:
                    self._response = None

    def _refused(self, response: httpx.Response) -> Iterator[T]:
        from liarsdice.client import _decode, retry_after

        error = error_for(response.status_code, _decode(response))
        if response.status_code not in (429, 503):
            raise error
        self.client.sleep(min(retry_after(response), 60.0))
        yield from ()


def _shut_down(response: httpx.Response) -> None:
    """Wakes the thread reading `response` (closing the socket alone may not)."""
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
