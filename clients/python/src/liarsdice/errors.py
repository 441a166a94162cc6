"""Typed errors: every non-2xx answer is an ApiError carrying the problem+json fields.

The common codes have subclasses, so a bot can `except NotYourTurn`; any other code is
still an ApiError with `code` set (new codes may be added by the server at any time).
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A problem+json answer (RFC 9457): `status`, `code`, `detail`, `errors`, `body`."""

    code: str | None = None

    def __init__(self, status: int, body: Any, *, retry_after: float | None = None) -> None:
        self.status = status
        self.body = body
        problem = body if isinstance(body, dict) else {}
        self.code = problem.get("code")
        self.title = problem.get("title")
        self.detail = problem.get("detail") if problem else str(body)
        self.errors: list[dict[str, Any]] = problem.get("errors") or []
        self.retry_after = retry_after
        super().__init__(f"HTTP {status} {self.code or ''}: {self.detail}")


class ClientError(ApiError):
    """A 4xx answer not named by a subclass below."""


class ServerError(ApiError):
    """A 5xx answer (after the retries a 503 gets)."""


class ValidationFailed(ClientError):
    code = "validation_error"


class NotAuthenticated(ClientError):
    """401: no token, a bad or revoked one (`authentication_failed`), or an expired one."""


class InsufficientScope(ClientError):
    code = "insufficient_scope"


class NotFound(ClientError):
    code = "not_found"


class Conflict(ClientError):
    """409: the state moved on (see the subclasses)."""


class VersionConflict(Conflict):
    """`expected_version` was stale: someone moved first. Re-read and decide again."""

    code = "stale_version"


class NotYourTurn(Conflict):
    code = "not_your_turn"


class MatchEnded(Conflict):
    """The match is over or not active (`match_over`, `match_not_active`)."""


class IdempotencyKeyInUse(Conflict):
    code = "idempotency_key_in_use"


class IllegalAction(ClientError):
    """The rules refused the action (`illegal_action`, `invalid_bid`, `bid_not_higher`)."""


class RateLimited(ClientError):
    """429 after the retries (`throttled`, `too_many_streams`); see `retry_after`."""


class ServiceUnavailable(ServerError):
    code = "service_unavailable"


# code -> class; a status picks the class of codes not listed here.
ERRORS_BY_CODE: dict[str, type[ApiError]] = {
    "validation_error": ValidationFailed,
    "not_authenticated": NotAuthenticated,
    "authentication_failed": NotAuthenticated,
    "token_expired": NotAuthenticated,
    "insufficient_scope": InsufficientScope,
    "not_found": NotFound,
    "stale_version": VersionConflict,
    "not_your_turn": NotYourTurn,
    "match_over": MatchEnded,
    "match_not_active": MatchEnded,
    "idempotency_key_in_use": IdempotencyKeyInUse,
    "illegal_action": IllegalAction,
    "invalid_bid": IllegalAction,
    "bid_not_higher": IllegalAction,
    "throttled": RateLimited,
    "too_many_streams": RateLimited,
    "service_unavailable": ServiceUnavailable,
}
ERRORS_BY_STATUS: dict[int, type[ApiError]] = {
    401: NotAuthenticated,
    404: NotFound,
    409: Conflict,
    429: RateLimited,
    503: ServiceUnavailable,
}


def error_for(status: int, body: Any, *, retry_after: float | None = None) -> ApiError:
    """The most specific ApiError for an answer."""
    code = body.get("code") if isinstance(body, dict) else None
    cls = ERRORS_BY_CODE.get(code or "") or ERRORS_BY_STATUS.get(status)
    if cls is None:
        cls = ServerError if status >= 500 else ClientError
    return cls(status, body, retry_after=retry_after)
