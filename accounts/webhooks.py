"""Signed turn notifications to a player's webhooks, delivered by Celery, never blocking
play. Signature: `X-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`."""

import hashlib
import hmac
import http.client
import ipaddress
import json
import socket
import ssl
import time
from typing import Any
from urllib.parse import SplitResult, urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import Webhook, WebhookDelivery
from core.errors import DomainError

MAX_ATTEMPTS = 6


class WebhookRejected(DomainError):
    code = "invalid_webhook_url"


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


def _resolve(parts: SplitResult) -> str:
    """The one address to connect to, after checking every address the host has (unless
    the settings allow private ones): the connection is made to that very address, so a
    second DNS answer cannot point it elsewhere."""
    try:
        infos = socket.getaddrinfo(parts.hostname, _port(parts), type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise WebhookRejected(f"The webhook host does not resolve: {exc}") from exc
    addresses = [info[4][0] for info in infos]
    if not settings.WEBHOOKS_ALLOW_PRIVATE and not all(
        ipaddress.ip_address(a).is_global for a in addresses
    ):
        raise WebhookRejected("Webhooks cannot target private, loopback or unknown hosts.")
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


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """Talks to `address` (already checked), whatever the host name resolves to now."""

    def __init__(self, host: str, port: int, *, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """TLS to the pinned address; the certificate is still verified for the host name."""

    def __init__(self, host: str, port: int, *, address: str, timeout: float) -> None:
        self.tls = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self.tls)
        self.address = address

    def connect(self) -> None:
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self.tls.wrap_socket(sock, server_hostname=self.host)


def _post(url: str, body: bytes, headers: dict[str, str]) -> int:
    """One POST; returns the status. Never follows a redirect (its target was not checked)."""
    parts = _parse(url)
    address = _resolve(parts)
    pinned = _PinnedHTTPSConnection if parts.scheme == "https" else _PinnedHTTPConnection
    # An explicit port: http.client would read the end of a bare IPv6 host as one.
    conn = pinned(
        parts.hostname, _port(parts), address=address, timeout=settings.WEBHOOK_TIMEOUT_SECONDS
    )
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        conn.request("POST", path, body=body, headers=headers)
        return conn.getresponse().status
    finally:
        conn.close()


def notify_players(*, user_ids: list[int], event: str, payload: dict[str, Any]) -> None:
    """Records a delivery per active webhook of these players; sends after the commit."""
    if not user_ids:
        return
    hooks = list(
        Webhook.objects.filter(user_id__in=user_ids, active=True).values_list("pk", flat=True)
    )
    if not hooks:
        return
    deliveries = WebhookDelivery.objects.bulk_create(
        [
            WebhookDelivery(webhook_id=pk, event=event, payload={"event": event, **payload})
            for pk in hooks
        ]
    )
    from accounts.tasks import deliver_webhook

    ids = [d.pk for d in deliveries]
    transaction.on_commit(lambda: [deliver_webhook.delay(pk) for pk in ids])


def deliver(delivery_id: int) -> bool:
    """One attempt. Returns True when done (delivered, or given up), False to retry."""
    delivery = WebhookDelivery.objects.select_related("webhook").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != WebhookDelivery.Status.PENDING:
        return True
    hook = delivery.webhook
    body = json.dumps(delivery.payload, separators=(",", ":")).encode()
    delivery.attempts += 1
    delivery.last_status_code = None
    try:
        status = _post(
            hook.url,
            body,
            {
                "Content-Type": "application/json",
                "X-Signature": sign(hook.secret, body, int(time.time())),
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
    delivery.save()
    return done
