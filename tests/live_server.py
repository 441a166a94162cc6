"""The real web server (gunicorn + the uvicorn worker of config/server.py, as the
Procfile runs it) on the test database, for tests of what only a real server shows:
clients that wait, event streams, shutdown, the HTTP parser's refusals."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


def database_url() -> str:
    """The test database (the one pytest-django created) on the server DATABASE_URL
    names."""
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path="/" + connection.settings_dict["NAME"]))


@dataclass
class Server:
    url: str
    proc: subprocess.Popen
    log: Path
    pids: list[int] = field(default_factory=list)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

    def tail(self) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-40:])


@contextlib.contextmanager
def asgi_server(*, workers: int = 2, env: dict[str, str] | None = None) -> Iterator[Server]:
    """Starts the Procfile's web server on a free port (the OS picks it) and yields it."""
    log = Path(tempfile.mkstemp(prefix="asgi-server-", suffix=".log")[1])
    child_env = dict(os.environ)
    child_env.update(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATABASE_URL=database_url(),
        TEST_CELERY_QUEUE=settings.CELERY_TASK_DEFAULT_QUEUE,
        DATABASE_POOL_SIZE="8",
        **(env or {}),
    )
    command = [
        str(Path(sys.executable).with_name("gunicorn")),
        "config.asgi:application",
        "--bind",
        "127.0.0.1:0",
        "--worker-class",
        "config.server.Worker",
        "--workers",
        str(workers),
        "--graceful-timeout",
        "20",
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(command, cwd=ROOT, env=child_env, stdout=out, stderr=out)
    server = Server(url="", proc=proc, log=log)
    try:
        server.url = _wait_listening(server, workers)
        yield server
    finally:
        server.stop()
        log.unlink(missing_ok=True)


def _wait_listening(server: Server, workers: int) -> str:
    deadline = time.monotonic() + 60
    url = None
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise RuntimeError(f"the server exited:\n{server.tail()}")
        text = server.log.read_text(errors="replace")
        found = re.search(r"Listening at: (http://127\.0\.0\.1:\d+)", text)
        booted = len(re.findall(r"Application startup complete", text))
        if found and booted >= workers:
            url = found.group(1)
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/api/v1/rulesets/", timeout=5).status_code == 200:
                    return url
        time.sleep(0.2)
    raise RuntimeError(f"the server did not start:\n{server.tail()}")


# --- Server-Sent Events ------------------------------------------------------------------


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
