"""Balances are private (issue 33): nobody learns another account's balance by any path
(the chips leaderboard, player search, profiles, a tournament's standings), unless its
owner chose to show it on the chips leaderboard (`show_chips`, off by default)."""

import pytest
from rest_framework.test import APIClient

from tests.conftest import client_for
from tests.factories import PlayerFactory
from tests.problems import assert_problem
from tournaments.services import tournament_create, tournament_register

pytestmark = pytest.mark.django_db

ODD = 4321  # a balance no other account here has: it must appear in no one else's answer


def _chips_board(client) -> list[dict]:
    entries, url = [], "/api/v1/leaderboard/?by=chips&page_size=2"
    while url:
        body = client.get(url).json()
        entries += body["results"]
        url = body["next"]
    return entries


def test_a_fresh_accounts_balance_appears_to_nobody_else():
    fresh = PlayerFactory(chips=ODD)
    others = [PlayerFactory() for _ in range(3)]
    tournament = tournament_create(
        user=others[0],
        name="Open",
        format="sit_and_go",
        ruleset="classic",
        turn_seconds=30,
        table_size=3,
        buy_in=21,
    )
    tournament_register(tournament_id=tournament.pk, user=fresh)
    left = str(ODD - 21)
    for client, signed_in in ((APIClient(), False), (client_for(others[1]), True)):
        assert all(e["id"] != fresh.pk for e in _chips_board(client))
        answers = [
            client.get(f"/api/v1/players/{fresh.username}/"),
            client.get("/api/v1/leaderboard/?by=chips"),
        ]
        if signed_in:  # search and tournaments are for signed-in players
            answers.append(client.get("/api/v1/players/", {"search": fresh.username}))
            answers.append(client.get(f"/api/v1/tournaments/{tournament.pk}/"))
        for answer in answers:
            assert answer.status_code == 200, answer.content
            assert left not in answer.content.decode(), answer.request["PATH_INFO"]
    # Its owner sees it.
    assert client_for(fresh).get("/api/v1/me/").json()["chips"] == ODD - 21


def test_a_player_who_chooses_is_listed_with_their_balance_and_can_stop():
    player, viewer = PlayerFactory(chips=ODD), PlayerFactory()
    client = client_for(player)
    assert client.get("/api/v1/me/").json()["show_chips"] is False
    shown = client.patch("/api/v1/me/", {"show_chips": True}, format="json")
    assert shown.status_code == 200 and shown.json()["show_chips"] is True
    [entry] = _chips_board(client_for(viewer))
    assert (entry["id"], entry["score"]) == (player.pk, ODD)
    hidden = client.patch("/api/v1/me/", {"show_chips": False}, format="json")
    assert hidden.json()["show_chips"] is False
    assert _chips_board(APIClient()) == []


@pytest.mark.parametrize("value", ["yes", 1, None, ["true"]])
def test_show_chips_takes_a_boolean_only(value):
    player = PlayerFactory()
    client = client_for(player)
    answer = client.patch("/api/v1/me/", {"show_chips": value}, format="json")
    assert_problem(answer, 400, "validation_error")
    player.refresh_from_db()
    assert player.show_chips is False
