"""PostgreSQL LISTEN/NOTIFY fanned out in memory to the clients that wait.

Writers call `notify(channel, key)` inside their transaction: PostgreSQL delivers the
notification only if it commits, after the rows it announces are visible. Each event loop
(one per web process) keeps ONE listening connection (psycopg 3, async) and wakes every
waiter subscribed to that channel and key, so a waiting client holds no thread and no
database connection.

A waiter subscribes, then reads what it waits for, then waits: a notification sent
between the read and the wait still wakes it. Silence can be trusted only while the
listener stayed connected since the subscription (`Subscription.reliable`); when the
listener reconnects it wakes every waiter once, and a waiter that subscribed while it was
down re-reads on a short timer. `drain()` (graceful shutdown) wakes every waiter with
`closing` set, so long polls answer and streams end, and clients resume elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections import defaultdict
from collections.abc import AsyncIterator

import psycopg
from django.db import connection, connections

logger = logging.getLogger(__name__)

# How long a listener waits before reconnecting after losing its connection.
RECONNECT_SECONDS = 1.0
# How long a new waiter waits for the listener to connect before reading anyway.
CONNECT_WAIT_SECONDS = 2.0
# Connection settings Django passes to psycopg that are not libpq connection parameters.
_NOT_LIBPQ = ("cursor_factory", "context", "pool", "server_side_binding", "prepare_threshold")


# Channels every listener LISTENs to from its first connection (`listen_on`); a channel
# first named by a subscription is added within a second.
_known_channels: set[str] = set()


def listen_on(channel: str) -> str:
    """Declares a channel (at import time) so listeners listen to it from the start."""
    _known_channels.add(channel)
    return channel


def notify(channel: str, key: object) -> None:
    """Announces `key` on `channel` when the current transaction commits."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [channel, str(key)])


class Subscription:
    """One waiter's interest in some (channel, key) names."""

    def __init__(self, hub: Hub, names: list[tuple[str, str]]) -> None:
        self.hub = hub
        self.names = names
        self._woken = asyncio.Event()
        self._woken_by: set[tuple[str, str]] = set()
        self._epoch = hub.epoch if hub.listening else -1

    @property
    def reliable(self) -> bool:
        """Whether no notification can have been missed since subscribing."""
        return self.hub.listening and self.hub.epoch == self._epoch

    @property
    def closing(self) -> bool:
        return self.hub.closing

    def wake(self, name: tuple[str, str] | None = None) -> None:
        """Wakes the waiter for (channel, key) `name`, or for all of them (None)."""
        self._woken_by.update([name] if name else self.names)
        self._woken.set()

    def take_woken(self, channel: str, key: object) -> bool:
        """Whether (channel, key) woke the waiter since the last call."""
        name = (channel, str(key))
        found = name in self._woken_by
        self._woken_by.discard(name)
        return found

    async def wait(self, timeout: float) -> bool:
        """Waits up to `timeout` seconds; True when woken (a notification, a reconnect,
        the shutdown), False when the time ran out."""
        if self.hub.closing:
            return True
        try:
            async with asyncio.timeout(max(timeout, 0)):
                await self._woken.wait()
        except TimeoutError:
            return False
        self._woken.clear()
        return True


class Hub:
    """The listening connection of one event loop and the waiters it wakes."""

    def __init__(self, *, persistent: bool) -> None:
        # A persistent hub (the server's loop) keeps listening with no waiters; another
        # (a test client's short-lived loop) closes its connection with its last waiter.
        self.persistent = persistent
        self.epoch = 0
        self.listening = False
        self.closing = False
        self._waiters: dict[tuple[str, str], set[Subscription]] = defaultdict(set)
        # Notifications counted as they arrive, and the count at the last one per name
        # that has waiters (`mark`, `quiet_since`).
        self._tick = 0
        self._last_tick: dict[tuple[str, str], int] = {}
        self._channels: set[str] = set(_known_channels)
        self._listened: set[str] = set()
        self._task: asyncio.Task | None = None
        self._connected = asyncio.Event()

    def waiter_count(self) -> int:
        return sum(len(s) for s in self._waiters.values())

    @contextlib.asynccontextmanager
    async def subscribe(self, *keys: tuple[str, object]) -> AsyncIterator[Subscription]:
        """Subscribes one waiter to every (channel, key) of `keys`."""
        if not self.listening:
            self._channels.update(channel for channel, _ in keys)
            self._ensure_running()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CONNECT_WAIT_SECONDS):
                    await self._connected.wait()
        names = [(channel, str(key)) for channel, key in keys]
        sub = Subscription(self, names)
        for name in names:
            self._waiters[name].add(sub)
        if not self._channels.issuperset(c for c, _ in names):
            self._channels.update(c for c, _ in names)
            sub._epoch = -1  # the new channel is listened to from the next round only
        try:
            yield sub
        finally:
            for name in names:
                waiting = self._waiters.get(name)
                if waiting is not None:
                    waiting.discard(sub)
                    if not waiting:
                        del self._waiters[name]
                        self._last_tick.pop(name, None)
            if not self.persistent and not self._waiters:
                await self.stop()

    def _ensure_running(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name="notifications-listener"
            )

    async def _run(self) -> None:
        params = connections["default"].get_connection_params()
        params = {k: v for k, v in params.items() if k not in _NOT_LIBPQ}
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(**params, autocommit=True)
                async with conn:
                    self._listened = set()
                    await self._listen_new(conn)
                    self.epoch += 1
                    self.listening = True
                    self._connected.set()
                    self._wake_all()  # whatever was announced while down is re-read
                    while True:
                        async for note in conn.notifies(timeout=1.0):
                            self._wake(note.channel, note.payload)
                        await self._listen_new(conn)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("notification listener lost its connection; reconnecting")
            finally:
                self.listening = False
                self._connected.clear()
            await asyncio.sleep(RECONNECT_SECONDS)

    async def _listen_new(self, conn: psycopg.AsyncConnection) -> None:
        for channel in sorted(self._channels - self._listened):
            await conn.execute(psycopg.sql.SQL("LISTEN {}").format(psycopg.sql.Identifier(channel)))
            self._listened.add(channel)

    def mark(self, sub: Subscription) -> tuple[int, int]:
        """Where the listener stands now, as seen by `sub`, for `quiet_since`."""
        return (self.epoch if sub.reliable else -1, self._tick)

    def quiet_since(self, mark: tuple[int, int], channel: str, key: object) -> bool:
        """Whether no notification on (channel, key) can have arrived since `mark`, taken
        while (channel, key) had a waiter that has had one ever since: the listener stayed
        connected and nothing came for that name. A read started at `mark` then still
        holds everything committed before now, or the commit's notification is yet to
        come and will wake whoever is subscribed now."""
        epoch, tick = mark
        return (
            self.listening
            and epoch == self.epoch
            and self._last_tick.get((channel, str(key)), 0) <= tick
        )

    def _wake(self, channel: str, key: str) -> None:
        name = (channel, key)
        waiting = self._waiters.get(name)
        if waiting:
            self._tick += 1
            self._last_tick[name] = self._tick
            for sub in waiting:
                sub.wake(name)

    def _wake_all(self) -> None:
        for waiting in self._waiters.values():
            for sub in waiting:
                sub.wake()

    def drain(self) -> None:
        """Graceful shutdown: every waiter is woken with `closing` set."""
        self.closing = True
        self._wake_all()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._task = None


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()
_persistent_loops: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()


def serve_on_this_loop() -> None:
    """Marks the running loop as a server's: its hub keeps listening between waiters."""
    _persistent_loops.add(asyncio.get_running_loop())


def hub() -> Hub:
    """The running event loop's hub."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        found = _hubs[loop] = Hub(persistent=loop in _persistent_loops)
    return found


def drain() -> None:
    """Graceful shutdown of the running loop's waiters (called by the server)."""
    serve_on_this_loop()
    hub().drain()
