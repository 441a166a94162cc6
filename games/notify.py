"""Wakes long polls when a match writes events: PostgreSQL LISTEN/NOTIFY.

Writers call `notify_match(match_id)` inside their transaction; PostgreSQL delivers the
notification only if it commits. Each web process keeps one listening connection in a
background thread and wakes the threads waiting on that match. Waiters hold no database
transaction while they wait; their request thread's persistent connection (CONN_MAX_AGE)
stays open and idle, as between any two requests, since the waiter reads the events
again when woken. A waiter also re-reads them every few seconds by itself, so a listener
that died costs latency, not lost events; the next `register()` starts a new one.
"""

import contextlib
import logging
import threading
from collections import defaultdict

import psycopg
from django.db import connection, connections

logger = logging.getLogger(__name__)

CHANNEL = "match_events"


def notify_match(match_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, str(match_id)])


class _Listener:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[int, set[threading.Event]] = defaultdict(set)
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stopping = threading.Event()

    def _ensure_running(self) -> None:
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._ready.clear()
            params = connections["default"].get_connection_params()
            self._thread = threading.Thread(
                target=self._run, args=(params,), name="match-events-listener", daemon=True
            )
            self._thread.start()
        self._ready.wait(timeout=5)

    def _run(self, params: dict) -> None:
        params = {k: v for k, v in params.items() if k not in ("cursor_factory", "context")}
        try:
            with psycopg.connect(**params, autocommit=True) as conn:
                conn.execute(f"LISTEN {CHANNEL}")
                self._ready.set()
                while not self._stopping.is_set():
                    for note in conn.notifies(timeout=1.0):
                        with contextlib.suppress(ValueError):
                            self._wake(int(note.payload))
        except Exception:
            logger.exception("match event listener stopped; it restarts on the next wait")
        finally:
            self._ready.set()

    def _wake(self, match_id: int) -> None:
        with self._lock:
            waiters = list(self._waiters.get(match_id, ()))
        for event in waiters:
            event.set()

    def stop(self) -> None:
        """Closes the listening connection (tests drop their database afterwards)."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._thread = None
        self._stopping.clear()

    def register(self, match_id: int) -> threading.Event:
        self._ensure_running()
        event = threading.Event()
        with self._lock:
            self._waiters[match_id].add(event)
        return event

    def unregister(self, match_id: int, event: threading.Event) -> None:
        with self._lock:
            waiters = self._waiters.get(match_id)
            if waiters is not None:
                waiters.discard(event)
                if not waiters:
                    del self._waiters[match_id]


listener = _Listener()
