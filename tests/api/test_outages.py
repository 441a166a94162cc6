"""While PostgreSQL or Redis is down the API answers 503 problem+json with Retry-After
(it answered 500: the throttle's cache read, the token lookup), and recovers by itself.
A real web server process; a Redis of the test's own, killed and restarted; PostgreSQL
at an address where none listens."""

import httpx
import pytest

from accounts.services import token_create
from tests.factories import UserFactory
from tests.servers import RedisServer, WebServer, free_port

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

STRONG = "a-Long-and-unusual-passphrase-42"


def _assert_unavailable(response: httpx.Response, which: str) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["Content-Type"] == "application/problem+json"
    assert int(response.headers["Retry-After"]) >= 1
    body = response.json()
    assert body["code"] == "service_unavailable" and body["status"] == 503
    assert body["detail"].startswith(f"The {which} is unavailable")


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(tmp_path / "redis").start()
    yield server
    server.stop()


def test_redis_down_answers_503_then_recovers(redis_server):
    _, token = token_create(user=UserFactory())
    auth = {"Authorization": f"Bearer {token}"}
    with (
        WebServer(REDIS_URL=redis_server.url) as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        assert client.get("/api/v1/me/", headers=auth).status_code == 200

        redis_server.kill()
        _assert_unavailable(client.get("/api/v1/me/", headers=auth), "cache")
        _assert_unavailable(client.get("/api/v1/players/someone/"), "cache")
        _assert_unavailable(
            client.post("/api/v1/auth/register/", json={"username": "x1", "password": STRONG}),
            "cache",
        )

        redis_server.start()
        assert client.get("/api/v1/me/", headers=auth).status_code == 200


def test_database_down_answers_503():
    # Each request waits the pool's timeout for a connection before its 503: kept short
    # here, and the client waits far longer, so a loaded machine cannot fail the test.
    server = WebServer(
        DATABASE_URL=f"postgres://postgres@127.0.0.1:{free_port()}/liarsdice",
        DATABASE_POOL_TIMEOUT="3",
    )
    with server, httpx.Client(base_url=server.url, timeout=90) as client:
        _assert_unavailable(
            client.get("/api/v1/me/", headers={"Authorization": "Bearer ld_whatever"}),
            "database",
        )
        _assert_unavailable(
            client.post("/api/v1/auth/token/", json={"username": "a", "password": "b"}),
            "database",
        )
        _assert_unavailable(client.get("/api/v1/players/someone/"), "database")
