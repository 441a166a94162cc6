"""A client of the live server's event streams (`live_asgi`, tests.servers.WebServer):
an SSE parser and a reader that keeps every event and comment."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass
class SseEvent:
    id: int | None
    type: str
    data: dict


def sse_events(lines: Iterator[str]) -> Iterator[SseEvent | str]:
    """Parses an event stream line by line: yields each event, and each comment (as its
    text) so callers can see heartbeats."""
    fields: dict[str, str] = {}
    for line in lines:
        if line == "":
            if "data" in fields:
                yield SseEvent(
                    int(fields["id"]) if "id" in fields else None,
                    fields.get("event", "message"),
                    json.loads(fields["data"]),
                )
            fields = {}
        elif line.startswith(":"):
            yield line[1:].strip()
        else:
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")


class StreamReader:
    """Reads one event stream in a thread over a plain socket (HTTP/1.0: the body runs
    until the server closes it), keeping every event and comment; `drop` cuts the
    connection as a network failure would."""

    def __init__(self, url: str, token: str, *, headers: dict | None = None) -> None:
        self.items: list = []
        self.status: int | None = None
        self.response_headers: dict = {}
        self.ended = threading.Event()
        parts = urlsplit(url)
        self._address = (parts.hostname, parts.port)
        self._path = parts.path + (f"?{parts.query}" if parts.query else "")
        self._headers = {"Authorization": f"Bearer {token}", **(headers or {})}
        self._sock: socket.socket | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._sock = socket.create_connection(self._address, timeout=60)
            head = "".join(
                f"{k}: {v}\r\n" for k, v in {"Host": "127.0.0.1", **self._headers}.items()
            )
            self._sock.sendall(f"GET {self._path} HTTP/1.0\r\n{head}\r\n".encode())
            reader = self._sock.makefile("rb")
            status = int(reader.readline().split()[1])
            headers = {}
            while (line := reader.readline().decode().rstrip("\r\n")) != "":
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            self.response_headers = headers
            self.status = status
            if status != 200:
                self.items.append(json.loads(reader.read()))
                return
            lines = (raw.decode().rstrip("\r\n") for raw in reader)
            for item in sse_events(lines):
                self.items.append(item)
        except OSError:
            pass  # dropped
        finally:
            self.ended.set()

    @property
    def events(self) -> list[SseEvent]:
        return [i for i in self.items if isinstance(i, SseEvent)]

    def wait_for(self, predicate, timeout: float = 10) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self):
                return True
            if self.ended.is_set():
                return predicate(self)
            time.sleep(0.02)
        return False

    def drop(self) -> None:
        """Cuts the connection as a network failure would."""
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
            self._sock.close()
        self.ended.wait(10)
