"""RFC 9457 problem details for every error the API returns.

DRF exceptions, service `DomainError`s and Django's own 400/403/404/500 handlers all go
through `problem_response`, so clients see one shape: {type, title, status, detail,
code, errors?}.
"""

import sys
from typing import Any

import redis
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve
from django.views.csrf import csrf_failure as django_csrf_failure
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import set_rollback

from core.errors import (
    BadRequest,
    CsrfFailed,
    DomainError,
    InvalidInput,
    MethodNotAllowed,
    NotAcceptable,
    NotAuthenticated,
    NotFoundError,
    PermissionDeniedError,
    Problem,
    ServerError,
    ServiceUnavailable,
    Throttled,
    UnparsableBody,
    UnsupportedMediaType,
)

PROBLEM_CONTENT_TYPE = "application/problem+json"
PROBLEM_TYPE_BASE = "https://liarsdice.example/problems/"

_TITLES = {
    400: "Bad request",
    401: "Not authenticated",
    403: "Permission denied",
    404: "Not found",
    405: "Method not allowed",
    406: "Not acceptable",
    409: "Conflict",
    411: "Length required",
    413: "Request too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    429: "Too many requests",
    500: "Server error",
    503: "Service unavailable",
}


def problem_body(
    *,
    status_code: int,
    code: str,
    detail: str,
    title: str | None = None,
    errors: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_BASE + code,
        "title": title or _TITLES.get(status_code, "Error"),
        "status": status_code,
        "detail": detail,
        "code": code,
    }
    if errors:
        body["errors"] = errors
    return body


def _flatten_field_errors(details: Any, prefix: str = "") -> list[dict[str, str]]:
    """Turns DRF's nested `get_full_details()` into a flat list with dotted field paths."""
    flat: list[dict[str, str]] = []
    if isinstance(details, dict) and set(details) == {"message", "code"}:
        return [
            {
                "field": prefix or "non_field_errors",
                "code": details["code"],
                "detail": str(details["message"]),
            }
        ]
    if isinstance(details, dict):
        for key, value in details.items():
            field = f"{prefix}.{key}" if prefix else str(key)
            flat.extend(_flatten_field_errors(value, field))
    elif isinstance(details, list):
        for index, value in enumerate(details):
            is_leaf = isinstance(value, dict) and set(value) == {"message", "code"}
            flat.extend(_flatten_field_errors(value, prefix if is_leaf else f"{prefix}.{index}"))
    return flat


# DRF's exceptions as our problems; any other (AuthenticationFailed and its kinds) keeps
# its own code, which `core.errors` declares too.
_DRF_PROBLEMS: dict[type[exceptions.APIException], type[Problem]] = {
    exceptions.NotAuthenticated: NotAuthenticated,
    exceptions.PermissionDenied: PermissionDeniedError,
    exceptions.NotFound: NotFoundError,
    exceptions.MethodNotAllowed: MethodNotAllowed,
    exceptions.NotAcceptable: NotAcceptable,
    exceptions.UnsupportedMediaType: UnsupportedMediaType,
    exceptions.Throttled: Throttled,
    exceptions.ParseError: UnparsableBody,
}


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF exception handler: every handled error becomes problem+json."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()

    headers: dict[str, str] = {}
    if isinstance(exc, DomainError):
        set_rollback()
        body = problem_body(
            status_code=exc.status,
            code=exc.code,
            detail=exc.detail,
            title=exc.title,
            errors=exc.errors,
        )
        return Response(
            body, status=exc.status, headers=exc.headers, content_type=PROBLEM_CONTENT_TYPE
        )

    if not isinstance(exc, exceptions.APIException):
        return None

    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header
    if getattr(exc, "wait", None) is not None:
        headers["Retry-After"] = str(max(1, int(exc.wait)))

    if isinstance(exc, exceptions.ValidationError):
        errors = _flatten_field_errors(exc.get_full_details())
        detail = "; ".join(f"{e['field']}: {e['detail']}" for e in errors) or "Invalid input."
        body = problem_body(
            status_code=exc.status_code,
            code=InvalidInput.code,
            detail=detail,
            title=InvalidInput.title,
            errors=errors,
        )
    else:
        code = next((p.code for cls, p in _DRF_PROBLEMS.items() if isinstance(exc, cls)), None)
        if code is None:
            full = exc.get_codes()
            code = full if isinstance(full, str) else exc.default_code
        body = problem_body(status_code=exc.status_code, code=code, detail=str(exc.detail))

    set_rollback()
    return Response(
        body, status=exc.status_code, headers=headers, content_type=PROBLEM_CONTENT_TYPE
    )


def problem_response(
    status_code: int,
    code: str,
    detail: str,
    *,
    title: str | None = None,
    errors: list[dict[str, str]] | None = None,
    headers: dict[str, str] | None = None,
) -> JsonResponse:
    return JsonResponse(
        problem_body(status_code=status_code, code=code, detail=detail, title=title, errors=errors),
        status=status_code,
        content_type=PROBLEM_CONTENT_TYPE,
        headers=headers,
    )


def is_api_path(path: str) -> bool:
    """Paths whose every error is problem+json; the admin keeps Django's HTML pages."""
    return path.startswith("/api/") or path == "/healthz"


# The name of the catch-all under /api/ (config/urls.py), which serves `not_found`: any
# /api/ path then resolves, so APPEND_SLASH never redirects an API call (a redirected
# POST loses its body) and DEBUG's HTML 404 page never answers one.
API_NOT_FOUND = "api-not-found"


# Django-level handlers (URLs that match no view, errors outside DRF views).
def bad_request(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return problem_response(BadRequest.status, BadRequest.code, "Malformed request.")


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return problem_response(
        PermissionDeniedError.status, PermissionDeniedError.code, "You may not do this."
    )


def not_found(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    detail = f"Nothing at {request.path}."
    if not request.path_info.endswith("/"):
        try:
            match = resolve(request.path_info + "/")
        except Resolver404:
            match = None
        if match is not None and match.url_name != API_NOT_FOUND:
            detail += f" Did you mean {request.path}/ (with the trailing slash)?"
    return problem_response(NotFoundError.status, NotFoundError.code, detail)


def server_error(request: HttpRequest) -> JsonResponse:
    # Called while the exception is being handled: one raised by a middleware (which
    # DependencyOutageMiddleware never sees) because a dependency is down is still a 503.
    outage = outage_response(sys.exc_info()[1])
    if outage is not None:
        return outage
    return problem_response(
        ServerError.status, ServerError.code, "Something went wrong on our side."
    )


_DATABASE_DOWN = (OperationalError, InterfaceError)
_REDIS_DOWN = (redis.ConnectionError, redis.TimeoutError)


def outage_response(exc: BaseException | None) -> JsonResponse | None:
    """503 with Retry-After when `exc` says PostgreSQL or Redis cannot be reached (or the
    database gave up on a statement: a deadlock, a timeout), which a retry can cure;
    None for any other error."""
    if isinstance(exc, _DATABASE_DOWN):
        which = "The database"
    elif isinstance(exc, _REDIS_DOWN):
        which = "The cache"
    else:
        return None
    retry_after = settings.OUTAGE_RETRY_AFTER_SECONDS
    return problem_response(
        ServiceUnavailable.status,
        ServiceUnavailable.code,
        f"{which} is unavailable for a moment; retry in {retry_after} s.",
        headers={"Retry-After": str(retry_after)},
    )


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: problem+json on API paths, Django's own page for the admin."""
    if is_api_path(request.path):
        return problem_response(CsrfFailed.status, CsrfFailed.code, f"CSRF check failed: {reason}")
    return django_csrf_failure(request, reason=reason)
