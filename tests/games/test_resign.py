"""Resigning a running match (RULES.md 1.9): the seat is out at any time, the match goes
on or ends, and no chip is lost or created."""

from io import StringIO

import pytest
from django.core.management import call_command

from games.models import Match, Seat
from ledger.selectors import wallet_balance
from tests.factories import ActiveMatchFactory
from tests.games.helpers import MATCHES, seated_players
from tests.problems import assert_problem

pytestmark = pytest.mark.django_db


def _resign(client, match_id):
    return client.post(f"{MATCHES}{match_id}/resign/", {}, format="json")


def _wallets(players) -> int:
    return sum(wallet_balance(user=u) for u, _ in players)


def _ledger_ok() -> None:
    out = StringIO()
    call_command("ledger_check", stdout=out, stderr=out)
    assert "Ledger OK" in out.getvalue()


def test_resigning_off_turn_voids_the_round_and_play_goes_on_then_ends():
    players = seated_players(3)
    before = _wallets(players)
    match_id = ActiveMatchFactory(
        players=[user for user, _ in players], ruleset="classic", buy_in=50, ante=2
    ).pk
    view = players[0][1].get(f"{MATCHES}{match_id}/").json()
    off_turn = next(i for i in range(3) if i != view["round"]["turn_seat"])
    response = _resign(players[off_turn][1], match_id)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "active"
    assert body["seats"][off_turn]["status"] == "left"
    assert body["round"]["number"] == 2  # round 1 voided, a new one among the two left
    types = [e["type"] for e in players[0][1].get(f"{MATCHES}{match_id}/events/").json()["events"]]
    assert types[-5:-2] == ["player_resigned", "round_voided", "player_out"]
    _ledger_ok()

    # The next resignation leaves one player: the match ends, every stack goes home.
    second = next(i for i in range(3) if i != off_turn)
    winner = next(i for i in range(3) if i not in (off_turn, second))
    finished = _resign(players[second][1], match_id).json()
    assert finished["status"] == "finished" and finished["winner_seats"] == [winner]
    assert _wallets(players) == before
    assert wallet_balance(user=players[winner][0]) > wallet_balance(user=players[second][0])
    _ledger_ok()


def test_resigning_poker_dice_ends_the_match_with_the_resigner_losing():
    players = seated_players(3)
    before = _wallets(players)
    match_id = ActiveMatchFactory(
        players=[user for user, _ in players], ruleset="poker_dice", buy_in=30, ante=1
    ).pk
    body = _resign(players[1][1], match_id).json()
    assert body["status"] == "finished" and body["winner_seats"] == [0, 2]
    assert _wallets(players) == before
    _ledger_ok()


def test_resign_refusals_change_nothing():
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    outsider = seated_players(1)[0][1]
    version = Match.objects.get(pk=match_id).version
    assert_problem(_resign(outsider, match_id), 403, "not_a_player")
    assert_problem(_resign(players[0][1], 999999), 404, "not_found")
    assert Match.objects.get(pk=match_id).version == version
    assert _resign(players[0][1], match_id).status_code == 200
    assert_problem(_resign(players[0][1], match_id), 409, "match_not_active")
    assert set(Seat.objects.filter(match_id=match_id).values_list("status", flat=True)) == {
        "left",
        "playing",
    }


def test_resigning_in_the_lobby_is_refused():
    players = seated_players(2)
    (_, creator) = players[0]
    response = creator.post(
        MATCHES, {"ruleset": "classic", "max_players": 3, "turn_seconds": 60}, format="json"
    )
    assert_problem(_resign(creator, response.json()["id"]), 409, "match_not_active")
