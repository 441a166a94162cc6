"""The library's streams resume across a restart of the server, and its requests honour
`Retry-After`."""

import threading
import time
from collections.abc import Callable

import pytest
from liarsdice import Client

from tests.clients.conftest import play_out, wait_for
from tests.servers import WebServer

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def collect(stream, into: list, until=lambda item: False) -> threading.Thread:
    def read():
        for item in stream:
            into.append(item)
            if until(item):
                stream.close()

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def recorded_sleep() -> tuple[list[float], Callable[[float], None]]:
    """A client's `sleep` that notes each wait (into the list) before it waits."""
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    return waits, sleep


def test_every_stream_resumes_after_a_server_restart(new_client):
    server = WebServer(workers=1).start()
    ann, bob = new_client(server.url, "strm"), new_client(server.url, "strm")
    match = ann.create_match("classic", options={"dice_per_player": 1})
    bob.join(match.id)

    public = ann.match_stream(match.id)
    seat = ann.seat_stream(match.id)
    account = bob.account_stream(after=0)
    events, states, notices = [], [], []
    readers = [
        collect(public, events),
        collect(seat, states),
        collect(account, notices, until=lambda e: e.type == "match_finished"),
    ]
    wait_for(lambda: events and states and notices)
    server.stop()
    restarted = WebServer(workers=1, PORT=str(server.port)).start()
    try:
        play_out(ann, bob, match.id)
        for reader in readers:
            reader.join(timeout=60)
            assert not reader.is_alive()
    finally:
        restarted.stop()

    assert min(public.connections, seat.connections, account.connections) >= 2
    seqs = [e.seq for e in events]
    assert seqs == list(range(1, len(seqs) + 1))  # resumed: no gap, nothing twice
    assert events[-1].type == "match_finished"
    versions = [s.version for s in states]
    assert versions == sorted(set(versions)) and states[-1].status == "finished"
    ids = [n.id for n in notices]
    assert ids == list(range(ids[0], ids[0] + len(ids)))
    assert {"match_started", "your_turn", "match_finished"} <= {n.type for n in notices}


def test_a_throttled_request_is_retried_after_retry_after():
    waits, sleep = recorded_sleep()
    statuses: list[tuple[int, str | None]] = []
    with WebServer(workers=1, settings="config.settings.base", THROTTLE_USER="2/s") as server:
        client = Client(
            server.url,
            sleep=sleep,
            pace=False,
            observer=lambda route, response, seconds: statuses.append(
                (response.status_code, response.headers.get("Retry-After"))
            ),
        )
        client.register("throttled_reader", "a-long-and-unusual-passphrase-42")
        names = [client.me()["username"] for _ in range(5)]
        client.close()
    assert names == ["throttled_reader"] * 5
    refused = [after for status, after in statuses if status == 429]
    assert refused, statuses
    assert waits[: len(refused)] == [float(after) for after in refused]
    assert [s for s, _ in statuses].count(200) == 5


def test_a_client_that_used_up_its_rate_limit_waits_instead_of_being_refused():
    waits, sleep = recorded_sleep()
    statuses: list[int] = []
    with WebServer(workers=1, settings="config.settings.base", THROTTLE_USER="2/s") as server:
        client = Client(
            server.url,
            sleep=sleep,
            observer=lambda route, response, seconds: statuses.append(response.status_code),
        )
        client.register("paced_reader", "a-long-and-unusual-passphrase-42")
        names = [client.me()["username"] for _ in range(5)]
        client.close()
    assert names == ["paced_reader"] * 5
    assert 429 not in statuses and statuses.count(200) == 5, statuses
    # 2 a second for 5 reads: it paused at least twice, each time for under the window.
    assert len(waits) >= 2 and all(0 < wait <= 1 for wait in waits), waits


def test_a_stream_connection_waits_out_a_used_up_rate_limit():
    waits, sleep = recorded_sleep()
    statuses: list[int] = []
    with WebServer(workers=1, settings="config.settings.base", THROTTLE_USER="2/s") as server:
        client = Client(server.url, sleep=sleep)
        # Every answer, the stream's included, as httpx receives it.
        client.http.event_hooks["response"].append(lambda r: statuses.append(r.status_code))
        client.register("paced_streamer", "a-long-and-unusual-passphrase-42")
        while client.paused_until <= time.monotonic():  # until an answer says none left
            client.me()
        before = len(waits)
        stream = client.account_stream()
        connected = threading.Event()
        stream.on_connect = connected.set
        reader = collect(stream, [])
        assert connected.wait(10), statuses
        stream.close()
        reader.join(timeout=10)
        client.close()
    assert 429 not in statuses, statuses
    assert len(waits) > before and all(0 < wait <= 1 for wait in waits), waits
