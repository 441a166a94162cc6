"""Errors outside DRF views, health, request ids and the schema/docs endpoints."""

import pytest

pytestmark = pytest.mark.django_db


def test_unknown_url_is_problem_json(client):
    response = client.get("/api/v1/no-such-thing/")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "not_found"


def test_method_not_allowed_is_problem_json(auth_client):
    response = auth_client.put("/api/v1/me/", {}, format="json")
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


def test_healthz_reports_database_and_broker(client):
    response = client.get("/healthz")
    assert response.status_code == 200, response.content
    assert response.json()["checks"] == {"database": "ok", "broker": "ok"}


def test_healthz_is_503_when_the_broker_is_down(client, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["checks"]["broker"] == "down"


def test_request_id_is_echoed_or_generated(client):
    supplied = client.get("/healthz", HTTP_X_REQUEST_ID="client-req-12345")
    assert supplied["X-Request-ID"] == "client-req-12345"
    generated = client.get("/healthz", HTTP_X_REQUEST_ID="bad id!")
    assert len(generated["X-Request-ID"]) == 32


def test_schema_documents_problem_responses(client):
    response = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert "Problem" in schema["components"]["schemas"]
    register = schema["paths"]["/api/v1/auth/register/"]["post"]
    assert "201" in register["responses"] and "400" in register["responses"]


def test_docs_page_serves_local_assets(client):
    response = client.get("/api/v1/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger-ui" in html
    assert "cdn" not in html.lower()
    assert "/static/drf_spectacular_sidecar/" in html


@pytest.mark.urls("tests.api.urls")
def test_every_line_logged_while_serving_a_request_carries_its_id():
    import io
    import json
    import logging

    from django.test import Client

    from core.logging import JsonFormatter

    client = Client(raise_request_exception=False)

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    request_logger = logging.getLogger("django.request")  # logs the 500 inside the request
    request_logger.addHandler(handler)
    try:
        client.get("/api/v1/test-failing/", HTTP_X_REQUEST_ID="trace-me-0042")
        logging.getLogger("django.request").error("after the request")
    finally:
        request_logger.removeHandler(handler)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert lines[0]["request_id"] == "trace-me-0042" and lines[0]["level"] == "ERROR"
    assert lines[-1]["message"] == "after the request" and "request_id" not in lines[-1]


def test_api_requests_skip_the_browser_middleware_and_the_pages_keep_it(client, caplog):
    """Sessions, the user from the session and messages are for the admin and the web
    pages; the request line still names the user an API request authenticated as."""
    from tests.conftest import client_for
    from tests.factories import PlayerFactory, UserFactory

    player = PlayerFactory()
    with caplog.at_level("INFO", logger="liarsdice.request"):
        api = client_for(player).get("/api/v1/me/")
    assert api.status_code == 200
    assert not hasattr(api.wsgi_request, "session")
    assert not hasattr(api.wsgi_request, "_messages")
    (line,) = [r for r in caplog.records if r.name == "liarsdice.request"]
    assert line.user_id == player.pk and line.status == 200

    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    admin = client.get("/admin/")
    assert admin.status_code == 200
    assert admin.wsgi_request.user.is_superuser
    assert admin.wsgi_request.session.session_key
    assert hasattr(admin.wsgi_request, "_messages")
    page = client.get("/")
    assert page.wsgi_request.session.session_key == admin.wsgi_request.session.session_key
