"""The tournaments API: create, list, detail, register and unregister, bots, cancel,
the payout table and the stream; bad input answers problem+json and changes nothing."""

import pytest

from accounts.models import AccountEvent
from ledger.selectors import wallet_balance
from tests.conftest import client_for
from tests.factories import PlayerFactory, fund_house
from tests.problems import assert_problem
from tournaments.models import Entry, Tournament
from tournaments.services import tournament_start

pytestmark = pytest.mark.django_db

URL = "/api/v1/tournaments/"
SIT_AND_GO = {
    "name": "Friday sit-and-go",
    "format": "sit_and_go",
    "ruleset": "perudo",
    "turn_seconds": 30,
    "table_size": 3,
    "buy_in": 50,
    "bots_allowed": True,
}


def _create(client, **fields):
    response = client.post(URL, {**SIT_AND_GO, **fields}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_a_sit_and_go_fills_starts_and_seats_its_entrants():
    creator, joiner = PlayerFactory(), PlayerFactory()
    host, guest = client_for(creator), client_for(joiner)
    body = _create(host)
    assert body["status"] == "registering" and body["min_entrants"] == body["max_entrants"] == 3
    tid = body["id"]
    assert host.post(f"{URL}{tid}/register/", {}, format="json").status_code == 200
    assert guest.post(f"{URL}{tid}/register/", {}, format="json").status_code == 200
    fund_house(50)
    detail = host.post(f"{URL}{tid}/bots/", {"strategy": "hard"}, format="json").json()
    assert detail["entrant_count"] == 3
    assert wallet_balance(user=joiner) == 1000 - 50
    payout = host.get(f"{URL}{tid}/payouts/").json()
    assert [p["share_bp"] for p in payout["places"]] == [6500, 3500]
    assert [p["prize"] for p in payout["places"]] == [98, 52]  # 150: 97 + 1 left over, 52
    assert tournament_start(tournament_id=tid)  # the task the filling entry queued
    detail = guest.get(f"{URL}{tid}/").json()
    assert detail["status"] == "running" and detail["pool"] == 150
    (stage,) = detail["stages"]
    assert stage["final"] and len(stage["tables"][0]["players"]) == 3
    match_id = stage["tables"][0]["match_id"]
    events = AccountEvent.objects.filter(user=joiner).values_list("type", "data")
    kinds = [kind for kind, _ in events]
    assert "tournament_starting" in kinds and "tournament_table" in kinds
    table_event = next(data for kind, data in events if kind == "tournament_table")
    assert table_event["match_id"] == match_id and table_event["final"] is True
    assert guest.get(f"/api/v1/matches/{match_id}/").json()["status"] == "active"
    listed = guest.get(URL, {"status": "running", "mine": "true"}).json()["results"]
    assert [t["id"] for t in listed] == [tid]


def test_unregister_refunds_exactly_and_a_second_time_is_refused():
    player = PlayerFactory()
    client = client_for(player)
    tid = _create(client_for(PlayerFactory()))["id"]
    client.post(f"{URL}{tid}/register/", {}, format="json")
    assert wallet_balance(user=player) == 950
    assert client.post(f"{URL}{tid}/unregister/", {}, format="json").status_code == 200
    assert wallet_balance(user=player) == 1000
    assert_problem(client.post(f"{URL}{tid}/unregister/", {}, format="json"), 409, "not_registered")
    # Registering again is a new entry, paid and refundable like the first.
    client.post(f"{URL}{tid}/register/", {}, format="json")
    assert wallet_balance(user=player) == 950
    assert Entry.objects.filter(tournament_id=tid, user=player).count() == 2


def test_refusals_are_problems_and_move_nothing():
    creator, poor, bot_account = PlayerFactory(), PlayerFactory(chips=10), PlayerFactory()
    bot_account.is_bot = True
    bot_account.save()
    host = client_for(creator)
    tid = _create(host, bots_allowed=False)["id"]
    assert_problem(
        client_for(poor).post(f"{URL}{tid}/register/", {}, format="json"),
        409,
        "insufficient_chips",
    )
    assert wallet_balance(user=poor) == 10
    assert_problem(
        client_for(bot_account).post(f"{URL}{tid}/register/", {}, format="json"),
        403,
        "bots_not_allowed",
    )
    assert_problem(
        host.post(f"{URL}{tid}/bots/", {"strategy": "cautious"}, format="json"),
        403,
        "bots_not_allowed",
    )
    for bad in (
        {"table_size": 9},
        {"fee": 5},  # staff only
        {"format": "knockout", "table_size": 4, "advance": 4},
        {"format": "knockout", "table_size": 2},
        {"advance": 1},  # a sit-and-go is one table: none of these three
        {"min_entrants": 2},
        {"max_entrants": 3},
        {"ruleset": "nope"},
        {"options": {"dice_per_player": 99}},
        {"surprise": 1},
    ):
        assert_problem(
            host.post(URL, {**SIT_AND_GO, **bad}, format="json"), 400, "validation_error"
        )
    assert_problem(host.get(f"{URL}999999/"), 404, "not_found")
    assert Tournament.objects.count() == 1
    assert not Entry.objects.exists()


def test_the_creator_cancels_before_the_start_and_everyone_is_refunded():
    creator, entrant = PlayerFactory(), PlayerFactory()
    host = client_for(creator)
    tid = _create(host, table_size=4)["id"]
    client_for(entrant).post(f"{URL}{tid}/register/", {}, format="json")
    assert_problem(
        client_for(entrant).post(f"{URL}{tid}/cancel/", {}, format="json"), 403, "not_creator"
    )
    detail = host.post(f"{URL}{tid}/cancel/", {}, format="json").json()
    assert detail["status"] == "cancelled"
    assert wallet_balance(user=entrant) == 1000
    (data,) = AccountEvent.objects.filter(user=entrant, type="tournament_cancelled").values_list(
        "data", flat=True
    )
    assert data["refund"] == 50
    assert_problem(host.post(f"{URL}{tid}/cancel/", {}, format="json"), 409, "tournament_over")


def test_the_list_filters_by_format_and_status():
    host = client_for(PlayerFactory())
    sit_and_go = _create(host)["id"]
    knockout = _create(
        host, format="knockout", table_size=4, min_entrants=4, max_entrants=16, advance=2
    )["id"]
    for query, ids in [
        ("format=sit_and_go", [sit_and_go]),
        ("format=knockout&status=registering", [knockout]),
        ("status=finished", []),
    ]:
        listed = host.get(f"{URL}?{query}")  # `format` is a filter here, not a renderer
        assert listed.status_code == 200, listed.content
        assert [t["id"] for t in listed.json()["results"]] == ids, query
    assert_problem(host.get(f"{URL}?format=json"), 400, "validation_error")


def test_a_tournament_table_cannot_be_aborted_by_agreement_with_the_bots():
    """An aborted table places its players by seed: agreeing with the house's bots (who
    agree at once) would hand out places and prizes unplayed."""
    player = PlayerFactory()
    host = client_for(player)
    tid = _create(host)["id"]
    host.post(f"{URL}{tid}/register/", {}, format="json")
    fund_house(100)
    for _ in range(2):
        host.post(f"{URL}{tid}/bots/", {"strategy": "hard"}, format="json")
    assert tournament_start(tournament_id=tid)
    match_id = host.get(f"{URL}{tid}/").json()["stages"][0]["tables"][0]["match_id"]
    before = host.get(f"/api/v1/matches/{match_id}/").json()
    refused = host.post(f"/api/v1/matches/{match_id}/abort/", {}, format="json")
    assert_problem(refused, 409, "abort_not_agreeable")
    after = host.get(f"/api/v1/matches/{match_id}/").json()
    assert after["status"] == "active" and after["version"] == before["version"]
    assert after["abort_proposal"] is None
