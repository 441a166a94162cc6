import logging
import re
import time
import uuid
from collections.abc import Callable

import redis
from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.conf import settings
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpRequest, HttpResponse
from django.utils.deprecation import MiddlewareMixin
from django.utils.functional import SimpleLazyObject, empty
from whitenoise.middleware import WhiteNoiseMiddleware

from core.errors import (
    BadRequest,
    DomainError,
    InvalidInput,
    LengthRequired,
    MethodNotAllowed,
    NotFoundError,
    PayloadTooLarge,
    PermissionDeniedError,
    ServerError,
)
from core.logging import current_request_id
from core.problems import PROBLEM_CONTENT_TYPE, is_api_path, outage_response, problem_response
from core.throttling import add_headers, count_unthrottled, needs_counting

logger = logging.getLogger("liarsdice.request")

_CLIENT_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")
_CONTENT_LENGTH = re.compile(r"^[0-9]+$")
# The problem of an error page by its status; another status answers the base codes.
_FALLBACK_CODES = {
    p.status: p.code
    for p in (BadRequest, PermissionDeniedError, NotFoundError, MethodNotAllowed, PayloadTooLarge)
}


class SyncAndAsyncMiddleware:
    """A middleware that runs in the handler's own mode: sync under WSGI, async under
    ASGI, so the async views that wait never get a thread wrapped around them. Subclasses
    implement `before` (a response refuses the request) and `after`."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest):
        if self.is_async:
            return self._acall(request)
        refusal = self.before(request)
        if refusal is not None:
            return self.after(request, refusal)
        return self.after(request, self.get_response(request))

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        refusal = self.before(request)
        if refusal is not None:
            return self.after(request, refusal)
        return self.after(request, await self.get_response(request))

    def before(self, request: HttpRequest) -> HttpResponse | None:
        return None

    def after(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        return response


class RequestIdLoggingMiddleware(SyncAndAsyncMiddleware):
    """Tags each request with an id (the client's `X-Request-ID` when well formed) and
    logs one structured line per request with its outcome and duration (for a stream,
    until its headers are sent)."""

    def before(self, request: HttpRequest) -> None:
        supplied = request.headers.get("X-Request-ID", "")
        request.request_id = supplied if _CLIENT_REQUEST_ID.match(supplied) else uuid.uuid4().hex
        request.request_id_token = current_request_id.set(request.request_id)
        request.started_at = time.perf_counter()
        return None

    def after(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        current_request_id.reset(request.request_id_token)
        started = request.started_at
        response["X-Request-ID"] = request.request_id
        user = getattr(request, "user", None)
        if isinstance(user, SimpleLazyObject) and user._wrapped is empty:
            user = None  # never looked up (no API authentication): not read here, where
            # an async request may not query the session store
        logger.info(
            "request",
            extra={
                "request_id": request.request_id,
                "method": request.method,
                "path": request.path,
                "status": response.status_code,
                "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                "user_id": user.pk if user is not None and user.is_authenticated else None,
            },
        )
        return response


class RateLimitHeadersMiddleware(SyncAndAsyncMiddleware):
    """Writes the `RateLimit-Policy` and `RateLimit` headers on every API response,
    counting against the default policies a request no throttle saw (core.throttling).
    That count is a Redis trip, made in a worker thread under ASGI; with Redis down the
    response goes without the headers rather than failing (and a 503, which may say
    Redis is down, is not counted: its Retry-After says when to come back)."""

    def __call__(self, request: HttpRequest):
        if self.is_async:
            return self._acall(request)
        response = self.get_response(request)
        if needs_counting(request, response):
            self._count(request)
        return add_headers(request, response)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        response = await self.get_response(request)
        if needs_counting(request, response):
            await sync_to_async(self._count)(request)
        return add_headers(request, response)

    @staticmethod
    def _count(request: HttpRequest) -> None:
        try:
            count_unthrottled(request)
        except redis.exceptions.RedisError:
            logger.warning("rate limit not counted", extra={"path": request.path})


class ProblemFallbackMiddleware(SyncAndAsyncMiddleware):
    """Turns any error response on an API path that is not JSON (Django's HTML pages:
    DEBUG's 404 and 500, a 405 or a CSRF failure from a plain view) into problem+json,
    so clients see one error shape whatever produced the error."""

    def after(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if response.status_code < 400 or not is_api_path(request.path):
            return response
        if response.get("Content-Type", "").startswith(("application/json", PROBLEM_CONTENT_TYPE)):
            return response
        status = response.status_code
        problem = problem_response(
            status,
            _FALLBACK_CODES.get(status, DomainError.code if status < 500 else ServerError.code),
            "Something went wrong on our side." if status >= 500 else f"{response.reason_phrase}.",
        )
        for header, value in response.items():  # Allow, security headers, Vary...
            if header.lower() not in ("content-type", "content-length"):
                problem[header] = value
        problem.cookies = response.cookies
        return problem


class DependencyOutageMiddleware(SyncAndAsyncMiddleware):
    """A view that fails because PostgreSQL or Redis is down (the throttle's counter, the
    token lookup, the service's transaction) answers 503 problem+json with Retry-After,
    not a 500: the client should retry, the server is not broken. (Errors raised in a
    middleware reach `core.problems.server_error`, which does the same.)"""

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        response = outage_response(exception)
        if response is not None:
            logger.warning(
                "dependency down",
                extra={"path": request.path, "error": f"{type(exception).__name__}: {exception}"},
            )
        return response


class RequestGuardMiddleware(SyncAndAsyncMiddleware):
    """Refuses, before any view runs, what no view could handle: an API body larger than
    API_MAX_BODY_BYTES (DRF reads the stream itself, so DATA_UPLOAD_MAX_MEMORY_SIZE never
    applies), an API body without a length (Django's WSGI request would read none of
    it), and a NUL anywhere in the path or query string (PostgreSQL cannot store or
    compare one)."""

    def before(self, request: HttpRequest) -> HttpResponse | None:
        refusal = self._body_refusal(request) if request.path.startswith("/api/") else None
        return refusal if refusal is not None else self._nul_refusal(request)

    @staticmethod
    def _body_refusal(request: HttpRequest) -> HttpResponse | None:
        length = request.META.get("CONTENT_LENGTH") or ""
        limit = settings.API_MAX_BODY_BYTES
        if not length:
            if "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
                return problem_response(
                    LengthRequired.status,
                    LengthRequired.code,
                    "Send the body with a Content-Length header.",
                )
            return None
        if not _CONTENT_LENGTH.match(length):
            return problem_response(
                BadRequest.status, BadRequest.code, "Content-Length must be a whole number."
            )
        # Compared as text first: int() refuses strings of thousands of digits.
        if len(length.lstrip("0")) > len(str(limit)) or int(length) > limit:
            return problem_response(
                PayloadTooLarge.status,
                PayloadTooLarge.code,
                f"A request body may be at most {limit} bytes.",
            )
        return None

    @staticmethod
    def _nul_refusal(request: HttpRequest) -> HttpResponse | None:
        if "\x00" in request.path:
            return problem_response(
                NotFoundError.status, NotFoundError.code, "Nothing at this path."
            )
        names = sorted(
            name
            for name, values in request.GET.lists()
            if "\x00" in name or any("\x00" in value for value in values)
        )
        if not names:
            return None
        return problem_response(
            InvalidInput.status,
            InvalidInput.code,
            "Null characters are not allowed in query parameters.",
            title=InvalidInput.title,
            errors=[
                {
                    "field": name.replace("\x00", "\ufffd"),
                    "code": "null_characters_not_allowed",
                    "detail": "Null characters are not allowed.",
                }
                for name in names
            ],
        )


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    """WhiteNoise (static files from the web process), able to run in an async chain: it
    would otherwise wrap every inner async view in a thread. A static file is served in a
    worker thread; anything else passes straight on."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable) -> None:
        super().__init__(get_response)
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest):
        if self.is_async:
            return self._acall(request)
        return super().__call__(request)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        if self.autorefresh:
            static_file = await sync_to_async(self.find_file)(request.path_info)
        else:
            static_file = self.files.get(request.path_info)
        if static_file is not None:
            return await sync_to_async(self.serve)(static_file, request)
        return await self.get_response(request)


def _for_pages_only(middleware: type[MiddlewareMixin]) -> type[MiddlewareMixin]:
    """`middleware` with its request and response hooks skipped on API paths (and
    /healthz: `is_api_path`), which authenticate with Bearer tokens only, so use no
    session, no user from the session and no messages: building them cost every API
    request a session store and a messages storage with its cookie signer, for nothing.
    Still a MiddlewareMixin, so config.asgi's LiveHandler runs its hooks on the loop as
    before. (CSRF keeps Django's own middleware: on an API request it only looks for a
    cookie, and `check --deploy` looks for it by name.)"""
    hooks = {}
    if hasattr(middleware, "process_request"):

        def process_request(self, request: HttpRequest) -> HttpResponse | None:
            if is_api_path(request.path):
                return None
            return middleware.process_request(self, request)

        hooks["process_request"] = process_request
    if hasattr(middleware, "process_response"):

        def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
            if is_api_path(request.path):
                return response
            return middleware.process_response(self, request, response)

        hooks["process_response"] = process_response
    name = f"Page{middleware.__name__}"
    return type(name, (middleware,), {"__module__": __name__, "__qualname__": name, **hooks})


# settings.MIDDLEWARE names these in place of Django's own; the admin and the web pages
# get all of Django's behaviour.
PageSessionMiddleware = _for_pages_only(SessionMiddleware)
PageAuthenticationMiddleware = _for_pages_only(AuthenticationMiddleware)
PageMessageMiddleware = _for_pages_only(MessageMiddleware)
