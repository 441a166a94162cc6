import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import stakes
from games.models import Match, MatchEvent, RoundRecord
from ledger.models import Transfer, TransferKind
from tests.factories import ActiveMatchFactory
from tests.games.helpers import (
    MATCHES,
    action_from_legal,
    seated_players,
)

pytestmark = pytest.mark.django_db

# Queries per request, pinned: a change here is a deliberate decision. None of them may
# grow with the number of seats or rounds.
GET_QUERIES = 3  # GET a match: its token, the match and its seats together, the stacks
EVENTS_QUERIES = 3  # GET its events
# POST a bid: its token, the match locked with its seats (core.prebuilt.select_together),
# then the action log's entry, the events, the match row and the next player's
# `your_turn` in one round trip (core.prebuilt.Writes), the stacks for the answer. The
# events' INSERT wakes the followers by itself (a trigger).
BID_QUERIES = 6
# POST a challenge that ends a round: the round pot to its winner, the round record, then
# the next round's two antes from every live seat; the action log's entry, the events, the
# match row and the opener's `your_turn` account event together.
CHALLENGE_QUERIES = 15


@pytest.fixture(autouse=True)
def _seeded_dice(monkeypatch):
    monkeypatch.setattr("games.fairness.SECURE_DICE", random.Random(5))


def test_replay_returns_the_first_response_and_changes_nothing():
    players = seated_players(1)
    client = players[0][1]
    body = {"ruleset": "classic", "max_players": 3, "turn_seconds": 60}
    first = client.post(MATCHES, body, format="json", HTTP_IDEMPOTENCY_KEY="create-1")
    assert first.status_code == 201
    again = client.post(MATCHES, body, format="json", HTTP_IDEMPOTENCY_KEY="create-1")
    assert again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert Match.objects.count() == 1

    other = client.post(
        MATCHES, {**body, "max_players": 4}, format="json", HTTP_IDEMPOTENCY_KEY="create-1"
    )
    assert other.status_code == 422
    assert other.json()["code"] == "idempotency_key_reused"
    assert Match.objects.count() == 1


def test_errors_are_replayed_too_and_keys_are_per_user():
    players = seated_players(2)
    body = {"ruleset": "classic", "max_players": 9, "turn_seconds": 60}
    first = players[0][1].post(MATCHES, body, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert first.status_code == 400
    again = players[0][1].post(MATCHES, body, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert again.status_code == 400 and again["Idempotent-Replayed"] == "true"
    assert again["Content-Type"] == "application/problem+json"
    fine = {**body, "max_players": 3}
    assert (
        players[1][1].post(MATCHES, fine, format="json", HTTP_IDEMPOTENCY_KEY="k").status_code
        == 201
    )


def test_overlong_key_is_rejected():
    client = seated_players(1)[0][1]
    response = client.post(
        MATCHES,
        {"ruleset": "classic", "max_players": 3, "turn_seconds": 60},
        format="json",
        HTTP_IDEMPOTENCY_KEY="x" * 256,
    )
    assert response.status_code == 400
    assert Match.objects.count() == 0


def _play(match_id, players, rng, actions: int) -> None:
    clients = [c for _, c in players]
    for _ in range(actions):
        views = [c.get(f"{MATCHES}{match_id}/").json() for c in clients]
        actor = next(i for i, v in enumerate(views) if v["legal_actions"])
        action = action_from_legal(views[actor]["legal_actions"], rng)
        clients[actor].post(f"{MATCHES}{match_id}/actions/", action, format="json")


def _count(call) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = call()
    assert response.status_code in (200, 201), response.content
    return len(ctx.captured_queries)


def _budget(n_players: int, rounds_played: int) -> dict[str, int]:
    rng = random.Random(n_players)
    players = seated_players(n_players)
    match_id = ActiveMatchFactory(
        players=[user for user, _ in players], ruleset="milton_bradley", buy_in=40, ante=1
    ).pk
    if rounds_played:
        while Match.objects.get(pk=match_id).state["round"]["number"] <= rounds_played:
            _play(match_id, players, rng, 1)
    clients = {
        s.seat: c
        for (u, c) in players
        for s in Match.objects.get(pk=match_id).seats.filter(player=u)
    }
    match = Match.objects.get(pk=match_id)
    on_turn = clients[match.turn_seat]
    bid = next(
        a
        for a in on_turn.get(f"{MATCHES}{match_id}/").json()["legal_actions"]
        if a["type"] == "bid"
    )
    face, quantity = sorted(bid["min_quantity_by_face"].items())[-1]
    seq = match.event_seq
    return {
        "get": _count(lambda: on_turn.get(f"{MATCHES}{match_id}/")),
        "events": _count(lambda: on_turn.get(f"{MATCHES}{match_id}/events/?after=0")),
        "post": _count(
            lambda: on_turn.post(
                f"{MATCHES}{match_id}/actions/",
                {"type": "bid", "quantity": quantity, "face": int(face)},
                format="json",
            )
        ),
        "events_after": seq,
    }


def test_query_counts_do_not_grow_with_seats_or_rounds():
    small = _budget(2, 0)
    large = _budget(8, 0)
    later = _budget(3, 3)
    assert later["events_after"] > small["events_after"]  # really a later round
    for path in ("get", "events", "post"):
        assert small[path] == large[path] == later[path], (path, small, large, later)
    assert (small["get"], small["events"], small["post"]) == (
        GET_QUERIES,
        EVENTS_QUERIES,
        BID_QUERIES,
    )
    assert MatchEvent.objects.exists()


def _challenge_budget(n_players: int) -> int:
    players = seated_players(n_players)
    # One die lost per challenge: the first round's challenge never ends the match.
    match_id = ActiveMatchFactory(
        players=[user for user, _ in players],
        ruleset="milton_bradley",
        options={"loss": "one"},
        buy_in=40,
        ante=1,
    ).pk
    by_user = {u.pk: c for u, c in players}
    by_seat = {s.seat: by_user[s.player_id] for s in Match.objects.get(pk=match_id).seats.all()}
    url = f"{MATCHES}{match_id}/actions/"
    opener = by_seat[Match.objects.get(pk=match_id).turn_seat]
    assert (
        opener.post(url, {"type": "bid", "quantity": 1, "face": 2}, format="json").status_code
        == 201
    )
    challenger = by_seat[Match.objects.get(pk=match_id).turn_seat]
    # The challenger reads the match first, as a client does: its token's first use (a
    # write of last_used_at) is no part of the challenge's cost.
    assert challenger.get(f"{MATCHES}{match_id}/").status_code == 200
    count = _count(lambda: challenger.post(url, {"type": "challenge"}, format="json"))
    match = Match.objects.get(pk=match_id)
    # The POST measured did end round 1 and ante every seat into round 2.
    assert match.state["round"]["number"] == 2
    assert RoundRecord.objects.filter(match=match, number=1).exists()
    antes = Transfer.objects.filter(scope=stakes.match_scope(match.pk), round_number=2)
    assert antes.filter(kind=TransferKind.ANTE_ROUND).count() == n_players
    assert antes.filter(kind=TransferKind.ANTE_GAME).count() == n_players
    assert (
        Transfer.objects.filter(
            scope=stakes.match_scope(match.pk), kind=TransferKind.ROUND_POT_WIN
        ).count()
        == 1
    )
    return count


def test_a_round_ending_challenge_costs_the_same_queries_at_any_table_size():
    assert _challenge_budget(2) == _challenge_budget(6) == CHALLENGE_QUERIES


@pytest.mark.django_db(transaction=True)
def test_a_failed_claim_leaves_no_owner_lock_on_the_connection():
    """The owner lock is a session lock: taken by a statement that then fails (here the
    claim, for a user gone meanwhile), it must not stay on a pooled connection, where it
    would answer every retry of the key with 409."""
    from types import SimpleNamespace

    from django.db import DatabaseError

    from core.idempotency import _take_owner_lock_and_claim

    request = SimpleNamespace(user=SimpleNamespace(pk=987654321))
    with pytest.raises(DatabaseError):
        _take_owner_lock_and_claim(request, "a-key", "f" * 64)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
        )
        assert cursor.fetchone()[0] == 0
