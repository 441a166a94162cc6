"""Signed account events POSTed to a player's webhooks, delivered by Celery, never
blocking play. Signature: `X-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`."""

import contextlib
import hashlib
import hmac
import http.client
import ipaddress
import json
import random
import socket
import ssl
import threading
import time
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import SplitResult, urlsplit

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts.errors import WebhookRejected
from accounts.models import Webhook, WebhookDelivery
from accounts.secret_box import unseal

DELIVER_WEBHOOK = "accounts.tasks.deliver_webhook"

MAX_ATTEMPTS = 6
# A retry waits in Redis as a task with an ETA; one held longer than the visibility
# timeout is delivered again, so the longest wait stays a margin below it.
MAX_BACKOFF_SECONDS = max(
    1, min(300, settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] - 60)
)
# An attempt owns its delivery for this long: the exchange ends by the deadline (the
# address lookup before it aside), so a lease still held after that belongs to a worker
# that died mid-delivery.
LEASE = timedelta(seconds=settings.WEBHOOK_DEADLINE_SECONDS + 60)


def sign(secret: str, body: bytes, timestamp: int) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={digest.hexdigest()}"


def _parse(url: str) -> SplitResult:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebhookRejected("A webhook URL must be http:// or https:// with a host.")
    return parts


def _port(parts: SplitResult) -> int:
    """The URL's port (ValueError when out of range), else the scheme's."""
    return parts.port or (443 if parts.scheme == "https" else 80)


# Every range that is not a plain public unicast address, beyond what `is_global` knows:
# multicast, reserved and benchmarking ranges, and the IPv6 forms that embed or translate
# to an IPv4 address (IPv4-compatible, mapped, translated, NAT64, 6to4), which reach
# internal hosts on networks that route them. A receiver on such an address uses its
# plain address instead.
_NOT_PUBLIC = tuple(
    ipaddress.ip_network(n)
    for n in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
        "::/96",  # IPv4-compatible (and :: and ::1)
        "::ffff:0:0/96",  # IPv4-mapped
        "::ffff:0:0:0/96",  # IPv4-translated
        "64:ff9b::/96",  # NAT64, well-known prefix
        "64:ff9b:1::/48",  # NAT64, local use
        "100::/64",
        "2001::/23",  # Teredo and other IETF protocol assignments
        "2001:db8::/32",
        "2002::/16",  # 6to4
        "fc00::/7",
        "fe80::/10",
        "fec0::/10",  # site-local (deprecated, still routed on some networks)
        "ff00::/8",
    )
)


def is_public_address(address: str) -> bool:
    """Whether a webhook may be delivered to `address` (an IP address string)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone is not an address
    except ValueError:
        return False
    if not ip.is_global or ip.is_multicast or ip.is_reserved:
        return False
    return not any(ip.version == net.version and ip in net for net in _NOT_PUBLIC)


def _resolve(parts: SplitResult) -> str:
    """The one address to connect to, after checking every address the host has (unless
    the settings allow private ones): the connection is made to that very address, so a
    second DNS answer cannot point it elsewhere."""
    try:
        infos = socket.getaddrinfo(parts.hostname, _port(parts), type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise WebhookRejected(f"The webhook host does not resolve: {exc}") from exc
    addresses = [info[4][0] for info in infos]
    if not settings.WEBHOOKS_ALLOW_PRIVATE and not all(is_public_address(a) for a in addresses):
        raise WebhookRejected(
            "Webhooks cannot target private, loopback, multicast, reserved or unknown hosts."
        )
    return addresses[0]


def check_url(url: str) -> None:
    """Only http(s), and only public addresses unless the settings allow private ones."""
    parts = _parse(url)
    try:
        _port(parts)
    except ValueError as exc:
        raise WebhookRejected(f"Not a valid webhook URL: {exc}") from exc
    if not settings.WEBHOOKS_ALLOW_PRIVATE:
        _resolve(parts)


def _open(address: str, port: int) -> socket.socket:
    """A connection to `address` within WEBHOOK_CONNECT_SECONDS; each read on it then
    waits at most WEBHOOK_TIMEOUT_SECONDS."""
    sock = socket.create_connection((address, port), settings.WEBHOOK_CONNECT_SECONDS)
    sock.settimeout(settings.WEBHOOK_TIMEOUT_SECONDS)
    return sock


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """Talks to `address` (already checked), whatever the host name resolves to now."""

    def __init__(self, host: str, port: int, *, address: str) -> None:
        super().__init__(host, port, timeout=settings.WEBHOOK_TIMEOUT_SECONDS)
        self.address = address

    def connect(self) -> None:
        self.sock = _open(self.address, self.port)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """TLS to the pinned address; the certificate is still verified for the host name."""

    def __init__(self, host: str, port: int, *, address: str) -> None:
        self.tls = ssl.create_default_context()
        super().__init__(host, port, timeout=settings.WEBHOOK_TIMEOUT_SECONDS, context=self.tls)
        self.address = address

    def connect(self) -> None:
        self.sock = self.tls.wrap_socket(_open(self.address, self.port), server_hostname=self.host)


def _cut(conn: http.client.HTTPConnection, overran: threading.Event) -> None:
    """Ends an exchange that overran its deadline: a blocked read returns at once."""
    overran.set()
    sock = conn.sock
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _post(url: str, body: bytes, headers: dict[str, str]) -> int:
    """One POST; returns the status. Never follows a redirect (its target was not checked).
    The whole exchange ends by WEBHOOK_DEADLINE_SECONDS, however slowly the receiver
    answers; only the status line and headers are read (http.client bounds those), never
    the body."""
    parts = _parse(url)
    address = _resolve(parts)
    pinned = _PinnedHTTPSConnection if parts.scheme == "https" else _PinnedHTTPConnection
    # An explicit port: http.client would read the end of a bare IPv6 host as one.
    conn = pinned(parts.hostname, _port(parts), address=address)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    overran = threading.Event()
    watchdog = threading.Timer(settings.WEBHOOK_DEADLINE_SECONDS, _cut, args=(conn, overran))
    watchdog.start()
    late = TimeoutError(f"no answer within {settings.WEBHOOK_DEADLINE_SECONDS:g} s")
    try:
        conn.connect()
        if overran.is_set():  # the deadline passed while connecting: nothing to cut then
            raise OSError("the connection took the whole deadline")
        conn.request("POST", path, body=body, headers=headers)
        status = conn.getresponse().status
    except (OSError, http.client.HTTPException) as exc:
        if overran.is_set():
            raise late from exc
        raise
    finally:
        watchdog.cancel()
        conn.close()
    # A cut can also read as the end of the headers: an answer cut short is no answer.
    if overran.is_set():
        raise late
    return status


def deliveries_record(bodies: list[tuple[int, dict[str, Any]]]) -> None:
    """A delivery of each (user_id, body) to every active webhook of that user, in the
    caller's transaction; each is sent after the commit. Only the publisher of games'
    events (`games.services.publish`) calls it."""
    if not bodies:
        return
    hooks: dict[int, list[int]] = {}
    for pk, user_id in Webhook.objects.filter(
        user_id__in={user_id for user_id, _ in bodies}, active=True
    ).values_list("pk", "user_id"):
        hooks.setdefault(user_id, []).append(pk)
    deliveries = WebhookDelivery.objects.bulk_create(
        [
            WebhookDelivery(webhook_id=pk, event=body["event"], payload=body)
            for user_id, body in bodies
            for pk in hooks.get(user_id, ())
        ]
    )
    if deliveries:
        _enqueue([(d.pk, 0) for d in deliveries])


def _enqueue(attempts_by_id: list[tuple[int, int]]) -> None:
    """Sends a task per delivery after the commit, each with the attempts made so far: a
    task whose count is out of date is a duplicate and does nothing (`deliver`)."""
    # By task name: the task module imports this one (no import cycle). `robust`: with
    # the broker down the change that notifies has committed, so its request must not
    # fail; the error is logged, the deliveries stay pending and the sweep resends them.
    transaction.on_commit(
        lambda: [
            current_app.send_task(DELIVER_WEBHOOK, args=(pk, attempts))
            for pk, attempts in attempts_by_id
        ],
        robust=True,
    )


def retry_delay(attempts: int) -> float:
    """Seconds before the next attempt after `attempts` failed ones: exponential from 2 s,
    at most MAX_BACKOFF_SECONDS, with jitter so receivers back up do not get them all at
    once."""
    ceiling = min(MAX_BACKOFF_SECONDS, 2 * 2 ** max(0, attempts - 1))
    return random.uniform(ceiling / 2, ceiling)


def _claim(delivery_id: int, attempts: int | None, now: datetime) -> bool:
    """Takes the delivery for one attempt (counted now, so a worker dying mid-delivery
    still uses one up). Refused when it is done, when another attempt holds its lease, or
    when `attempts` (the count the task was sent with) is out of date: two tasks for one
    delivery never both send it."""
    claimable = WebhookDelivery.objects.filter(
        Q(leased_until__isnull=True) | Q(leased_until__lte=now),
        pk=delivery_id,
        status=WebhookDelivery.Status.PENDING,
    )
    if attempts is not None:
        claimable = claimable.filter(attempts=attempts)
    return bool(claimable.update(attempts=F("attempts") + 1, leased_until=now + LEASE))


def resend_stuck(*, now: datetime | None = None, limit: int = 500) -> int:
    """Sends again the pending deliveries whose next attempt is overdue by
    WEBHOOK_STUCK_SECONDS with no attempt under way: their task was lost (a worker killed
    mid-delivery, the broker down when they were made). Returns how many. Run by beat;
    two sweeps at once skip each other's rows, and a resent row is due afresh, so no
    delivery is sent twice."""
    now = now or timezone.now()
    overdue = now - timedelta(seconds=settings.WEBHOOK_STUCK_SECONDS)
    with transaction.atomic():
        stuck = list(
            WebhookDelivery.objects.select_for_update(skip_locked=True)
            .filter(
                Q(leased_until__isnull=True) | Q(leased_until__lte=now),
                status=WebhookDelivery.Status.PENDING,
                next_attempt_at__lt=overdue,
            )
            .order_by("next_attempt_at")
            .values_list("pk", "attempts")[:limit]
        )
        if stuck:
            WebhookDelivery.objects.filter(pk__in=[pk for pk, _ in stuck]).update(
                next_attempt_at=now
            )
            _enqueue(stuck)
    return len(stuck)


def deliver(delivery_id: int, attempts: int | None = None) -> bool:
    """One attempt, if the delivery is still pending, free, and (given `attempts`) at that
    count. Returns True when there is nothing more for this task to do (delivered, given
    up, or another task's), False to retry at the delivery's `next_attempt_at`."""
    if not _claim(delivery_id, attempts, timezone.now()):
        return True
    delivery = WebhookDelivery.objects.select_related("webhook").filter(pk=delivery_id).first()
    if delivery is None:  # its webhook was deleted meanwhile
        return True
    hook = delivery.webhook
    body = json.dumps(delivery.payload, separators=(",", ":")).encode()
    delivery.last_status_code = None
    try:
        status = _post(
            hook.url,
            body,
            {
                "Content-Type": "application/json",
                "X-Signature": sign(unseal(hook.encrypted_secret), body, int(time.time())),
                "X-Delivery-Id": str(delivery.pk),
                "User-Agent": "liarsdice-webhooks/1",
            },
        )
    except Exception as exc:  # whatever the receiver or the network did: record, retry
        delivery.last_error = f"{type(exc).__name__}: {exc}"[:300]
    else:
        delivery.last_status_code = status
        if 200 <= status < 300:
            delivery.status = WebhookDelivery.Status.DELIVERED
            delivery.delivered_at = timezone.now()
            delivery.last_error = ""
        elif 300 <= status < 400:
            delivery.last_error = f"HTTP {status}: redirects are not followed"
        else:
            delivery.last_error = f"HTTP {status}"
    done = delivery.status == WebhookDelivery.Status.DELIVERED
    if not done and delivery.attempts >= MAX_ATTEMPTS:
        delivery.status = WebhookDelivery.Status.FAILED
        done = True
    if not done:
        delivery.next_attempt_at = timezone.now() + timedelta(
            seconds=retry_delay(delivery.attempts)
        )
    delivery.leased_until = None
    delivery.save(
        update_fields=[
            "status",
            "last_status_code",
            "last_error",
            "delivered_at",
            "next_attempt_at",
            "leased_until",
        ]
    )
    return done
