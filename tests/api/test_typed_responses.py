"""The acceptance test of the typed schema: every response of whole matches of every
preset (lobby, play, timeouts, a forfeit, an abort, errors, chat, webhooks) is validated
against /api/v1/schema/ with every documented object closed, so the schema must name
each field a client reads, with its type, and nothing the server sends is left out."""

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import WebhookDelivery
from games import services
from games.events import MATCH_EVENTS
from games.models import Match
from tests.api.contract import Contract
from tests.conftest import client_for
from tests.factories import PlayerFactory, UserFactory, fund_house
from tests.games.helpers import MATCHES

PRESETS = [
    ("milton_bradley", 3, {"dice_per_player": 3}),
    ("wild_ones", 3, {"dice_per_player": 3, "exact_call": True, "pass_call": True}),
    ("roll_off", 2, {"dice_per_player": 3, "show_and_reroll": "before_raise"}),
    ("classic", 3, {"dice_per_player": 3, "exact_call": True, "pass_call": True}),
    ("poker_dice", 3, {"lives": 2}),
]


@pytest.fixture
def contract(api_client, db) -> Contract:
    return Contract(api_client.get("/api/v1/schema/?format=json").json())


class Caller:
    """A client whose every answer is checked against the contract."""

    def __init__(self, client, contract: Contract) -> None:
        self.client, self.contract = client, contract

    def get(self, path: str, **params):
        return self.contract.check("GET", path, self.client.get(path, params))

    def post(self, path: str, body: dict, expect: int):
        response = self.client.post(path, body, format="json")
        assert response.status_code == expect, response.content
        return self.contract.check("POST", path, response)


def _action(legal: list[dict], rng: random.Random) -> dict:
    """A random action from what `legal_actions` offers, bids anywhere in their range."""
    entry = rng.choice(legal)
    kind = entry["type"]
    if kind == "bid" and "min_quantity_by_face" in entry:
        face, low = rng.choice(sorted(entry["min_quantity_by_face"].items()))
        quantity = rng.randint(low, min(entry["max_quantity"], low + 2))
        action = {"type": "bid", "quantity": quantity, "face": int(face)}
        if entry.get("can_show") and rng.random() < 0.5:
            action["show"] = sorted(rng.sample(range(entry["max_show"] + 1), 1))
        return action
    if kind == "bid":
        action = {"type": "bid", "hand": entry["min_hand"]}
        if entry["needs_direction"]:
            action["direction"] = rng.choice(["left", "right"])
        return action
    if kind == "challenge" and entry.get("target_seats"):
        return {"type": "challenge", "target_seat": rng.choice(entry["target_seats"])}
    if kind == "show_reroll":
        return {"type": "show_reroll", "show": [0]}
    if kind == "reroll":
        hold = entry.get("hold_required", sorted(rng.sample(range(5), rng.randint(0, 5))))
        return {"type": "reroll", "hold": hold}
    return {"type": kind}


def _seats(n: int, contract: Contract) -> list[tuple[object, Caller]]:
    users = [PlayerFactory() for _ in range(n)]
    return [(u, Caller(client_for(u), contract)) for u in users]


def _play_to_the_end(match_id: int, callers: list[Caller], rng: random.Random) -> dict:
    url = f"{MATCHES}{match_id}/"
    for _ in range(2000):
        views = [c.get(url) for c in callers]
        if views[0]["status"] != "active":
            return views[0]
        for caller, view in zip(callers, views, strict=True):
            if view["legal_actions"]:
                action = {
                    **_action(view["legal_actions"], rng),
                    "expected_version": view["version"],
                }
                caller.post(f"{url}actions/", action, expect=201)
                break
    raise AssertionError("the match did not end")


def _errors_on_an_active_match(match_id: int, callers: list[Caller]) -> None:
    url = f"{MATCHES}{match_id}/"
    views = [c.get(url) for c in callers]
    mover = next(i for i, v in enumerate(views) if v["legal_actions"])
    waiting = callers[(mover + 1) % len(callers)]
    waiting.post(f"{url}actions/", {"type": "challenge"}, expect=409)  # not_your_turn
    stale = {"type": "challenge", "expected_version": views[mover]["version"] - 1}
    callers[mover].post(f"{url}actions/", stale, expect=409)
    bid = next((e for e in views[mover]["legal_actions"] if "max_quantity" in e), None)
    if bid is not None:  # one more die than are in play is never a legal bid
        face, _ = sorted(bid["min_quantity_by_face"].items())[-1]
        too_many = {"type": "bid", "quantity": bid["max_quantity"] + 1, "face": int(face)}
        body = callers[mover].post(f"{url}actions/", too_many, expect=400)
        assert body["code"] == "invalid_bid"


@pytest.mark.slow
@pytest.mark.parametrize(("ruleset", "players", "options"), PRESETS)
def test_every_response_of_a_played_match_fits_the_typed_schema(
    contract, ruleset, players, options
):
    seated = _seats(players, contract)
    callers = [c for _, c in seated]
    owner = seated[0][0]
    hook = callers[0].post("/api/v1/webhooks/", {"url": "http://127.0.0.1:9/hook"}, expect=201)
    body = {
        "ruleset": ruleset,
        "options": options,
        "max_players": players,
        "turn_seconds": 60,
        "buy_in": 20,
        "ante": 1,
    }
    match = callers[0].post(MATCHES, body, expect=201)
    assert match["family"] == ("poker_dice" if ruleset == "poker_dice" else "common_pool")
    match_id = match["id"]
    for caller in callers[1:]:
        caller.post(f"{MATCHES}{match_id}/join/", {}, expect=200)
    callers[1].post(f"{MATCHES}{match_id}/messages/", {"text": "good luck"}, expect=201)
    _errors_on_an_active_match(match_id, callers)

    final = _play_to_the_end(match_id, callers, random.Random(ruleset))

    assert final["status"] == "finished" and final["round"] is None
    assert final["last_round"]["result"] is not None
    url = f"{MATCHES}{match_id}/"
    callers[0].post(f"{url}actions/", {"type": "challenge"}, expect=409)  # match_not_active
    spectator = Caller(client_for(UserFactory()), contract)
    for caller in [*callers, spectator]:
        caller.get(url)
        rounds = caller.get(f"{url}rounds/")
        assert rounds["family"] == final["family"] and rounds["rounds"]
    events = callers[0].get(f"{url}events/", after=0)["events"]
    seen = {e["type"] for e in events}
    assert {"match_created", "match_started", "round_started", "round_finished"} <= seen
    assert {"dice_committed", "bid", "challenge", "player_out", "match_finished"} <= seen
    assert seen <= set(MATCH_EVENTS)
    callers[0].get(f"{url}messages/")
    for path in (
        "/api/v1/",
        "/api/v1/me/",
        "/api/v1/me/transactions/",
        "/api/v1/rulesets/",
        "/api/v1/bots/",
    ):
        callers[0].get(path)
    callers[0].get(f"/api/v1/players/{owner.username}/")
    callers[0].get("/api/v1/leaderboard/", by="rating", page_size=2)
    callers[0].get("/api/v1/webhooks/")
    deliveries = callers[0].get(f"/api/v1/webhooks/{hook['id']}/deliveries/")
    assert {d["event"] for d in deliveries} == {"match_started", "your_turn", "match_finished"}
    _webhook_bodies_fit_the_documented_webhooks(contract)


def _webhook_bodies_fit_the_documented_webhooks(contract: Contract) -> None:
    for delivery in WebhookDelivery.objects.all():
        documented = contract.document["webhooks"][delivery.event]["post"]
        schema = documented["requestBody"]["content"]["application/json"]["schema"]
        errors = list(contract.validator(schema).iter_errors(delivery.payload))
        assert not errors, [e.message for e in errors]


@pytest.mark.parametrize(("ruleset", "options"), [("classic", {}), ("poker_dice", {})])
def test_lobby_timeouts_forfeits_and_an_abort_fit_the_typed_schema(contract, ruleset, options):
    seated = _seats(4, contract)
    callers = [c for _, c in seated]
    body = {
        "ruleset": ruleset,
        "options": options,
        "max_players": 4,
        "turn_seconds": 60,
        "buy_in": 10,
        "ante": 1,
        "on_timeout": "challenge",
    }
    match_id = callers[0].post(MATCHES, body, expect=201)["id"]
    url = f"{MATCHES}{match_id}/"
    fund_house(10)  # the bot's buy-in, from the house's bankroll
    callers[0].post(f"{url}bots/", {"strategy": "hard"}, expect=201)
    callers[1].post(f"{url}join/", {}, expect=200)
    callers[0].post(f"{url}leave/", {}, expect=200)  # player_left, creator_changed
    callers[2].post(f"{url}join/", {}, expect=200)
    callers[1].post(f"{url}start/", {}, expect=200)

    for policy in ("challenge", "forfeit"):  # turn_timed_out; then round_voided, player_out
        match = Match.objects.get(pk=match_id)
        if match.status != Match.Status.ACTIVE:
            break
        past = timezone.now() - timedelta(seconds=1)
        Match.objects.filter(pk=match_id).update(turn_deadline=past, on_timeout=policy)
        services.turn_timeout(match_id=match_id)
    if Match.objects.get(pk=match_id).status == Match.Status.ACTIVE:
        services.match_abort(match_id=match_id, actor=UserFactory(is_staff=True))

    for caller in callers:
        caller.get(url)
        caller.get(f"{url}rounds/")
    events = callers[1].get(f"{url}events/", after=0)["events"]
    seen = {e["type"] for e in events}
    assert {"player_left", "creator_changed", "turn_timed_out"} <= seen
    assert seen & {"round_voided", "match_aborted"}


def test_the_contract_check_refuses_an_undocumented_field(contract, api_client):
    rulesets = api_client.get("/api/v1/rulesets/").json()
    validator = contract.component("Ruleset")
    assert all(validator.is_valid(r) for r in rulesets)
    assert not validator.is_valid({**rulesets[0], "surprise": 1})
    assert not validator.is_valid({**rulesets[0], "options": {**rulesets[0]["options"], "x": 1}})
    assert not validator.is_valid({**rulesets[0], "family": "checkers"})
