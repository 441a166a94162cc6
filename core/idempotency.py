"""`Idempotency-Key` for mutating POSTs (API.md): the first response is kept per user and
key; a replay with the same body returns it, a different body is a 422, a replay while
the first request still runs is a 409. The key is claimed by a committed INSERT before
the work starts, so two identical requests racing each other still act once.

While it works, the request owning a key holds a PostgreSQL session advisory lock for it,
and only a request holding that lock may claim or take over the key. PostgreSQL drops
the lock with the owner's connection, so when the process running a request is killed,
a retry can take its lock at once and knows the claim left behind is abandoned.

Savepoints only where an error inside may be recovered from: a nested
`transaction.atomic()` costs two round trips (SAVEPOINT, RELEASE) so that its caller may
catch an error from inside it and go on. An idempotent request runs its whole change in
one block that any error rolls back whole (`all_or_nothing`), so a service's block
directly inside it needs no savepoint (`service_atomic`); anywhere else it keeps
Django's."""

import contextlib
import functools
import hashlib
import hmac
import json
import logging
import re
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import Q
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter
from rest_framework.request import Request
from rest_framework.response import Response

from core.errors import IdempotencyKeyInUse, IdempotencyKeyReused, InvalidIdempotencyKey
from core.inputs import UNSTORABLE_CHARACTERS
from core.models import IdempotencyRecord
from core.prebuilt import table

logger = logging.getLogger(__name__)

# How deeply `all_or_nothing`'s own block is nested (Django's savepoint_ids) while it runs.
_whole_at: ContextVar[int | None] = ContextVar("all_or_nothing_at", default=None)


@contextlib.contextmanager
def all_or_nothing() -> Iterator[None]:
    """`transaction.atomic()` for a change no code inside continues after an error."""
    with transaction.atomic():
        token = _whole_at.set(len(connection.savepoint_ids))
        try:
            yield
        finally:
            _whole_at.reset(token)


def service_atomic() -> transaction.Atomic:
    """`transaction.atomic()` for a service: with no savepoint directly inside
    `all_or_nothing` (an error then rolls back the whole change, as it would anyway)."""
    whole_at = _whole_at.get()
    directly_inside = (
        whole_at is not None
        and connection.in_atomic_block
        and whole_at == len(connection.savepoint_ids)
    )
    return transaction.atomic(savepoint=not directly_inside)


KEEP_FOR = timedelta(hours=24)
# The first key of the owner locks (the second is a hash of user and key), apart from
# other advisory locks of the application.
OWNER_LOCK_SPACE = 0x1D3
HEADER = "Idempotency-Key"
IDEMPOTENCY_HEADER = OpenApiParameter(
    HEADER,
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="Replays return the first response (kept 24 h).",
)
_CONTROL = re.compile("[\x00-\x1f\x7f]")


def _fingerprint(request: Request, secret_fields: Sequence[str] = ()) -> str:
    data = request.data
    if secret_fields and isinstance(data, dict):
        # A secret in the body is fingerprinted by a keyed hash, so the stored fingerprint
        # cannot be used to guess it offline.
        data = {
            k: _keyed_hash(v) if k in secret_fields and isinstance(v, str) else v
            for k, v in data.items()
        }
    body = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{request.method} {request.path}\n{body}".encode()).hexdigest()


def _keyed_hash(value: str) -> str:
    return hmac.new(settings.SECRET_KEY.encode(), value.encode(), hashlib.sha256).hexdigest()


def _without(body: Any, secret_fields: Sequence[str]) -> Any:
    """The response body kept for replays: the secret fields of a JSON object left out."""
    if not secret_fields or not isinstance(body, dict):
        return body
    return {k: v for k, v in body.items() if k not in secret_fields}


def _take_owner_lock_and_claim(request: Request, key: str, fingerprint: str) -> tuple[bool, bool]:
    """(whether this request now holds the key's owner lock, whether it also claimed the
    key), in one round trip. Taking the lock never waits: a request that cannot take it
    is a duplicate of one still running. The claim is tried only with the lock held."""
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT locked, CASE WHEN locked THEN core_claim_idempotency_key(%s, %s, %s)"
                " END FROM (SELECT pg_try_advisory_lock(%s, hashtext(%s)) AS locked) owner",
                [request.user.pk, key, fingerprint, OWNER_LOCK_SPACE, f"{request.user.pk}:{key}"],
            )
            locked, claimed = cursor.fetchone()
    except DatabaseError:
        # A session lock outlives the failed statement that took it: the connection must
        # not go back to the pool holding it.
        _release_owner_lock(request, key)
        raise
    return locked, claimed is not None


def _release_owner_lock(request: Request, key: str) -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_unlock(%s, hashtext(%s))",
                [OWNER_LOCK_SPACE, f"{request.user.pk}:{key}"],
            )
    except DatabaseError as exc:
        # The connection is gone, and the lock with it; a pooled connection must not be
        # reused holding it, though.
        logger.warning("idempotency: could not release the owner lock: %s", exc)
        connection.close()


def _claim(request: Request, key: str, fingerprint: str) -> IdempotencyRecord | None:
    """Returns the existing record, or None once this request owns the key, after a first
    claim failed. Called with the owner lock held, so a record still without a response
    is abandoned: its owner died (it would hold the lock otherwise). A claim commits at
    once, so a request that cannot check the lock sees it (core migration 0003 says why
    it need not wait for the disk)."""
    for attempt in range(3):
        if attempt:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT core_claim_idempotency_key(%s, %s, %s)",
                    [request.user.pk, key, fingerprint],
                )
                if cursor.fetchone()[0] is not None:
                    return None
        stale = Q(created_at__lt=timezone.now() - KEEP_FOR) | Q(response_status__isnull=True)
        if IdempotencyRecord.objects.filter(stale, user=request.user, key=key).delete()[0]:
            continue  # expired or abandoned: claim the key afresh
        existing = IdempotencyRecord.objects.filter(user=request.user, key=key).first()
        if existing is not None:
            return existing
    # Only a pathological race (claimed, expired and purged by others in between).
    raise IdempotencyKeyInUse("Another request is claiming this key.")


def _storable(value: Any) -> Any:
    """`value` with every string made storable: a NUL or lone surrogate echoed from the
    input (in an error message, say) becomes U+FFFD."""
    if isinstance(value, str):
        return UNSTORABLE_CHARACTERS.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_storable(k): _storable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_storable(item) for item in value]
    return value


def _store(
    request: Request, key: str, response: Response, secret_fields: Sequence[str] = ()
) -> None:
    # Every POST with a key runs this: hand-written, as building the UPDATE costs more
    # than running it; the body is adapted by the field, as the ORM would.
    body = IdempotencyRecord._meta.get_field("response_body").get_db_prep_save(
        _storable(_without(response.data, secret_fields)), connection
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table(IdempotencyRecord)} SET response_status = %s,"
            " response_body = %s WHERE user_id = %s AND key = %s",
            [response.status_code, body, request.user.pk, key],
        )


def _store_or_release(request: Request, key: str, response: Response) -> None:
    """Keeps an error response for replays; if it cannot be kept, frees the key rather
    than leaving it claimed with no answer (a retry then simply runs again)."""
    try:
        with transaction.atomic():
            _store(request, key, response)
    except Exception:
        logger.exception("idempotency: could not store a %s response", response.status_code)
        _release(request, key)


def _release(request: Request, key: str) -> None:
    IdempotencyRecord.objects.filter(user=request.user, key=key).delete()


def purge_expired(*, now: datetime | None = None) -> int:
    """Deletes the records older than KEEP_FOR (API.md keeps them at least 24 h) and
    returns how many went. Run periodically by Celery beat."""
    cutoff = (now or timezone.now()) - KEEP_FOR
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted


class IdempotentView:
    """Mixed into an APIView whose POSTs are `@idempotent`: the error response kept for
    replays is the view's usual problem+json."""

    def handle_exception_for_idempotency(self, exc: Exception) -> Response | None:
        return self.get_exception_handler()(exc, self.get_exception_handler_context())


def _check_key(key: str) -> None:
    if not 1 <= len(key) <= 255 or _CONTROL.search(key):
        raise InvalidIdempotencyKey(
            f"{HEADER} must be 1 to 255 characters, none of them control characters."
        )


def _answer_from(existing: IdempotencyRecord | None, fingerprint: str) -> Response:
    """The answer to a request whose key another request holds or answered."""
    if existing is not None and existing.request_hash != fingerprint:
        raise IdempotencyKeyReused(f"This {HEADER} was used with a different request.")
    if existing is None or existing.response_status is None:
        raise IdempotencyKeyInUse("The first request with this key is still running.")
    replay = Response(
        existing.response_body,
        status=existing.response_status,
        headers={"Idempotent-Replayed": "true"},
    )
    if existing.response_status >= 400:
        replay.content_type = "application/problem+json"
    return replay


def idempotent(handler: Callable | None = None, *, secret_fields: Sequence[str] = ()) -> Callable:
    """Makes a POST handler idempotent (`@idempotent`). With `secret_fields`
    (`@idempotent(secret_fields=["secret"])`) those top-level fields of the response are
    never stored, so a replay answers without them (a secret is shown once), and those
    of the request body are fingerprinted by a keyed hash only."""
    if handler is None:
        return functools.partial(idempotent, secret_fields=tuple(secret_fields))

    def run(view, request: Request, key: str, *args, **kwargs) -> Response:
        """The handler, as the owner of `key`: its response kept for replays."""
        try:
            # The work and its stored response commit together: a crash can never leave
            # an action applied with its key unanswered. An error rolls back both.
            with all_or_nothing():
                response = handler(view, request, *args, **kwargs)
                if response.status_code < 500:
                    _store(request, key, response, secret_fields)
        except Exception as exc:
            response = view.handle_exception_for_idempotency(exc)
            if response is None or response.status_code >= 500:
                _release(request, key)
                raise
            _store_or_release(request, key, response)
            return response
        if response.status_code >= 500:
            _release(request, key)
        return response

    @functools.wraps(handler)
    def wrapper(view, request: Request, *args, **kwargs) -> Response:
        key = request.headers.get(HEADER)
        if key is None:
            return handler(view, request, *args, **kwargs)
        _check_key(key)
        fingerprint = _fingerprint(request, secret_fields)
        locked, claimed = _take_owner_lock_and_claim(request, key, fingerprint)
        if not locked:
            # A request with this key is running: answer from its record if it is
            # already answered, else that it still runs.
            existing = IdempotencyRecord.objects.filter(user=request.user, key=key).first()
            return _answer_from(existing, fingerprint)
        try:
            if not claimed:
                existing = _claim(request, key, fingerprint)
                if existing is not None:
                    return _answer_from(existing, fingerprint)
            return run(view, request, key, *args, **kwargs)
        finally:
            _release_owner_lock(request, key)

    return wrapper
