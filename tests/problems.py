"""Assertions on the API's problem+json errors, shared by the test packages."""


def assert_problem(response, status: int, code: str) -> dict:
    """The response is an RFC 9457 problem with this status and stable `code`."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == code
    assert body["status"] == status
    assert {"type", "title", "detail"} <= set(body)
    return body
