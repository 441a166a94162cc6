"""Errors raised by services. The API layer turns them into problem+json responses;
services never know about HTTP beyond the suggested status."""


class DomainError(Exception):
    """A business-rule failure with a stable machine-readable `code`."""

    code = "error"
    status = 400
    title = "Request cannot be completed"

    def __init__(self, detail: str, *, code: str | None = None, status: int | None = None):
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status


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
