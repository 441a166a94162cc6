"""Assertions on the API's problem+json errors, shared by the test packages."""

import functools
import re
from typing import Any


def assert_problem(response, status: int, code: str) -> dict:
    """The response is an RFC 9457 problem with this status and stable `code`, and the
    OpenAPI document lists that status and code for the operation that answered."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == code
    assert body["status"] == status
    assert {"type", "title", "detail"} <= set(body)
    _assert_documented(response, status, code)
    return body


def _assert_documented(response, status: int, code: str) -> None:
    request = getattr(response, "request", None) or {}
    path, method = request.get("PATH_INFO"), request.get("REQUEST_METHOD")
    operation = _operation(path, method) if path and method else None
    if operation is None:
        return  # not an operation of the API (a page, the admin, /healthz)
    documented = operation["responses"].get(str(status))
    assert documented is not None, f"{method} {path}: {status} is not in the OpenAPI document"
    assert f"`{code}`" in documented.get("description", ""), (
        f"{method} {path}: {status} `{code}` is not in the OpenAPI document "
        f"({documented.get('description')})"
    )


def _operation(path: str, method: str) -> dict[str, Any] | None:
    for pattern, template in _routes():
        if pattern.match(path):
            return _document()["paths"][template].get(method.lower())
    return None


@functools.cache
def _document() -> dict[str, Any]:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


@functools.cache
def _routes() -> list[tuple[re.Pattern, str]]:
    return [
        (re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$"), template)
        for template in _document()["paths"]
    ]
