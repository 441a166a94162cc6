"""Webhook deliveries whose task was lost (a worker killed mid-delivery, the broker down
when they were made) are sent again by the beat sweep, by a real worker; concurrent
sweeps and duplicate tasks never send one delivery twice."""

import threading
import time
from collections import Counter
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.db import connection
from django.utils import timezone

from accounts.models import Webhook, WebhookDelivery
from accounts.secret_box import seal
from accounts.tasks import deliver_webhook
from accounts.webhooks import LEASE, deliver, resend_stuck
from tests.celery.conftest import wait_until
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


class SlowReceiver:
    """Counts the POSTs per X-Delivery-Id, answering each after `delay` seconds with the
    statuses given, in order (the last one repeats)."""

    def __init__(self, delay: float = 0.0, statuses: tuple[int, ...] = (204,)) -> None:
        self.posts: Counter[str] = Counter()
        self.statuses = list(statuses)
        self.hang_first = threading.Event()  # cleared: the first POST waits until set
        self.hang_first.set()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.posts[self.headers["X-Delivery-Id"]] += 1
                if sum(receiver.posts.values()) == 1:
                    receiver.hang_first.wait(timeout=60)
                time.sleep(delay)
                statuses = receiver.statuses
                self.send_response(statuses.pop(0) if len(statuses) > 1 else statuses[0])
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def __enter__(self) -> "SlowReceiver":
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def _deliveries(url: str, count: int, **fields) -> list[WebhookDelivery]:
    hook = Webhook.objects.create(user=UserFactory(), url=url, encrypted_secret=seal("s" * 32))
    return [
        WebhookDelivery.objects.create(webhook=hook, event="your_turn", payload={"n": n}, **fields)
        for n in range(count)
    ]


def _in_threads(count: int, work) -> list:
    """`work()` in `count` threads started together, each on its own connection."""
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[index] = work()
        except Exception as exc:  # reported by the assertion below
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(isinstance(r, Exception) for r in results), results
    return results


def test_a_worker_killed_mid_delivery_leaves_it_to_the_sweep(celery_processes):
    with SlowReceiver() as receiver:
        receiver.hang_first.clear()  # the first attempt gets no answer
        (delivery,) = _deliveries(receiver.url, 1)
        worker = celery_processes.start_worker()
        deliver_webhook.delay(delivery.pk, 0)
        wait_until(lambda: receiver.posts[str(delivery.pk)] == 1, timeout=60)
        celery_processes.kill(worker)  # kill -9 while it waits for the answer
        delivery.refresh_from_db()
        assert delivery.status == "pending" and delivery.attempts == 1
        assert delivery.leased_until > timezone.now()
        assert resend_stuck() == 0  # its lease may still be an attempt under way
        # As if the lease had run out and the delivery were overdue by now.
        long_ago = timezone.now() - timedelta(hours=1)
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            leased_until=long_ago, next_attempt_at=long_ago
        )
        celery_processes.start_worker()
        assert resend_stuck() == 1
        wait_until(
            lambda: WebhookDelivery.objects.get(pk=delivery.pk).status == "delivered",
            timeout=60,
        )
        receiver.hang_first.set()
    delivery.refresh_from_db()
    assert delivery.attempts == 2 and receiver.posts == {str(delivery.pk): 2}


def test_a_delivery_left_pending_by_a_dead_worker_is_resent_by_the_sweep(celery_processes):
    long_ago = timezone.now() - timedelta(hours=1)
    with SlowReceiver() as receiver:
        # A worker died mid-delivery: one attempt counted, its lease long expired.
        (stranded,) = _deliveries(
            receiver.url, 1, attempts=1, next_attempt_at=long_ago, leased_until=long_ago
        )
        # Not stuck: waiting for its retry, or an attempt under way right now.
        (waiting,) = _deliveries(receiver.url, 1, next_attempt_at=timezone.now())
        (in_flight,) = _deliveries(
            receiver.url, 1, next_attempt_at=long_ago, leased_until=timezone.now() + LEASE
        )
        celery_processes.start_worker()
        assert resend_stuck() == 1
        assert resend_stuck() == 0  # resent once: due afresh, not stuck
        wait_until(
            lambda: WebhookDelivery.objects.get(pk=stranded.pk).status == "delivered",
            timeout=60,
        )
    stranded.refresh_from_db()
    assert stranded.attempts == 2 and stranded.leased_until is None
    assert receiver.posts == {str(stranded.pk): 1}
    assert WebhookDelivery.objects.get(pk=waiting.pk).attempts == 0
    assert WebhookDelivery.objects.get(pk=in_flight.pk).attempts == 0


def test_a_failed_attempt_is_retried_by_the_worker_at_its_due_time(celery_processes):
    with SlowReceiver(statuses=(500, 204)) as receiver:
        (delivery,) = _deliveries(receiver.url, 1)
        celery_processes.start_worker()
        deliver_webhook.delay(delivery.pk, 0)
        wait_until(
            lambda: WebhookDelivery.objects.get(pk=delivery.pk).status == "delivered",
            timeout=60,
        )
    delivery.refresh_from_db()
    assert delivery.attempts == 2 and receiver.posts == {str(delivery.pk): 2}


def test_concurrent_sweeps_resend_each_stuck_delivery_once():
    long_ago = timezone.now() - timedelta(hours=1)
    stuck = _deliveries("http://127.0.0.1:9/hook", 40, next_attempt_at=long_ago)
    counts = _in_threads(4, resend_stuck)
    assert sum(counts) == len(stuck)


def test_concurrent_attempts_at_one_delivery_send_it_once():
    with SlowReceiver(delay=0.5) as receiver:
        (delivery,) = _deliveries(receiver.url, 1)
        # Duplicate tasks for the same delivery, as the sweep and a broker redelivery
        # can leave: one sends, the others find it taken or done.
        results = _in_threads(4, lambda: deliver(delivery.pk, 0))
        # A stale duplicate arriving after the attempt (count out of date) sends nothing.
        assert deliver(delivery.pk, 0) is True
    assert results == [True] * 4
    assert receiver.posts == {str(delivery.pk): 1}
    delivery.refresh_from_db()
    assert delivery.status == "delivered" and delivery.attempts == 1


def test_a_stale_duplicate_task_does_not_spend_an_attempt():
    (delivery,) = _deliveries("http://127.0.0.1:9/hook", 1)  # nothing listens: fails
    assert deliver(delivery.pk, 0) is False
    assert deliver(delivery.pk, 0) is True  # the duplicate: its count is out of date
    delivery.refresh_from_db()
    assert delivery.attempts == 1 and delivery.status == "pending"
    assert delivery.next_attempt_at > timezone.now() and delivery.leased_until is None
