"""The whole stack under faults while bots play: the Procfile (web, worker, beat) under
scripts/supervise.py, as `make run` runs it, on a Redis of the test's own (append-only,
as compose's) and the test PostgreSQL. Redis is killed -9 and restarted, then the
worker's main process is killed -9 (the supervisor restarts it). While Redis is down the
API answers 503 problem+json; everything recovers by itself; no match is stuck, no move
is applied twice, and the ledger balances. Recovery times are printed (run with -s).

PostgreSQL is not killed here: the suite's embedded cluster serves every test running
in parallel. PostgreSQL down is covered by tests/api/test_outages.py (503) and by
tests/games/test_outage_grace.py (deadlines after an outage)."""

import os
import signal
import sys
import time
from pathlib import Path

import httpx
import pytest
from django.core.management import call_command

from accounts.services import token_create
from games.models import Match, MatchEvent
from tests.celery.conftest import database_url_for_subprocesses, wait_until
from tests.celery.test_worker import (
    _all_bot_match,
    _assert_each_action_logged_once,
    _assert_settled,
)
from tests.factories import UserFactory
from tests.servers import RedisServer, Supervised, free_port

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

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


def test_bot_play_survives_redis_and_worker_kills(tmp_path, capsys):
    redis = RedisServer(tmp_path / "redis", persistent=True).start()
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DEBUG": "0",
        "SECRET_KEY": "test-only-secret-key-not-for-production-use-0123456789",
        "SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": database_url_for_subprocesses(),
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
    stack = Supervised(env)
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
        down = _me(client, token)
        assert down is not None and down.status_code == 503, down and down.text
        assert down.headers["Content-Type"] == "application/problem+json"
        assert int(down.headers["Retry-After"]) >= 1
        assert down.json()["code"] == "service_unavailable"
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
        wait_until(
            lambda: not Match.objects.filter(pk__in=ids).exclude(status="finished").exists(),
            timeout=300,
        )
        figures["all matches finished after the last kill"] = time.monotonic() - finished
    finally:
        stack.stop()
        redis.stop()
        with capsys.disabled():
            print("\n".join(line for line in stack.lines if "supervise" in line or "rror" in line))

    assert len(stack.pids("web")) == 1  # neither fault restarted the API
    for match_id in ids:
        _assert_settled(match_id)
        _assert_each_action_logged_once(match_id)
        assert MatchEvent.objects.filter(match_id=match_id, type="match_finished").count() == 1
    call_command("ledger_check")
    with capsys.disabled():
        print("\nrecovery times:")
        for name, seconds in figures.items():
            print(f"  {name:<45} {seconds:6.2f} s")
