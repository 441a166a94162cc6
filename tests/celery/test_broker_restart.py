"""A real worker holding an ETA task while its Redis is killed (-9) and started again: the
worker stays up and the task runs once (kombu 5.7's worker exited on reconnection with
"AttributeError: 'NoneType' object has no attribute 'hostname'")."""

import re
import threading
import time
from datetime import timedelta

import pytest
from celery import current_app
from django.db import connection, transaction
from django.utils import timezone

from games.models import Match, MatchEvent
from games.services.publish import APPLY_TURN_TIMEOUT
from tests.celery.conftest import wait_until
from tests.factories import ActiveMatchFactory
from tests.servers import RedisServer

pytestmark = pytest.mark.slow


@pytest.fixture
def redis_server(request, tmp_path):
    server = RedisServer(tmp_path / "redis", persistent=request.param).start()
    yield server
    server.stop()


def _match_due_in(seconds: float) -> Match:
    match = ActiveMatchFactory(turn_seconds=600)
    deadline = timezone.now() + timedelta(seconds=seconds)
    Match.objects.filter(pk=match.pk).update(turn_deadline=deadline)
    match.turn_deadline = deadline
    return match


# Without persistence Redis comes back empty and the worker's own copy is queued again;
# with an append-only file (compose's Redis) the copy in Redis's unacked hash is.
@pytest.mark.parametrize("redis_server", [False, True], indirect=True, ids=["empty", "kept"])
def test_worker_survives_a_redis_restart_holding_an_eta_task(
    celery_processes, redis_server, tmp_path
):
    celery_processes.env["CELERY_BROKER_URL"] = redis_server.url
    log = tmp_path / "worker.log"
    worker = celery_processes.start_worker(logfile=log)
    match = _match_due_in(8)
    with current_app.connection_for_write(redis_server.url) as connection:
        result = current_app.send_task(
            APPLY_TURN_TIMEOUT,
            args=(match.pk, match.version),
            eta=match.turn_deadline,
            connection=connection,
        )
    wait_until(lambda: log.exists() and f"[{result.id}] received" in log.read_text(), timeout=30)

    redis_server.kill()
    time.sleep(1.5)  # the worker notices and tries to reconnect to nothing
    assert worker.poll() is None, log.read_text()
    redis_server.start()

    wait_until(
        lambda: MatchEvent.objects.filter(match=match, type="turn_timed_out").exists(),
        timeout=60,
    )
    time.sleep(2)  # room for a second run, had the task been queued twice
    assert worker.poll() is None, log.read_text()
    text = log.read_text()
    assert "Unrecoverable error" not in text
    assert len(re.findall(rf"\[{result.id}\] succeeded in [0-9.e-]+s: True", text)) == 1
    assert text.count(f"[{result.id}] succeeded") == 1  # the ETA task ran once
    assert MatchEvent.objects.filter(match=match, type="turn_timed_out").count() == 1
    assert Match.objects.get(pk=match.pk).version == match.version + 1


@pytest.mark.parametrize("redis_server", [False], indirect=True, ids=["empty"])
def test_a_task_that_ends_while_redis_is_down_does_not_kill_the_worker(
    celery_processes, redis_server, tmp_path
):
    """A prefork worker sees the result only once reconnected, after the task's message
    was restored: it runs once more and finds nothing to do. (The acknowledgement on the
    old channel crashed kombu 5.7 in some runs of tests/celery/test_fault_recovery.py,
    "'NoneType' object has no attribute 'client'"; this sequence does not reach it.)"""
    celery_processes.env["CELERY_BROKER_URL"] = redis_server.url
    log = tmp_path / "worker.log"
    worker = celery_processes.start_worker(logfile=log, pool="prefork")
    match = _match_due_in(-1)
    locked, release = threading.Event(), threading.Event()

    def hold_the_match_lock() -> None:  # the task waits for it: it is running meanwhile
        with transaction.atomic():
            Match.objects.select_for_update().get(pk=match.pk)
            locked.set()
            release.wait(30)
        connection.close()

    holder = threading.Thread(target=hold_the_match_lock)
    holder.start()
    locked.wait(10)
    with current_app.connection_for_write(redis_server.url) as broker:
        result = current_app.send_task(
            APPLY_TURN_TIMEOUT, args=(match.pk, match.version), connection=broker
        )
    wait_until(lambda: log.exists() and f"[{result.id}] received" in log.read_text(), timeout=30)
    time.sleep(0.5)

    redis_server.kill()
    wait_until(lambda: "Connection to broker lost" in log.read_text(), timeout=10)
    release.set()  # the task ends and is acknowledged while Redis is down
    holder.join()
    wait_until(lambda: f"[{result.id}] succeeded" in log.read_text(), timeout=30)
    time.sleep(1)
    assert worker.poll() is None, log.read_text()

    redis_server.start()
    wait_until(lambda: log.read_text().count("Connected to redis") >= 2, timeout=60)
    time.sleep(2)
    text = log.read_text()
    assert worker.poll() is None, text
    assert "Unrecoverable error" not in text
    assert len(re.findall(rf"\[{result.id}\] succeeded in [0-9.e-]+s: True", text)) == 1
    assert MatchEvent.objects.filter(match=match, type="turn_timed_out").count() == 1
    assert Match.objects.get(pk=match.pk).version == match.version + 1
