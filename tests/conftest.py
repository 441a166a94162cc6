import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from tests.factories import UserFactory


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Throttle counters live in the shared cache; each test starts from none."""
    cache.clear()
    yield


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture
def user(db):
    return UserFactory()


@pytest.fixture
def auth_client(user) -> APIClient:
    return client_for(user)


def client_for(user) -> APIClient:
    """An API client authenticated with a fresh bearer token of `user`."""
    from accounts.services import token_create

    _, raw = token_create(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


@pytest.fixture(scope="session")
def live_asgi(django_db_setup, django_db_blocker):
    """One real web server per test process, as the Procfile runs it (tests.servers
    .WebServer), on the test database (tests using it need `django_db(transaction=True)`,
    so what they write is committed and visible to it)."""
    from tests.servers import WebServer

    with WebServer() as server:
        yield server


@pytest.fixture(scope="session")
def live_server():
    """pytest-django's in-process WSGI server is not what production runs: tests use
    `live_asgi`, or a `tests.servers.WebServer` of their own."""
    pytest.fail("use the live_asgi fixture (or tests.servers.WebServer), not live_server")
