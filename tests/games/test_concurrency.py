"""Races on the real PostgreSQL: simultaneous submissions act once."""

import threading
import time
from collections.abc import Callable

import pytest
from django.db import connection, transaction

from games.models import Match, MatchEvent, Seat
from games.services.locks import match_lock
from games.services.play import match_for_play
from tests.conftest import client_for
from tests.factories import ActiveMatchFactory
from tests.games.helpers import MATCHES, seated_players

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _race(calls) -> list:
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait()
            results[i] = call()
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def _turn_client(match_id, players):
    match = Match.objects.get(pk=match_id)
    seat_of = {s.player_id: s.seat for s in match.seats.all()}
    user = next(u for u, _ in players if seat_of[u.pk] == match.turn_seat)
    return user, match


def test_two_submissions_on_the_same_turn_exactly_one_succeeds():
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    user, match = _turn_client(match_id, players)
    # Two devices of the player on turn, and the opponent, all at once.
    devices = [client_for(user), client_for(user)]
    other = next(c for u, c in players if u.pk != user.pk)
    url = f"{MATCHES}{match_id}/actions/"
    results = _race(
        [
            lambda: devices[0].post(
                url,
                {"type": "bid", "quantity": 1, "face": 2, "expected_version": match.version},
                format="json",
            ),
            lambda: devices[1].post(
                url,
                {"type": "bid", "quantity": 1, "face": 3, "expected_version": match.version},
                format="json",
            ),
            lambda: other.post(
                url,
                {"type": "bid", "quantity": 1, "face": 4, "expected_version": match.version},
                format="json",
            ),
        ]
    )
    statuses = sorted(r.status_code for r in results)
    assert statuses.count(201) == 1, [r.content for r in results]
    assert all(s == 409 for s in statuses if s != 201)
    assert Match.objects.get(pk=match_id).version == match.version + 1


def test_same_idempotency_key_racing_acts_once():
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    user, match = _turn_client(match_id, players)
    clients = [client_for(user) for _ in range(4)]
    url = f"{MATCHES}{match_id}/actions/"
    events_before = MatchEvent.objects.filter(match_id=match_id).count()
    results = _race(
        [
            (
                lambda c=c: c.post(
                    url,
                    {"type": "bid", "quantity": 1, "face": 5},
                    format="json",
                    HTTP_IDEMPOTENCY_KEY="bid-once",
                )
            )
            for c in clients
        ]
    )
    statuses = [r.status_code for r in results]
    assert statuses.count(201) >= 1
    assert set(statuses) <= {201, 409}
    for r in results:
        if r.status_code == 409:
            assert r.json()["code"] == "idempotency_key_in_use"
    replayed = [r for r in results if r.status_code == 201 and r.get("Idempotent-Replayed")]
    assert len(replayed) == statuses.count(201) - 1
    assert Match.objects.get(pk=match_id).version == match.version + 1
    assert MatchEvent.objects.filter(match_id=match_id, type="bid").count() == 1
    assert MatchEvent.objects.filter(match_id=match_id).count() > events_before


def _timed_long_poll(client, match_id: int, *, after: int, wait: int, took: dict) -> Callable:
    """A long poll for `_race` that records how long it was held in `took["seconds"]`."""

    def poll():
        started = time.monotonic()
        response = client.get(f"{MATCHES}{match_id}/events/?after={after}&wait={wait}")
        took["seconds"] = time.monotonic() - started
        return response

    return poll


def test_long_poll_wakes_promptly_when_an_event_is_written():

    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    user, _match = _turn_client(match_id, players)
    watcher = next(c for u, c in players if u.pk != user.pk)
    actor = client_for(user)
    seq = Match.objects.get(pk=match_id).event_seq
    waited = {}
    poll = _timed_long_poll(watcher, match_id, after=seq, wait=20, took=waited)

    def act():
        time.sleep(1.0)
        return actor.post(
            f"{MATCHES}{match_id}/actions/",
            {"type": "bid", "quantity": 1, "face": 6},
            format="json",
        )

    polled, acted = _race([poll, act])
    assert acted.status_code == 201
    assert polled.status_code == 200
    events = polled.json()["events"]
    assert events and events[0]["seq"] == seq + 1 and events[0]["type"] == "bid"
    assert 0.9 <= waited["seconds"] < 5, waited


def test_long_poll_times_out_empty():
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    seq = Match.objects.get(pk=match_id).event_seq
    response = players[0][1].get(f"{MATCHES}{match_id}/events/?after={seq}&wait=1")
    assert response.status_code == 200
    assert response.json() == {"events": [], "last_seq": seq}


def test_a_move_waiting_for_the_lock_reads_the_seats_as_the_holder_committed_them():
    """`match_for_play` sends the match's FOR UPDATE and the seats' SELECT in one round
    trip: the SELECT must still see what the lock's holder committed while it waited."""
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    user = players[0][0]
    holding = threading.Event()

    def holder():
        try:
            with transaction.atomic():
                match_lock(match_id)
                Seat.objects.filter(match_id=match_id, player=user).update(consecutive_timeouts=2)
                holding.set()
                time.sleep(1.0)
        finally:
            connection.close()

    thread = threading.Thread(target=holder)
    thread.start()
    assert holding.wait(10)
    started = time.monotonic()
    with transaction.atomic():
        _match, seats = match_for_play(match_id, user)
    waited = time.monotonic() - started
    thread.join()
    assert waited > 0.5  # it did wait for the holder's commit
    assert next(s for s in seats if s.player_id == user.pk).consecutive_timeouts == 2
