"""`Idempotency-Key` for mutating POSTs (API.md): the first response is kept per user and
key; a replay with the same body returns it, a different body is a 422, a replay while
the first request still runs is a 409. The key is claimed by a committed INSERT before
the work starts, so two identical requests racing each other still act once."""

import functools
import hashlib
import json
from collections.abc import Callable
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.response import Response

from config.errors import ConflictError, DomainError
from games.models import IdempotencyRecord

KEEP_FOR = timedelta(hours=24)
HEADER = "Idempotency-Key"


def _fingerprint(request: Request) -> str:
    body = json.dumps(request.data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{request.method} {request.path}\n{body}".encode()).hexdigest()


def _claim(request: Request, key: str, fingerprint: str) -> IdempotencyRecord | None:
    """Returns the existing record, or None once this request owns the key. The claim
    commits at once, so a concurrent duplicate sees it (migration 0004 says why it need
    not wait for the disk)."""
    stale_before = timezone.now() - KEEP_FOR
    for _ in range(2):
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT games_claim_idempotency_key(%s, %s, %s)",
                [request.user.pk, key, fingerprint],
            )
            if cursor.fetchone()[0] is not None:
                return None
        existing = IdempotencyRecord.objects.filter(user=request.user, key=key).first()
        if existing is not None and existing.created_at >= stale_before:
            return existing
        # Expired (kept 24 h): forget it and claim the key afresh.
        IdempotencyRecord.objects.filter(
            user=request.user, key=key, created_at__lt=stale_before
        ).delete()
    return None


def _store(request: Request, key: str, response: Response) -> None:
    IdempotencyRecord.objects.filter(user=request.user, key=key).update(
        response_status=response.status_code, response_body=response.data
    )


def _release(request: Request, key: str) -> None:
    IdempotencyRecord.objects.filter(user=request.user, key=key).delete()


def idempotent(handler: Callable) -> Callable:
    @functools.wraps(handler)
    def wrapper(view, request: Request, *args, **kwargs) -> Response:
        key = request.headers.get(HEADER)
        if key is None:
            return handler(view, request, *args, **kwargs)
        if not 1 <= len(key) <= 255:
            raise DomainError(f"{HEADER} must be 1 to 255 characters.", code="validation_error")
        fingerprint = _fingerprint(request)
        existing = _claim(request, key, fingerprint)
        if existing is not None:
            if existing.request_hash != fingerprint:
                raise DomainError(
                    f"This {HEADER} was used with a different request.",
                    code="idempotency_key_reused",
                    status=422,
                )
            if existing.response_status is None:
                raise ConflictError(
                    "The first request with this key is still running.",
                    code="idempotency_key_in_use",
                )
            replay = Response(
                existing.response_body,
                status=existing.response_status,
                headers={"Idempotent-Replayed": "true"},
            )
            if existing.response_status >= 400:
                replay.content_type = "application/problem+json"
            return replay
        try:
            # The work and its stored response commit together: a crash can never leave
            # an action applied with its key unanswered.
            with transaction.atomic():
                response = handler(view, request, *args, **kwargs)
                if response.status_code < 500:
                    _store(request, key, response)
        except Exception as exc:
            response = view.handle_exception_for_idempotency(exc)
            if response is None or response.status_code >= 500:
                _release(request, key)
                raise
            _store(request, key, response)
            return response
        if response.status_code >= 500:
            _release(request, key)
        return response

    return wrapper
