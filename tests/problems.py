"""Assertions on the API's problem+json errors, shared by the test packages."""

import functools

from drf_spectacular.generators import SchemaGenerator

from tests.api.contract import Contract


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
    _assert_rate_limit_headers(response)
    return body


def assert_invalid_field(response, field: str) -> dict:
    """A 400 `validation_error` whose `errors` name `field`."""
    body = assert_problem(response, 400, "validation_error")
    assert field in {e["field"] for e in body["errors"]}, body
    return body


def _assert_documented(response, status: int, code: str) -> None:
    request = getattr(response, "request", None) or {}
    path, method = request.get("PATH_INFO"), request.get("REQUEST_METHOD")
    template = _contract().template(path) if path and method else None
    operation = _contract().document["paths"][template].get(method.lower()) if template else None
    if operation is None:
        return  # not an operation of the API (a page, the admin, /healthz)
    documented = operation["responses"].get(str(status))
    assert documented is not None, f"{method} {path}: {status} is not in the OpenAPI document"
    assert f"`{code}`" in documented.get("description", ""), (
        f"{method} {path}: {status} `{code}` is not in the OpenAPI document "
        f"({documented.get('description')})"
    )


def _assert_rate_limit_headers(response) -> None:
    """Every API answer reports its rate limits (core.throttling), errors included; a 503
    may be Redis down, so it may go without."""
    request = getattr(response, "request", None) or {}
    if not request.get("PATH_INFO", "").startswith("/api/") or response.status_code == 503:
        return
    assert response.has_header("RateLimit-Policy") and response.has_header("RateLimit"), (
        f"{request.get('PATH_INFO')} {response.status_code}: no rate-limit headers"
    )


@functools.cache
def _contract() -> Contract:
    return Contract(SchemaGenerator().get_schema(request=None, public=True))
