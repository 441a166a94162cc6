"""Signed turn notifications to a player's webhooks, delivered by Celery, never blocking
play. Signature: `X-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`."""

import hashlib
import hmac
import ipaddress
import json
import socket
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import Webhook, WebhookDelivery
from config.errors import DomainError

MAX_ATTEMPTS = 6


class WebhookRejected(DomainError):
    code = "invalid_webhook_url"


def sign(secret: str, body: bytes, timestamp: int) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={digest.hexdigest()}"


def _public_address(host: str) -> bool:
    try:
        infos = socket.getaddrinfo(host, None)
    except socket.gaierror:
        return False
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if not address.is_global:
            return False
    return True


def check_url(url: str) -> None:
    """Only http(s), and only public addresses unless the settings allow private ones."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebhookRejected("A webhook URL must be http:// or https:// with a host.")
    if not settings.WEBHOOKS_ALLOW_PRIVATE and not _public_address(parts.hostname):
        raise WebhookRejected("Webhooks cannot target private, loopback or unknown hosts.")


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
    try:
        check_url(hook.url)
        request = urllib.request.Request(
            hook.url,
            data=body,
            method="POST",
            headers={
                "Content-Type": "application/json",
                "X-Signature": sign(hook.secret, body, int(time.time())),
                "X-Delivery-Id": str(delivery.pk),
                "User-Agent": "liarsdice-webhooks/1",
            },
        )
        with urllib.request.urlopen(request, timeout=settings.WEBHOOK_TIMEOUT_SECONDS) as resp:
            delivery.last_status_code = resp.status
        delivery.status = WebhookDelivery.Status.DELIVERED
        delivery.delivered_at = timezone.now()
        delivery.last_error = ""
    except urllib.error.HTTPError as exc:
        delivery.last_status_code = exc.code
        delivery.last_error = f"HTTP {exc.code}"
    except (OSError, WebhookRejected) as exc:
        delivery.last_error = str(exc)[:300]
    done = delivery.status == WebhookDelivery.Status.DELIVERED
    if not done and delivery.attempts >= MAX_ATTEMPTS:
        delivery.status = WebhookDelivery.Status.FAILED
        done = True
    delivery.save()
    return done
