"""OpenAPI post-processing: every operation documents its problem+json error responses."""

from typing import Any

PROBLEM_SCHEMA = {
    "type": "object",
    "description": "RFC 9457 problem details.",
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "code": {"type": "string", "description": "Stable machine-readable error code."},
        "errors": {
            "type": "array",
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

_COMMON_ERRORS = {
    "400": "Invalid input (`validation_error`, `parse_error`).",
    "401": "Missing or invalid token (`not_authenticated`, `authentication_failed`).",
    "403": "Not allowed (`permission_denied`).",
    "404": "No such resource (`not_found`).",
    "405": "Method not allowed.",
    "406": "Not acceptable.",
    "409": "Conflict with the current state.",
    "415": "Unsupported media type (send JSON).",
    "422": "Idempotency key reused with a different body.",
    "429": "Throttled (`throttled`); see `Retry-After`.",
}


def add_problem_responses(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular hook: add the Problem component and error responses everywhere."""
    components = result.setdefault("components", {})
    components.setdefault("schemas", {})["Problem"] = PROBLEM_SCHEMA
    problem_ref = {"$ref": "#/components/schemas/Problem"}
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            responses = operation.setdefault("responses", {})
            for status, description in _COMMON_ERRORS.items():
                responses.setdefault(
                    status,
                    {
                        "description": description,
                        "content": {"application/problem+json": {"schema": problem_ref}},
                    },
                )
    return result
