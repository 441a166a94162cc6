"""OpenAPI generation helpers: constant (discriminator) fields, and the problem+json
responses of every operation, listed by the statuses and codes that can really occur.

A view names the error classes its services raise next to its `extend_schema`:
`extensions=problems(MatchFull, NotCreator)`, whose statuses and codes are the classes'
own (`core.errors`). The hook adds what follows from the operation's shape (a body:
400/411/413/415; a path parameter or a cursor: 404; an `Idempotency-Key`: 409/422; a
token: 401; always: 400, 406, 429 and 503), writes the codes into each response's
description, and collects every code into the `code` enum of the `Problem` component.
"""

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import serializers

from core.errors import (
    AuthenticationFailed,
    BadRequest,
    IdempotencyKeyInUse,
    IdempotencyKeyReused,
    InvalidInput,
    LengthRequired,
    NotAcceptable,
    NotAuthenticated,
    NotFoundError,
    PayloadTooLarge,
    Problem,
    ServiceUnavailable,
    Throttled,
    TokenExpired,
    UnparsableBody,
    UnsupportedMediaType,
)

PROBLEMS_EXTENSION = "x-problems"

_TITLES = {
    400: "Invalid input or query",
    401: "Missing, invalid or expired token",
    403: "Not allowed",
    404: "Nothing there",
    406: "Only JSON can be returned (send `Accept: application/json` or none)",
    409: "Conflict with the current state",
    411: "A body needs a Content-Length",
    413: "The body is larger than the server accepts (API_MAX_BODY_BYTES)",
    415: "The body must be JSON",
    422: "Idempotency-Key reused with a different body",
    429: "Throttled: wait for `Retry-After` seconds",
    503: "PostgreSQL or Redis is down for a moment: retry after `Retry-After` seconds",
}


def _by_status(*classes: type[Problem]) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for problem in classes:
        codes = found.setdefault(problem.status, [])
        if problem.code not in codes:
            codes.append(problem.code)
    return found


# The problems any operation of that shape can answer with.
_EVERYWHERE = _by_status(InvalidInput, BadRequest, NotAcceptable, Throttled, ServiceUnavailable)
_AUTHENTICATED = _by_status(NotAuthenticated, AuthenticationFailed, TokenExpired)
_WITH_BODY = _by_status(UnparsableBody, LengthRequired, PayloadTooLarge, UnsupportedMediaType)
_WITH_PATH_OR_CURSOR = _by_status(NotFoundError)
_IDEMPOTENT = _by_status(IdempotencyKeyInUse, IdempotencyKeyReused)

PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "RFC 9457 problem details. New codes may be added in a minor version.",
    "properties": {
        "type": {"type": "string", "description": "A URI naming the problem (ends in `code`)."},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string", "description": "For people; never parse it."},
        "code": {"type": "string", "description": "Stable machine-readable error code."},
        "errors": {
            "type": "array",
            "description": "Per-field problems of a `validation_error`, dotted field paths.",
            "items": {
                "type": "object",
                "properties": {
                    "field": {"type": "string"},
                    "code": {"type": "string"},
                    "detail": {"type": "string"},
                },
                "required": ["field", "code", "detail"],
            },
        },
    },
    "required": ["type", "title", "status", "detail", "code"],
}


def problems(*classes: type[Problem]) -> dict[str, Any]:
    """`extend_schema(extensions=...)` value: the error classes an operation's services
    raise (besides those of its shape), documented by their statuses and codes."""
    return {
        PROBLEMS_EXTENSION: {str(status): codes for status, codes in _by_status(*classes).items()}
    }


def _merge(into: dict[int, list[str]], more: dict[int, list[str]]) -> None:
    for status, codes in more.items():
        known = into.setdefault(int(status), [])
        known.extend(c for c in codes if c not in known)


def _operation_problems(operation: dict[str, Any]) -> dict[int, list[str]]:
    params = operation.get("parameters", [])
    found: dict[int, list[str]] = {}
    _merge(found, _EVERYWHERE)
    if operation.get("security"):
        # Public operations too: they read a token when one is sent, and refuse a bad one.
        _merge(found, _AUTHENTICATED)
    if "requestBody" in operation:
        _merge(found, _WITH_BODY)
    if any(p["in"] == "path" or p["name"] == "cursor" for p in params):
        _merge(found, _WITH_PATH_OR_CURSOR)
    if any(p["in"] == "header" and p["name"] == "Idempotency-Key" for p in params):
        _merge(found, _IDEMPOTENT)
    _merge(found, operation.pop(PROBLEMS_EXTENSION, {}))
    return found


def add_problem_responses(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular hook: the Problem component and each operation's error responses."""
    problem_ref = {"$ref": "#/components/schemas/Problem"}
    every_code: set[str] = set()
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            responses = operation.setdefault("responses", {})
            for status, codes in sorted(_operation_problems(operation).items()):
                every_code.update(codes)
                listed = ", ".join(f"`{c}`" for c in codes)
                responses[str(status)] = {
                    "description": f"{_TITLES[status]}: {listed}.",
                    "content": {"application/problem+json": {"schema": problem_ref}},
                }
    schema = {**PROBLEM_SCHEMA, "properties": dict(PROBLEM_SCHEMA["properties"])}
    schema["properties"]["code"] = {**schema["properties"]["code"], "enum": sorted(every_code)}
    result.setdefault("components", {}).setdefault("schemas", {})["Problem"] = schema
    return result


RATE_LIMIT_HEADERS: dict[str, dict[str, Any]] = {
    "RateLimit-Policy": {
        "description": "The quota policies that counted this request (IETF httpapi "
        'draft): a list of `"<policy>";q=<requests>;w=<window seconds>`, one per policy.',
        "schema": {"type": "string"},
        "example": '"user";q=600;w=60',
    },
    "RateLimit": {
        "description": "Where each policy of `RateLimit-Policy` stands after this request: "
        '`"<policy>";r=<requests left>;t=<seconds until one more is allowed>`.',
        "schema": {"type": "string"},
        "example": '"user";r=598;t=41',
    },
}
RETRY_AFTER_HEADER: dict[str, Any] = {
    "description": "Seconds to wait before trying again.",
    "schema": {"type": "integer", "minimum": 1},
}


def add_rate_limit_headers(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular hook: the rate-limit headers on every response of every operation
    (core.throttling), and `Retry-After` on its 429 and 503."""
    headers = result.setdefault("components", {}).setdefault("headers", {})
    headers.update(RATE_LIMIT_HEADERS)
    headers["Retry-After"] = RETRY_AFTER_HEADER
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            for status, response in operation.get("responses", {}).items():
                listed = response.setdefault("headers", {})
                names = [
                    *RATE_LIMIT_HEADERS,
                    *(["Retry-After"] if status in ("429", "503") else []),
                ]
                for name in names:
                    listed[name] = {"$ref": f"#/components/headers/{name}"}
    return result


class ConstField(serializers.Field):
    """A field that always holds one string: a union's discriminator (`type`, `family`,
    `event`), `const` in the schema."""

    def __init__(self, value: str, **kwargs: Any) -> None:
        self.value = value
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def to_representation(self, value: Any) -> str:
        return self.value


class NullField(serializers.Field):
    """A field that is always null in this shape (it holds a value in a sibling shape)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def to_representation(self, value: Any) -> None:
        return None


class ConstFieldExtension(OpenApiSerializerFieldExtension):
    target_class = ConstField

    def map_serializer_field(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        return {"type": "string", "const": self.target.value}


class NullFieldExtension(OpenApiSerializerFieldExtension):
    target_class = NullField

    def map_serializer_field(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        return {"type": "null"}


# An operation's extension naming the events its `text/event-stream` carries (`match`,
# `seat` or `account`); `games.events.add_event_schemas` types its messages from the registry.
STREAM_EXTENSION = "x-event-stream"


def event_stream(kind: str) -> dict[str, Any]:
    """`extend_schema(extensions=...)` value: this operation streams `kind` events."""
    return {STREAM_EXTENSION: kind}
