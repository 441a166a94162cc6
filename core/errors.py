"""Every problem the API answers, declared once as a class: its stable machine-readable
`code` and its HTTP `status`. Services raise the business ones (`DomainError`s, each app's
in its own `errors.py`: core, ledger, accounts, games, moderation); `core.problems` turns
them into problem+json; `core.schema.problems(...)` documents an operation's errors from
the classes it can raise, so a code is written in one place only.

The HTTP layer's own problems (a body too large, a throttled client, a database down...)
are declared here too, as `Problem`s: DRF, the middleware and the error handlers answer
them, and the schema lists them for every operation of the right shape."""

from typing import ClassVar


class Problem:
    """A kind of problem+json answer."""

    code: ClassVar[str]
    status: ClassVar[int]


class DomainError(Problem, Exception):
    """A business-rule failure. A subclass declares its `code`, `status` and `title`; an
    instance carries only what is particular to one failure: its `detail`."""

    code = "error"
    status = 400
    title = "Request cannot be completed"
    # Per-field problems, [{"field", "code", "detail"}], when the failure names fields.
    errors: list[dict[str, str]] | None = None
    # Response headers the failure calls for (RFC 6750's WWW-Authenticate, say).
    headers: dict[str, str] | None = None

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class InvalidInput(DomainError):
    """Input that passed the serializer but that a service rejects (a taken username, a
    weak password): the same 400 `validation_error` as a serializer's, field by field,
    each field's problem coded `field_code`."""

    code = "validation_error"
    status = 400
    title = "Invalid input"
    field_code = "invalid"

    def __init__(self, field_errors: dict[str, list[str]]) -> None:
        errors = [
            {"field": field, "code": self.field_code, "detail": message}
            for field, messages in field_errors.items()
            for message in messages
        ]
        super().__init__("; ".join(f"{e['field']}: {e['detail']}" for e in errors))
        self.errors = errors


class ConflictError(DomainError):
    """Base of the conflicts with the current state (each declares its code)."""

    code = "conflict"
    status = 409
    title = "Conflict"


class NotFoundError(DomainError):
    code = "not_found"
    status = 404
    title = "Not found"


class PermissionDeniedError(DomainError):
    code = "permission_denied"
    status = 403
    title = "Permission denied"


class InvalidIdempotencyKey(DomainError):
    code = "validation_error"


class IdempotencyKeyInUse(ConflictError):
    """Another request holds the key: it is still running (or claiming it)."""

    code = "idempotency_key_in_use"


class IdempotencyKeyReused(DomainError):
    code = "idempotency_key_reused"
    status = 422


class TooManyStreams(DomainError):
    code = "too_many_streams"
    status = 429
    title = "Too many requests"


# --- the HTTP layer's problems --------------------------------------------------------


class BadRequest(Problem):
    code = "bad_request"
    status = 400


class UnparsableBody(Problem):
    code = "parse_error"
    status = 400


class NotAuthenticated(Problem):
    code = "not_authenticated"
    status = 401


class AuthenticationFailed(Problem):
    code = "authentication_failed"
    status = 401


class TokenExpired(Problem):
    code = "token_expired"
    status = 401


class CsrfFailed(Problem):
    code = "csrf_failed"
    status = 403


class MethodNotAllowed(Problem):
    code = "method_not_allowed"
    status = 405


class NotAcceptable(Problem):
    code = "not_acceptable"
    status = 406


class LengthRequired(Problem):
    code = "length_required"
    status = 411


class PayloadTooLarge(Problem):
    code = "payload_too_large"
    status = 413


class UnsupportedMediaType(Problem):
    code = "unsupported_media_type"
    status = 415


class Throttled(Problem):
    code = "throttled"
    status = 429


class ServerError(Problem):
    code = "server_error"
    status = 500


class ServiceUnavailable(Problem):
    code = "service_unavailable"
    status = 503
