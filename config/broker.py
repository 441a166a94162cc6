"""kombu's Redis transport, with unacknowledged messages that survive a broker restart.

Why: when Redis goes away, Celery's consumer (5.7) first collects the broken connection,
which detaches the transport from its `kombu.Connection` (`transport.client = None`),
then closes it. Closing the channel restores the unacknowledged messages (ETA tasks the
worker holds, with late acknowledgement every prefetched one) through a new Redis pool,
whose parameters come from `transport.client`: kombu 5.7.0 (the latest release) fails
with "AttributeError: 'NoneType' object has no attribute 'hostname'", which is no
connection error, so the worker exits ("Unrecoverable error"). Had it got that far,
Redis would still be down and the messages dropped from the worker's memory, left in
Redis's unacked hash until the visibility timeout (an hour) if Redis kept its data at
all.

What changes: a message that cannot be restored now (transport detached, or broker
unreachable) is kept in this process and restored by the next channel that connects,
that is when the worker reconnects. A task that was running then is acknowledged on the
old channel without touching Redis (kombu fails there in the same way, "'NoneType'
object has no attribute 'client'"); if its message was not restored yet, the
reconnection only clears it from the unacked hash, else it runs once more. A message is
restored the way kombu does it: in one Redis transaction that takes it out of the
unacked hash and pushes it back on its queue. If Redis lost its data (no persistence),
the copy the worker held is pushed instead. Either way the task runs once more from the
queue; if the outage outlasted the visibility timeout another worker may have restored
it too. Every task here tolerates a second run: they check the match version under a
lock.

`config/celery.py` registers this class for the `redis://` (and `redis+socket://`) URLs.
"""

import logging
import threading
from dataclasses import dataclass
from typing import Any

from kombu.transport import redis, virtual
from kombu.utils.encoding import bytes_to_str
from kombu.utils.json import dumps, loads

logger = logging.getLogger(__name__)


@dataclass
class _Unrestored:
    unacked_key: str
    unacked_index_key: str
    payload: dict[str, Any]
    exchange: str
    routing_key: str
    # Acknowledged (or rejected) after the channel lost its transport: the task ran, so
    # the next channel only clears it from Redis's unacked hash.
    finished: bool = False


# Messages this process could not hand back to Redis, by delivery tag; the next channel
# restores them.
_unrestored: dict[str, _Unrestored] = {}
_unrestored_lock = threading.Lock()


class QoS(redis.QoS):
    def restore_unacked(self, client: Any = None) -> None:
        delivered = list(self._delivered.items())
        self._delivered.clear()
        for index, (tag, _message) in enumerate(delivered):
            try:
                if not self.channel.attached:
                    _keep_for_later(self, delivered[index:])
                    return
                self.restore_by_tag(tag, client=client)
            except self.channel.connection_errors:
                _keep_for_later(self, delivered[index:])
                return

    # A task that ends after the connection was lost is acknowledged (or rejected) on
    # the old channel, which can no longer reach Redis: kombu 5.7 fails there too
    # ("'NoneType' object has no attribute 'client'") and the worker exits.
    def ack(self, delivery_tag: str) -> None:
        if self.channel.attached:
            super().ack(delivery_tag)
        else:
            _finished_while_detached(delivery_tag)
            virtual.QoS.ack(self, delivery_tag)

    def reject(self, delivery_tag: str, requeue: bool = False) -> None:
        if self.channel.attached:
            super().reject(delivery_tag, requeue=requeue)
        else:
            if not requeue:  # requeued: it stays kept, to be restored
                _finished_while_detached(delivery_tag)
            virtual.QoS.ack(self, delivery_tag)


def _keep_for_later(qos: QoS, delivered: list[tuple[str, Any]]) -> None:
    with _unrestored_lock:
        for tag, message in delivered:
            info = message.delivery_info
            _unrestored[tag] = _Unrestored(
                unacked_key=qos.unacked_key,
                unacked_index_key=qos.unacked_index_key,
                payload=message._raw,
                exchange=info["exchange"],
                routing_key=info["routing_key"],
            )
    logger.warning(
        "Broker unreachable: %d unacknowledged message(s) kept to restore on reconnection.",
        len(delivered),
    )


def _finished_while_detached(tag: str) -> None:
    """Not restored yet: the next channel only clears it. Already restored (a prefork
    worker handles its pool's results only once reconnected): it runs again, and finds
    nothing to do."""
    with _unrestored_lock:
        if tag in _unrestored:
            _unrestored[tag].finished = True


class Channel(redis.Channel):
    QoS = QoS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # raises unless Redis answered a PING
        self._restore_kept()

    @property
    def attached(self) -> bool:
        """Whether the transport still knows its connection parameters."""
        return self.connection is not None and self.connection.client is not None

    def _restore_kept(self) -> None:
        with _unrestored_lock:
            kept = dict(_unrestored)
        for tag, item in kept.items():
            try:
                self._restore_one(tag, item)
            except self.connection_errors:
                return  # the rest stay kept for the next channel
            with _unrestored_lock:
                _unrestored.pop(tag, None)
        if kept:
            logger.warning("Restored %d unacknowledged message(s) after reconnecting.", len(kept))

    def _restore_one(self, tag: str, item: _Unrestored) -> None:
        def restore_transaction(pipe: Any) -> None:
            stored = pipe.hget(item.unacked_key, tag)
            pipe.multi()
            pipe.zrem(item.unacked_index_key, tag).hdel(item.unacked_key, tag)
            if item.finished:
                return
            if stored:
                payload, exchange, routing_key = loads(bytes_to_str(stored))
            else:  # Redis restarted without its data: the copy this worker held
                payload, exchange, routing_key = item.payload, item.exchange, item.routing_key
            # A copy: the restore marks the payload redelivered.
            self._do_restore_message(loads(dumps(payload)), exchange, routing_key, pipe)

        with self.conn_or_acquire() as client:
            client.transaction(restore_transaction, item.unacked_key)


class Transport(redis.Transport):
    Channel = Channel
