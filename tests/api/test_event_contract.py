"""The acceptance test of the event registry (`games.events`): every event of whole
matches of every preset, and of resigns, timeouts, an abort, chat, challenges, quick
play, an abort by agreement, a claimed win and a rematch, is validated as a client
meets it — in `events/`, on the match stream and the account stream of the real ASGI
server, and as webhook bodies — against the server's OpenAPI document with every object
closed. Each stream message is typed by its `event:` name; its `data` must fit that
type's schema."""

import random
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.events import account_last_seq
from accounts.models import WebhookDelivery
from accounts.services import token_create
from games import services
from games.events import ACCOUNT_EVENTS
from games.models import Match
from games.services.challenges import challenges_expire
from tests.api.contract import Contract, timestamps
from tests.conftest import client_for
from tests.factories import PlayerFactory, UserFactory
from tests.games.helpers import MATCHES, action_from_legal
from tests.live_server import SseEvent, StreamReader
from tournaments.services import tournament_advance, tournament_start

TOURNAMENTS = "/api/v1/tournaments/"

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

PRESETS = [
    ("milton_bradley", {"dice_per_player": 2}),
    ("wild_ones", {"dice_per_player": 2, "exact_call": True, "pass_call": True}),
    ("roll_off", {"dice_per_player": 2, "show_and_reroll": "before_raise"}),
    ("classic", {"dice_per_player": 2, "exact_call": True, "pass_call": True}),
    ("perudo", {"dice_per_player": 2}),
    ("poker_dice", {"lives": 1}),
]
ACCOUNT_STREAM = "/api/v1/stream/"
MATCH_STREAM = "/api/v1/matches/{match_id}/stream/"
SEAT_STREAM = "/api/v1/matches/{match_id}/seat-stream/"


class Player:
    """A person with a token, a webhook, and a client whose every answer is checked."""

    def __init__(self, contract: Contract) -> None:
        self.user = PlayerFactory()
        self.token = token_create(user=self.user)[1]
        self.client: APIClient = client_for(self.user)
        self.contract = contract
        self.post("/api/v1/webhooks/", {"url": "http://127.0.0.1:9/hook"}, expect=201)

    def get(self, path: str, **params: Any) -> Any:
        return self.contract.check("GET", path, self.client.get(path, params))

    def post(self, path: str, body: dict, expect: int) -> Any:
        response = self.client.post(path, body, format="json")
        assert response.status_code == expect, response.content
        return self.contract.check("POST", path, response)


@pytest.fixture
def contract(db) -> Contract:
    return Contract(APIClient().get("/api/v1/schema/?format=json").json())


def _stream_members(contract: Contract, template: str) -> dict[str, dict]:
    """The documented messages of a stream, by their `event:` name."""
    response = contract.document["paths"][template]["get"]["responses"]["200"]
    schema = response["content"]["text/event-stream"]["schema"]
    return {m["properties"]["event"]["const"]: m for m in schema["oneOf"]}


def _check_messages(contract: Contract, template: str, events: list[SseEvent]) -> set[str]:
    """Every message names a documented event, and its data fits that event's schema,
    every timestamp in it in the `Z` form."""
    members = _stream_members(contract, template)
    for event in events:
        member = members.get(event.type)
        assert member is not None, f"{event.type} is not documented on {template}"
        schema = member["properties"]["data"]["contentSchema"]
        errors = [e.message for e in contract.validator(schema).iter_errors(event.data)]
        assert not errors, (event.type, event.data, errors)
        assert template == SEAT_STREAM or event.data["type"] == event.type
        assert all(t.endswith("Z") for t in timestamps(event.data)), event.data
    return {e.type for e in events}


def _match_stream(url: str, contract: Contract, player: Player, match_id: int) -> set[str]:
    """Replays the ended match's stream (it ends by itself after the final event)."""
    reader = StreamReader(f"{url}/api/v1/matches/{match_id}/stream/?after=0", player.token)
    assert reader.ended.wait(20), "the stream of an ended match did not end"
    assert reader.status == 200
    seq = Match.objects.get(pk=match_id).event_seq
    assert [e.id for e in reader.events] == list(range(1, seq + 1))
    assert all(e.data["seq"] == e.id for e in reader.events)
    return _check_messages(contract, MATCH_STREAM, reader.events)


def _seat_stream(url: str, contract: Contract, player: Player, match_id: int) -> dict:
    """The ended match's seat stream: its final state, then the end."""
    reader = StreamReader(f"{url}/api/v1/matches/{match_id}/seat-stream/", player.token)
    assert reader.ended.wait(20), "the seat stream of an ended match did not end"
    assert _check_messages(contract, SEAT_STREAM, reader.events) == {"state"}
    (final,) = reader.events
    return final.data


def _account_stream(url: str, contract: Contract, player: Player) -> set[str]:
    """Replays every kept event of the account, then hangs up; each webhook body sent to
    the player is the same event (the same payload, the same instant)."""
    last = account_last_seq(user_id=player.user.pk)
    reader = StreamReader(f"{url}{ACCOUNT_STREAM}?after=0", player.token)
    assert reader.wait_for(lambda r: len(r.events) >= last, timeout=20), reader.items
    reader.drop()
    assert [e.id for e in reader.events] == list(range(1, last + 1))
    for event in reader.events:
        assert event.data["id"] == event.id and event.data["created_at"].endswith("Z")
    heard = [
        {k: v for k, v in e.data.items() if k not in ("id", "type")} | {"event": e.type}
        for e in reader.events
    ]
    for delivery in WebhookDelivery.objects.filter(webhook__user=player.user):
        assert delivery.payload in heard, (delivery.payload, heard)
    return _check_messages(contract, ACCOUNT_STREAM, reader.events)


def _webhook_bodies(contract: Contract) -> set[str]:
    seen = set()
    for delivery in WebhookDelivery.objects.all():
        operation = contract.document["webhooks"][delivery.event]["post"]
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        errors = [e.message for e in contract.validator(schema).iter_errors(delivery.payload)]
        assert not errors, (delivery.payload, errors)
        assert all(t.endswith("Z") for t in timestamps(delivery.payload)), delivery.payload
        seen.add(delivery.event)
    return seen


def _play_to_the_end(match_id: int, players: list[Player], rng: random.Random) -> None:
    url = f"{MATCHES}{match_id}/"
    for _ in range(3000):
        views = [p.get(url) for p in players]
        if views[0]["status"] != "active":
            return
        actor = next(i for i, v in enumerate(views) if v["legal_actions"])
        action = action_from_legal(views[actor]["legal_actions"], rng)
        players[actor].post(f"{url}actions/", action, expect=201)
    raise AssertionError("the match did not end")


@pytest.mark.parametrize(("ruleset", "options"), PRESETS)
def test_every_event_of_a_whole_match_fits_the_schema_on_every_channel(
    live_asgi, contract, ruleset, options
):
    players = [Player(contract) for _ in range(2)]
    body = {"ruleset": ruleset, "options": options, "max_players": 2, "turn_seconds": 60}
    match_id = players[0].post(MATCHES, {**body, "buy_in": 10, "ante": 1}, expect=201)["id"]
    players[1].post(f"{MATCHES}{match_id}/join/", {}, expect=200)
    players[1].post(f"{MATCHES}{match_id}/messages/", {"text": "good luck"}, expect=201)
    _play_to_the_end(match_id, players, random.Random(ruleset))

    logged = {e["type"] for e in players[0].get(f"{MATCHES}{match_id}/events/", after=0)["events"]}
    assert {"match_started", "round_started", "dice_committed", "match_finished"} <= logged
    assert _match_stream(live_asgi.url, contract, players[1], match_id) == logged
    for player in players:
        heard = _account_stream(live_asgi.url, contract, player)
        assert {"match_started", "match_finished"} <= heard
        final = _seat_stream(live_asgi.url, contract, player, match_id)
        assert final == player.get(f"{MATCHES}{match_id}/")
    assert {"match_started", "your_turn", "match_finished"} <= _webhook_bodies(contract)


def test_resigns_timeouts_aborts_challenges_and_quick_play_fit_the_schema(live_asgi, contract):
    alice, bob, carol, dave = (Player(contract) for _ in range(4))
    # A match with a timeout and a resign, then aborted by a moderator.
    body = {"ruleset": "classic", "max_players": 3, "turn_seconds": 60, "on_timeout": "auto"}
    aborted = alice.post(MATCHES, {**body, "buy_in": 10, "ante": 1}, expect=201)["id"]
    bob.post(f"{MATCHES}{aborted}/join/", {}, expect=200)
    carol.post(f"{MATCHES}{aborted}/join/", {}, expect=200)
    Match.objects.filter(pk=aborted).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert services.turn_timeout(match_id=aborted)
    turn = Match.objects.get(pk=aborted).turn_seat
    resigning = next(
        p for p in (alice, bob, carol) if p.get(f"{MATCHES}{aborted}/")["your_seat"] != turn
    )
    resigning.post(f"{MATCHES}{aborted}/resign/", {}, expect=200)
    services.match_abort(match_id=aborted, actor=UserFactory(is_staff=True))

    # Challenges: accepted (a match starts), declined, cancelled, expired.
    terms = {"ruleset": "perudo", "turn_seconds": 60}
    accepted = alice.post(
        "/api/v1/challenges/", {**terms, "usernames": [bob.user.username]}, expect=201
    )
    bob.post(f"/api/v1/challenges/{accepted['id']}/accept/", {}, expect=200)
    declined = bob.post(
        "/api/v1/challenges/", {**terms, "usernames": [carol.user.username]}, expect=201
    )
    carol.post(f"/api/v1/challenges/{declined['id']}/decline/", {}, expect=200)
    cancelled = carol.post(
        "/api/v1/challenges/", {**terms, "usernames": [dave.user.username]}, expect=201
    )
    carol.post(f"/api/v1/challenges/{cancelled['id']}/cancel/", {}, expect=200)
    dave.post("/api/v1/challenges/", {**terms, "usernames": [alice.user.username]}, expect=201)
    assert challenges_expire(now=timezone.now() + timedelta(days=1)) == 1
    # Quick play: two compatible seeks make a match.
    seek = {"ruleset": "classic", "players": 2, "turn_seconds": 60}
    carol.post("/api/v1/seeks/", seek, expect=201)
    dave.post("/api/v1/seeks/", seek, expect=201)

    lifecycle = _lifecycle_matches(alice, bob, carol, dave)
    _tournaments(alice, bob, carol, dave)

    logged = _match_stream(live_asgi.url, contract, alice, aborted)
    assert {"turn_timed_out", "player_resigned", "match_aborted"} <= logged
    for match_id, expected in lifecycle.items():
        assert expected <= _match_stream(live_asgi.url, contract, alice, match_id)
    heard = set()
    for player in (alice, bob, carol, dave):
        heard |= _account_stream(live_asgi.url, contract, player)
    assert heard == set(ACCOUNT_EVENTS), set(ACCOUNT_EVENTS) - heard
    assert _webhook_bodies(contract) == set(ACCOUNT_EVENTS)


def _tournaments(*players: Player) -> None:
    """A sit-and-go played out (starting, table, finished) and one cancelled."""
    alice, bob, carol, dave = players
    body = {
        "name": "Heads-up",
        "format": "sit_and_go",
        "ruleset": "classic",
        "turn_seconds": 60,
        "table_size": 2,
        "buy_in": 10,
    }
    played = alice.post(TOURNAMENTS, body, expect=201)["id"]
    for player in (alice, bob):
        player.post(f"{TOURNAMENTS}{played}/register/", {}, expect=200)
    assert tournament_start(tournament_id=played)
    (table,) = alice.get(f"{TOURNAMENTS}{played}/")["stages"][0]["tables"]
    bob.post(f"{MATCHES}{table['match_id']}/resign/", {}, expect=200)
    assert tournament_advance(tournament_id=played)
    cancelled = carol.post(TOURNAMENTS, {**body, "table_size": 3}, expect=201)["id"]
    dave.post(f"{TOURNAMENTS}{cancelled}/register/", {}, expect=200)
    carol.post(f"{TOURNAMENTS}{cancelled}/cancel/", {}, expect=200)


def _lifecycle_matches(*players: Player) -> dict[int, set[str]]:
    """Matches ended by agreement, by a claimed win, and replayed: each match's id and
    the events it must have logged."""
    alice, bob, carol, dave = players
    body = {"ruleset": "classic", "max_players": 2, "turn_seconds": 60, "buy_in": 10}
    agreed = alice.post(MATCHES, body, expect=201)["id"]
    dave.post(f"{MATCHES}{agreed}/join/", {}, expect=200)
    alice.post(f"{MATCHES}{agreed}/abort/", {}, expect=200)
    dave.post(f"{MATCHES}{agreed}/abort/withdraw/", {}, expect=200)
    dave.post(f"{MATCHES}{agreed}/abort/", {}, expect=200)
    alice.post(f"{MATCHES}{agreed}/abort/", {}, expect=200)

    claimed = alice.post(MATCHES, {**body, "on_timeout": "challenge"}, expect=201)["id"]
    carol.post(f"{MATCHES}{claimed}/join/", {}, expect=200)
    rng = random.Random(5)
    while Match.objects.get(pk=claimed).seats.get(seat=1).consecutive_timeouts < 2:
        view = alice.get(f"{MATCHES}{claimed}/")
        if view["legal_actions"]:
            bids = [e for e in view["legal_actions"] if e["type"] == "bid"]
            action = action_from_legal(bids, rng)
            alice.post(f"{MATCHES}{claimed}/actions/", action, expect=201)
        else:
            services.turn_force_timeout(match_id=claimed)
    alice.post(f"{MATCHES}{claimed}/claim-victory/", {}, expect=200)

    replayed = bob.post(MATCHES, {**body, "rated": False}, expect=201)["id"]
    alice.post(f"{MATCHES}{replayed}/join/", {}, expect=200)
    alice.post(f"{MATCHES}{replayed}/resign/", {}, expect=200)
    bob.post(f"{MATCHES}{replayed}/rematch/", {}, expect=200)
    alice.post(f"{MATCHES}{replayed}/rematch/decline/", {}, expect=200)
    alice.post(f"{MATCHES}{replayed}/rematch/", {}, expect=200)
    assert bob.post(f"{MATCHES}{replayed}/rematch/", {}, expect=200)["rematch_id"]
    return {
        agreed: {"abort_proposed", "abort_withdrawn", "abort_agreed", "match_aborted"},
        claimed: {"victory_claimed", "player_out", "match_finished"},
        replayed: {"rematch_offered", "rematch_declined", "rematch_accepted", "rematch_started"},
    }
