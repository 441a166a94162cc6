"""Abort by agreement: in round 1 every seat still playing agrees (the server's bots at
once) and the match is aborted with every chip given back, as a moderator's abort gives
it back; refused from round 2; withdrawn, or lapsed when round 1 ends."""

from io import StringIO

import pytest
from django.core.management import call_command

from games.models import Match
from ledger.selectors import wallet_balance
from tests.factories import ActiveMatchFactory, fund_house
from tests.games.helpers import MATCHES, seated_players
from tests.problems import assert_problem

pytestmark = pytest.mark.django_db


def _ledger_ok() -> None:
    out = StringIO()
    call_command("ledger_check", stdout=out, stderr=out)
    assert "Ledger OK" in out.getvalue()


def _post(client, match_id, what, body=None):
    return client.post(f"{MATCHES}{match_id}/{what}/", body or {}, format="json")


def _events(client, match_id) -> list[dict]:
    return client.get(f"{MATCHES}{match_id}/events/").json()["events"]


def test_every_player_agrees_and_every_chip_goes_back():
    players = seated_players(3)
    users = [u for u, _ in players]
    before = [wallet_balance(user=u) for u in users]
    match_id = ActiveMatchFactory(players=users, buy_in=50, ante=2).pk
    assert [wallet_balance(user=u) for u in users] == [b - 50 for b in before]

    first = _post(players[0][1], match_id, "abort").json()
    assert first["status"] == "active"
    assert first["abort_proposal"] == {"round": 1, "agreed_seats": [0]}
    assert_problem(_post(players[0][1], match_id, "abort"), 409, "already_agreed")
    version = players[1][1].get(f"{MATCHES}{match_id}/").json()["version"]
    second = _post(players[1][1], match_id, "abort", {"expected_version": version}).json()
    assert second["abort_proposal"]["agreed_seats"] == [0, 1]
    done = _post(players[2][1], match_id, "abort").json()
    assert done["status"] == "aborted" and done["abort_proposal"] is None
    # Each seat's buy-in came back whole (its antes from the pots, then its stack); no
    # seat is shown playing on at an aborted table.
    refunds = {"0": 50, "1": 50, "2": 50}
    assert done["aborted"] == {"reason": "aborted by agreement", "refunds": refunds}
    assert [s["status"] for s in done["seats"]] == ["aborted"] * 3

    assert [wallet_balance(user=u) for u in users] == before
    events = _events(players[0][1], match_id)
    assert [e["type"] for e in events[-4:]] == [
        "abort_proposed",
        "abort_agreed",
        "abort_agreed",
        "match_aborted",
    ]
    assert events[-1]["data"]["reason"] == "aborted by agreement"
    assert events[-1]["data"]["round"]["aborted"] is True  # round 1 revealed
    assert events[-1]["data"]["refunds"] == refunds
    _ledger_ok()


def test_the_servers_bots_agree_at_once():
    ((ann, client),) = seated_players(1)
    before = wallet_balance(user=ann)
    fund_house(40)  # the house stakes its two bots
    match_id = ActiveMatchFactory(players=[ann], bots=["hard", "expert"], buy_in=20).pk
    body = _post(client, match_id, "abort").json()
    assert body["status"] == "aborted"
    assert wallet_balance(user=ann) == before
    _ledger_ok()


def test_a_withdrawn_proposal_is_over_for_everyone_and_may_be_made_again():
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[u for u, _ in players]).pk
    _post(players[0][1], match_id, "abort")
    withdrawn = _post(players[1][1], match_id, "abort/withdraw").json()
    assert withdrawn["abort_proposal"] is None and withdrawn["status"] == "active"
    assert _events(players[0][1], match_id)[-1]["data"] == {"type": "abort_withdrawn", "seat": 1}
    assert_problem(_post(players[1][1], match_id, "abort/withdraw"), 409, "no_abort_proposal")
    again = _post(players[1][1], match_id, "abort").json()
    assert again["abort_proposal"]["agreed_seats"] == [1]


def test_the_proposal_lapses_with_round_one_and_round_two_refuses():
    players = seated_players(3)
    match_id = ActiveMatchFactory(players=[u for u, _ in players], buy_in=30, ante=1).pk
    _post(players[0][1], match_id, "abort")
    # A resignation voids round 1: round 2 starts among the two left.
    assert _post(players[2][1], match_id, "resign").status_code == 200
    view = players[0][1].get(f"{MATCHES}{match_id}/").json()
    assert view["round"]["number"] == 2 and view["abort_proposal"] is None
    version = view["version"]
    body = assert_problem(_post(players[1][1], match_id, "abort"), 409, "abort_too_late")
    assert "round 1" in body["detail"]
    assert_problem(_post(players[0][1], match_id, "abort/withdraw"), 409, "no_abort_proposal")
    assert_problem(_post(players[2][1], match_id, "abort"), 409, "already_out")
    assert Match.objects.get(pk=match_id).version == version
    _ledger_ok()


def test_refusals_change_nothing():
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[u for u, _ in players]).pk
    outsider = seated_players(1)[0][1]
    version = Match.objects.get(pk=match_id).version
    assert_problem(_post(outsider, match_id, "abort"), 403, "not_a_player")
    assert_problem(
        _post(players[0][1], match_id, "abort", {"expected_version": version + 1}),
        409,
        "stale_version",
    )
    assert_problem(_post(players[0][1], match_id, "abort", {"why": 1}), 400, "validation_error")
    assert_problem(_post(players[0][1], 999999, "abort"), 404, "not_found")
    assert Match.objects.get(pk=match_id).version == version
    assert Match.objects.get(pk=match_id).abort_proposal is None


def test_only_a_running_match_aborts_by_agreement():
    ((_, client),) = seated_players(1)
    lobby = client.post(
        MATCHES, {"ruleset": "classic", "max_players": 3, "turn_seconds": 60}, format="json"
    ).json()
    assert_problem(_post(client, lobby["id"], "abort"), 409, "match_not_active")
    assert Match.objects.get(pk=lobby["id"]).status == Match.Status.OPEN
