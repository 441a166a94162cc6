"""The whole stack under faults while bots play: the Procfile (web, worker, beat) under
scripts/supervise.py, as `make run` runs it, on a Redis of the test's own (append-only,
as compose's). First, on the test PostgreSQL, Redis is killed -9 and restarted, then the
worker's main process is killed -9 (the supervisor restarts it). Then, on a PostgreSQL
cluster of the test's own (so the suite's database is not harmed), PostgreSQL is killed
-9 and restarted. While a dependency is down the API answers 503 problem+json;
everything recovers by itself; no match is stuck, no move is applied twice, and the
ledger balances. Recovery times are printed."""

import os
import signal
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest
from django.core.management import call_command
from django.db import connection

from accounts.services import token_create
from games.models import Match, MatchEvent
from tests.celery.conftest import wait_until
from tests.celery.test_worker import (
    _all_bot_match,
    _assert_each_action_logged_once,
    _assert_settled,
)
from tests.factories import UserFactory
from tests.servers import PostgresCluster, RedisServer, Supervised, database_url, free_port

pytestmark = pytest.mark.slow

MATCHES = 3


def _progress(ids: list[int]) -> int:
    return sum(Match.objects.filter(pk__in=ids).values_list("version", flat=True))


def _me(client: httpx.Client, token: str) -> httpx.Response | None:
    try:
        return client.get("/api/v1/me/", headers={"Authorization": f"Bearer {token}"})
    except httpx.HTTPError:
        return None


def _answers(client: httpx.Client, token: str, status: int) -> bool:
    response = _me(client, token)
    return response is not None and response.status_code == status


def _timed(predicate, *, timeout: float) -> float:
    started = time.monotonic()
    wait_until(predicate, timeout=timeout, interval=0.1)
    return time.monotonic() - started


def _stack_env(tmp_path: Path, database: str, redis: RedisServer, port: int) -> dict:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DEBUG": "0",
        "SECRET_KEY": "test-only-secret-key-not-for-production-use-0123456789",
        "SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": database,
        "CELERY_BROKER_URL": redis.url,
        "REDIS_URL": redis.url,
        "DATA_DIR": str(tmp_path),
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "WEB_CONCURRENCY": "1",
        "WEB_THREADS": "4",
        "CELERY_CONCURRENCY": "2",
        "SWEEP_SECONDS": "0.5",
        "BOT_THINK_SECONDS": "0.05",
        "BOT_TURN_DEADLINE_SECONDS": "2",
        "LOG_LEVEL": "WARNING",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }


def _assert_down(response: httpx.Response | None) -> None:
    assert response is not None and response.status_code == 503, response and response.text
    assert response.headers["Content-Type"] == "application/problem+json"
    assert int(response.headers["Retry-After"]) >= 1
    assert response.json()["code"] == "service_unavailable"


def _assert_played_cleanly(ids: list[int]) -> None:
    """Every match finished once, settled, each action applied once; the ledger holds."""
    for match_id in ids:
        _assert_settled(match_id)
        _assert_each_action_logged_once(match_id)
        assert MatchEvent.objects.filter(match_id=match_id, type="match_finished").count() == 1
    call_command("ledger_check")


def _wait_all_finished(ids: list[int], *, timeout: float) -> None:
    wait_until(
        lambda: not Match.objects.filter(pk__in=ids).exclude(status="finished").exists(),
        timeout=timeout,
    )


def _print(capsys, stack: Supervised, figures: dict[str, float]) -> None:
    with capsys.disabled():
        print("\n".join(line for line in stack.lines if "supervise" in line or "rror" in line))
        print("\nrecovery times:")
        for name, seconds in figures.items():
            print(f"  {name:<45} {seconds:6.2f} s")


@pytest.mark.django_db(transaction=True)
def test_bot_play_survives_redis_and_worker_kills(tmp_path, capsys):
    redis = RedisServer(tmp_path / "redis", persistent=True).start()
    port = free_port()
    stack = Supervised(_stack_env(tmp_path, database_url(), redis, port))
    figures: dict[str, float] = {}
    try:
        client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10)
        _, token = token_create(user=UserFactory())
        wait_until(lambda: _answers(client, token, 200), timeout=60)
        # Classic (a die lost a round, 3 x 5 dice): long enough to be mid-match at each kill.
        ids = [_all_bot_match(buy_in=20, ante=1, ruleset="classic").pk for _ in range(MATCHES)]
        # Their first move was queued on the suite's broker: the sweep plays it (2 s).
        wait_until(lambda: _progress(ids) >= 6, timeout=60)

        # Redis killed -9: the API answers 503, and comes back with Redis.
        redis.kill()
        _assert_down(_me(client, token))
        time.sleep(5)
        before = _progress(ids)
        redis.start()
        restarted = time.monotonic()
        wait_until(lambda: _answers(client, token, 200), timeout=30)
        figures["redis: API answers again"] = time.monotonic() - restarted
        wait_until(lambda: _progress(ids) > before, timeout=120, interval=0.1)
        figures["redis: bots move again"] = time.monotonic() - restarted

        # The worker's main process killed -9: the supervisor starts another one.
        (worker,) = stack.pids("worker")
        before = _progress(ids)
        os.kill(worker, signal.SIGKILL)
        killed = time.monotonic()
        assert _me(client, token).status_code == 200  # the API does not notice
        figures["worker: restarted"] = _timed(lambda: len(stack.pids("worker")) == 2, timeout=30)
        wait_until(lambda: _progress(ids) > before, timeout=120, interval=0.1)
        figures["worker: bots move again"] = time.monotonic() - killed

        finished = time.monotonic()
        _wait_all_finished(ids, timeout=300)
        figures["all matches finished after the last kill"] = time.monotonic() - finished
    finally:
        stack.stop()
        redis.stop()
        _print(capsys, stack, figures)

    assert len(stack.pids("web")) == 1  # neither fault restarted the API
    _assert_played_cleanly(ids)


@pytest.fixture
def own_postgres(transactional_db):
    """A PostgreSQL cluster of the test's own with a copy of the test database, which
    this process's connection uses meanwhile (factories, services, checks). Not in
    pytest's tmp_path: pytest keeps its root private, and PostgreSQL runs as another
    user when the tests run as root."""
    cluster = PostgresCluster(Path(tempfile.mkdtemp(prefix="liarsdice-pg-")) / "data")
    suite_database = connection.settings_dict
    try:
        cluster.copy_database(database_url(), "liarsdice")
        connection.close()
        connection.settings_dict = {
            **suite_database,
            "NAME": "liarsdice",
            "USER": "postgres",
            "PASSWORD": "",
            "HOST": cluster.socket_dir,
            "PORT": "",
            "OPTIONS": {k: v for k, v in suite_database["OPTIONS"].items() if k != "host"},
        }
        yield cluster
    finally:
        connection.close()
        connection.settings_dict = suite_database
        cluster.stop()


def test_bot_play_survives_a_postgres_kill(own_postgres, tmp_path, capsys):
    redis = RedisServer(tmp_path / "redis", persistent=True).start()
    port = free_port()
    env = _stack_env(tmp_path, own_postgres.url("liarsdice"), redis, port)
    # How long a request waits for a pooled connection before answering 503 (20 s by
    # default, as under load).
    stack = Supervised({**env, "DATABASE_POOL_TIMEOUT": "5"})
    figures: dict[str, float] = {}
    try:
        client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
        _, token = token_create(user=UserFactory())
        wait_until(lambda: _answers(client, token, 200), timeout=60)
        ids = [_all_bot_match(buy_in=20, ante=1, ruleset="classic").pk for _ in range(2)]
        # Their first move was queued on the suite's broker: the sweep plays it (2 s).
        wait_until(lambda: _progress(ids) >= 6, timeout=60)

        # PostgreSQL killed -9 (postmaster and backends): the API answers 503, and comes
        # back with PostgreSQL once it has recovered from its log.
        before = _progress(ids)
        assert Match.objects.filter(pk__in=ids, status="active").count() == len(ids)
        own_postgres.kill()
        connection.close()
        killed = time.monotonic()
        _assert_down(_me(client, token))
        figures["postgres: API answers 503 after the kill"] = time.monotonic() - killed
        time.sleep(1)
        starting = time.monotonic()
        own_postgres.start()
        restarted = time.monotonic()
        figures["postgres: start with crash recovery"] = restarted - starting
        wait_until(lambda: _answers(client, token, 200), timeout=60)
        figures["postgres: API answers again"] = time.monotonic() - restarted
        wait_until(lambda: _progress(ids) > before, timeout=60, interval=0.1)
        figures["postgres: bots move again"] = time.monotonic() - restarted
        _wait_all_finished(ids, timeout=120)
        figures["postgres: all matches finished"] = time.monotonic() - restarted
    finally:
        stack.stop()
        redis.stop()
        _print(capsys, stack, figures)

    assert len(stack.pids("web")) == 1  # the API survived the outage
    _assert_played_cleanly(ids)
