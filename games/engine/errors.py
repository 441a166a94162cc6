"""Typed errors raised by the engine.

Codes are stable strings: the server maps them straight onto API error codes.
"""

from __future__ import annotations

from enum import StrEnum

# One field's problem in a validation error: {"field", "code", "detail"}, as the API's
# problem+json lists them in `errors[]`.
FieldError = dict[str, str]


class ErrorCode(StrEnum):
    """Stable error codes (also used as API `code` values)."""

    NOT_YOUR_TURN = "not_your_turn"
    BID_NOT_HIGHER = "bid_not_higher"
    ILLEGAL_ACTION = "illegal_action"
    INVALID_BID = "invalid_bid"
    MATCH_OVER = "match_over"
    VALIDATION_ERROR = "validation_error"


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""

    code: str = ErrorCode.VALIDATION_ERROR
    # The bad fields of a malformed action (IllegalAction); None for every other error.
    errors: list[FieldError] | None = None

    def __init__(self, code: str, detail: str, field: str | None = None) -> None:
        super().__init__(detail)
        self.code = str(code)
        self.detail = detail
        self.field = field

    def to_dict(self) -> dict:
        out = {"code": self.code, "detail": self.detail}
        if self.field is not None:
            out["field"] = self.field
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.detail!r})"


class IllegalAction(EngineError):
    """An action that is malformed or not allowed in the current state. A malformed one
    (`validation_error`) lists its bad fields in `errors`: the one named by `field` when
    no list is given."""

    def __init__(
        self,
        code: str,
        detail: str,
        field: str | None = None,
        errors: list[FieldError] | None = None,
    ) -> None:
        super().__init__(code, detail, field)
        if errors is None and field is not None and self.code == ErrorCode.VALIDATION_ERROR:
            errors = [{"field": field, "code": "invalid", "detail": detail}]
        self.errors = errors


class InvalidRules(EngineError):
    """An invalid option value or combination; `option` names the offending option."""

    def __init__(self, option: str, detail: str) -> None:
        super().__init__(ErrorCode.VALIDATION_ERROR, detail, field=option)
        self.option = option


class ReplayError(EngineError):
    """The recorded dice do not fit the recorded actions."""

    def __init__(self, detail: str) -> None:
        super().__init__(ErrorCode.VALIDATION_ERROR, detail)
