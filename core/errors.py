"""Errors raised by services. The API layer turns them into problem+json responses;
services never know about HTTP beyond the suggested status."""


class DomainError(Exception):
    """A business-rule failure with a stable machine-readable `code`."""

    code = "error"
    status = 400
    title = "Request cannot be completed"
    # Per-field problems, [{"field", "code", "detail"}], when the failure names fields.
    errors: list[dict[str, str]] | None = None

    def __init__(self, detail: str, *, code: str | None = None, status: int | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status


class InvalidInput(DomainError):
    """Input that passed the serializer but that a service rejects (a taken username, a
    weak password): the same 400 `validation_error` as a serializer's, field by field."""

    code = "validation_error"
    status = 400
    title = "Invalid input"

    def __init__(self, field_errors: dict[str, list[str]], *, code: str = "invalid") -> None:
        errors = [
            {"field": field, "code": code, "detail": message}
            for field, messages in field_errors.items()
            for message in messages
        ]
        super().__init__("; ".join(f"{e['field']}: {e['detail']}" for e in errors))
        self.errors = errors


class ConflictError(DomainError):
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
