"""What the async views that wait (long polls, Server-Sent Events) share.

They are plain Django async views, served by the ASGI server with no thread of their own:
their short database work runs in a worker thread (`db`), which gives its connection back
at once, and their waiting is a `core.notifications` subscription. DRF's views are sync,
so authentication, throttling and problem+json are applied here by `live_view`, with the
same classes and error shapes as every other endpoint; a DRF view class named with
`schema` documents each one in the OpenAPI schema.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import wraps
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils import timezone
from django.utils.module_loading import import_string
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.views import APIView

from core import notifications
from core.errors import DomainError, TooManyStreams
from core.problems import PROBLEM_CONTENT_TYPE, problem_exception_handler, problem_response

# The ASGI scope's key for when the web server read the request's headers (set by
# config.server's protocol, named there too: core imports nothing from config).
RECEIVED_AT = "liarsdice.received_at"


def _on_server_loop() -> bool:
    return asyncio.get_running_loop() in notifications._persistent_loops


def can_stream() -> bool:
    """Whether an ASGI server runs this request: only there may a stream stay open.
    Elsewhere (Django's test client, a WSGI server, which read a whole body before
    sending it) a stream sends the events there are now and ends."""
    return _on_server_loop()


async def db(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """Runs ORM code in a worker thread and hands its connection back to the pool as soon
    as it is done, so a client that then waits holds no connection. Under a test client
    (no ASGI server), it runs in the test's own thread and transaction."""

    def call() -> Any:
        try:
            return fn(*args, **kwargs)
        finally:
            if not connection.in_atomic_block:
                connection.close()

    if not _on_server_loop():
        return await sync_to_async(call)()
    # Straight to the loop's worker threads with the request's context: asgiref's
    # sync_to_async adds a wrapper and futures of its own to each trip.
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, contextvars.copy_context().run, call)


def problem_from(exc: Exception) -> HttpResponse:
    """The problem+json response DRF views give for `exc`."""
    handled = problem_exception_handler(exc, {})
    if handled is None:
        raise exc
    response = JsonResponse(
        handled.data, status=handled.status_code, content_type=PROBLEM_CONTENT_TYPE
    )
    for header, value in handled.items():
        if header.lower() != "content-type":
            response[header] = value
    if response.status_code == 429 and not response.has_header("Retry-After"):
        response["Retry-After"] = "5"
    return response


def _authenticate(request: HttpRequest, schema: type[APIView], *, throttle: bool = True) -> Request:
    """DRF's authentication, permissions (the token's scope: `schema` declares it, as
    every view does) and throttling, lent by the view class that documents the live view."""
    # The live views' own token check (settings.LIVE_AUTHENTICATION_CLASSES): clients
    # renew them every few seconds, so it may remember what the database said.
    authenticators = [import_string(path)() for path in settings.LIVE_AUTHENTICATION_CLASSES]
    drf_request = Request(request, authenticators=authenticators)
    drf_request.schema = schema  # for token_problem's re-checks
    view = schema()
    view.request = drf_request
    view.headers = {}
    view.format_kwarg = None
    view.perform_authentication(drf_request)
    view.check_permissions(drf_request)
    if throttle:
        view.check_throttles(drf_request)
    return drf_request


async def token_problem(request: Request) -> exceptions.APIException | None:
    """Why the token the request authenticated with is no longer good (revoked, expired,
    its user disabled), as a new request would be told; None while it is: checked when
    the user's sessions change. A re-check is no request of the client's: not throttled."""

    def check() -> exceptions.APIException | None:
        try:
            _authenticate(request._request, request.schema, throttle=False)
        except exceptions.APIException as exc:
            return exc
        return None

    return await db(check)


async def token_still_valid(request: Request) -> bool:
    """Whether the token the request authenticated with is still good (`token_problem`)."""
    return await token_problem(request) is None


def live_view(schema: type[APIView], prepare: Callable[..., Any] | None = None) -> Callable:
    """Makes `handler(request: Request, prepared, **kwargs)` an async Django view: GET
    only, the caller authenticated and throttled like any API call, errors as
    problem+json. `prepare(request, **kwargs)` (sync: parsing the query, checking what
    the caller may see) runs in the same worker thread as authentication, one trip there
    and one pooled connection a request; `prepared` is what it returns (None without
    it). `schema` (a DRF view whose methods carry `extend_schema`) documents it.
    `request.arrived_at` (`time.monotonic()`) is when the web server read the request's
    headers: a wait counts from then, not from after a queue on a busy loop (2,000 long
    polls arriving at once reach their views over a second or more) or for the thread."""

    def authenticate_and_prepare(request: HttpRequest, kwargs: dict) -> tuple[Request, Any]:
        drf_request = _authenticate(request, schema)
        return drf_request, prepare(drf_request, **kwargs) if prepare else None

    def wrap(handler: Callable[..., Awaitable[HttpResponse]]) -> Callable:
        @wraps(handler)
        async def view(request: HttpRequest, **kwargs: Any) -> HttpResponse:
            if request.method != "GET":
                return problem_response(
                    405,
                    "method_not_allowed",
                    f'Method "{request.method}" not allowed.',
                    headers={"Allow": "GET"},
                )
            # When the server read its headers (config.server); now under a test client.
            scope = getattr(request, "scope", {})  # a WSGI request (a test client) has none
            request.arrived_at = scope.get(RECEIVED_AT) or time.monotonic()
            try:
                drf_request, prepared = await db(authenticate_and_prepare, request, kwargs)
                return await handler(drf_request, prepared, **kwargs)
            except (exceptions.APIException, DomainError) as exc:
                return problem_from(exc)

        view.live = True  # served without a per-request thread (config/asgi.py)
        view.cls = schema  # what drf-spectacular documents
        view.initkwargs = {}
        view.csrf_exempt = True
        return view

    return wrap


# --- Server-Sent Events -------------------------------------------------------------------


def sse_event(event_id: int, kind: str, data: Any) -> bytes:
    payload = json.dumps(data, separators=(",", ":"))
    return f"id: {event_id}\nevent: {kind}\ndata: {payload}\n\n".encode()


# How often a waiter re-reads by itself while the listener cannot vouch for silence.
RECHECK_SECONDS = 5.0

HEARTBEAT = b": heartbeat\n\n"


class Pulse:
    """How a stream waits between reads: until its subscription wakes it, or its next
    heartbeat is due (or, while the listener cannot vouch for silence, a re-check)."""

    def __init__(self) -> None:
        self.due = time.monotonic() + settings.STREAM_HEARTBEAT_SECONDS

    async def wait(self, sub: notifications.Subscription) -> tuple[bool, float, bytes]:
        """(woken, when the wait ended, a heartbeat to send now or b"")."""
        timeout = self.due - time.monotonic()
        if not sub.reliable:
            timeout = min(timeout, RECHECK_SECONDS)
        woken = await sub.wait(timeout)
        now = time.monotonic()
        if woken or now < self.due:
            return woken, now, b""
        self.due = now + settings.STREAM_HEARTBEAT_SECONDS
        return woken, now, HEARTBEAT


def token_expiry(request: Request) -> float | None:
    """When the token the request authenticated with expires, on `time.monotonic()`'s
    clock; None for a token that never does (or no token)."""
    expires_at = getattr(request.auth, "expires_at", None)
    if expires_at is None:
        return None
    return time.monotonic() + (expires_at - timezone.now()).total_seconds()


async def _until(body: AsyncIterator[bytes], deadline: float) -> AsyncIterator[bytes]:
    """`body` until `deadline` (`time.monotonic()`): then it is cancelled where it waits
    (its own clean-up runs) and the stream ends."""
    try:
        while True:
            expiry = asyncio.timeout(deadline - time.monotonic())
            try:
                async with expiry:
                    chunk = await anext(body)
            except TimeoutError:
                if expiry.expired():
                    return
                raise  # the body's own timeout, not the token's
            yield chunk
    except StopAsyncIteration:
        return
    finally:
        await body.aclose()


def sse_response(body: AsyncIterator[bytes], request: Request) -> StreamingHttpResponse:
    """A stream of `body`'s frames, which ends when the token that opened it expires:
    a token's expiry ends everything it opened, as its revocation does."""
    expiry = token_expiry(request)
    if expiry is not None:
        body = _until(body, expiry)
    response = StreamingHttpResponse(body, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    # Proxies (nginx) must pass each event on at once, not buffer the stream.
    response["X-Accel-Buffering"] = "no"
    return response


def resume_position(request: Request, after: int | None) -> int | None:
    """Where a stream resumes: `Last-Event-ID` (what EventSource sends on reconnecting),
    else `?after=`; None when neither is given."""
    last = request._request.headers.get("Last-Event-ID", "").strip()
    if last:
        if not last.isascii() or not last.isdigit() or len(last) > 18:
            raise exceptions.ValidationError(
                {"Last-Event-ID": ["An event id (a whole number) is required."]}
            )
        return int(last)
    return after


class StreamLimit:
    """Open streams per user in this process; over `settings.STREAMS_PER_USER` a new one
    is refused with 429."""

    def __init__(self) -> None:
        self._open: Counter[int] = Counter()

    def open(self, user_id: int) -> StreamSlot:
        limit = settings.STREAMS_PER_USER
        if self._open[user_id] >= limit:
            raise TooManyStreams(
                f"At most {limit} open event streams per account; close one first."
            )
        self._open[user_id] += 1
        return StreamSlot(self, user_id)

    def count(self, user_id: int) -> int:
        return self._open[user_id]

    def _release(self, user_id: int) -> None:
        self._open[user_id] -= 1
        if self._open[user_id] <= 0:
            del self._open[user_id]


class StreamSlot:
    """One open stream's place under the limit, given back once: when its body ends, or
    when the body is dropped unstarted (a client gone before the first byte)."""

    def __init__(self, limit: StreamLimit, user_id: int) -> None:
        self._limit = limit
        self.user_id = user_id
        self._held = True

    def release(self) -> None:
        if self._held:
            self._held = False
            self._limit._release(self.user_id)

    def __del__(self) -> None:
        self.release()


stream_limit = StreamLimit()
