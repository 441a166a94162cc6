"""A player's match history, and the export of a finished match that the engine's
replay rebuilds exactly."""

import random

import pytest
from liarsdice.verify import verify

from games import engine
from games.models import Match
from tests.api.contract import Contract
from tests.factories import ActiveMatchFactory
from tests.games.helpers import MATCHES, play_to_the_end, seated_players
from tests.problems import assert_problem

pytestmark = pytest.mark.django_db


def _export(client, match_id):
    return client.get(f"{MATCHES}{match_id}/export/")


@pytest.mark.parametrize(
    ("ruleset", "options"),
    [
        ("milton_bradley", {}),
        ("roll_off", {}),
        ("classic", {"exact_call": True, "pass_call": True}),
        ("poker_dice", {}),
    ],
)
def test_the_export_replays_to_the_final_state(ruleset, options):
    players = seated_players(3)
    match_id = ActiveMatchFactory(
        players=[user for user, _ in players], ruleset=ruleset, options=options, buy_in=20, ante=1
    ).pk
    play_to_the_end(match_id, players, random.Random(ruleset))
    response = _export(players[1][1], match_id)
    assert response.status_code == 200, response.content
    document = players[1][1].get("/api/v1/schema/?format=json").json()
    body = Contract(document).check("GET", f"{MATCHES}{match_id}/export/", response)
    replay = body["replay"]
    rebuilt = engine.replay(
        engine.rules_from_dict(body["rules"]),
        replay["n_players"],
        replay["rolls"],
        replay["actions"],
        creator_seat=replay["creator_seat"],
        opener_seat=replay["opener_seat"],
    )
    match = Match.objects.get(pk=match_id)
    assert rebuilt.to_json() == match.state
    assert body["result"]["winner_seats"] == match.winner_seats
    assert len(body["rounds"]) >= 1 and all("salts" in r for r in body["rounds"])
    assert [s["player"]["username"] for s in body["seats"]] == [
        s.player.username for s in match.seats.order_by("seat")
    ]
    assert sum(c["amount"] for c in body["chips"] if c["kind"] == "buy_in") == 60
    assert verify(body).ok, str(verify(body))


def test_a_resigned_match_exports_the_forfeit_too():
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    players[0][1].post(f"{MATCHES}{match_id}/resign/", {}, format="json")
    body = _export(players[0][1], match_id).json()
    assert body["replay"]["actions"][-1] == {"type": "forfeit", "seat": 0}
    replay = body["replay"]
    rebuilt = engine.replay(
        engine.rules_from_dict(body["rules"]),
        replay["n_players"],
        replay["rolls"],
        replay["actions"],
        creator_seat=replay["creator_seat"],
        opener_seat=replay["opener_seat"],
    )
    assert rebuilt.winners == (1,)


def test_only_finished_matches_export():
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    assert_problem(_export(players[0][1], match_id), 409, "match_not_finished")
    assert_problem(_export(players[0][1], 999999), 404, "not_found")


def test_a_private_match_is_hidden_from_outsiders():
    players = seated_players(2)
    (_, creator), (_, other) = players
    created = creator.post(
        MATCHES,
        {"ruleset": "classic", "max_players": 2, "turn_seconds": 60, "private": True},
        format="json",
    ).json()
    other.post(
        f"{MATCHES}{created['id']}/join/", {"invite_code": created["invite_code"]}, format="json"
    )
    creator.post(f"{MATCHES}{created['id']}/resign/", {}, format="json")
    outsider = seated_players(1)[0][1]
    assert_problem(_export(outsider, created["id"]), 404, "not_found")
    assert _export(other, created["id"]).status_code == 200
    username = players[0][0].username
    assert outsider.get(f"/api/v1/players/{username}/matches/").json()["results"] == []
    mine = other.get(f"/api/v1/players/{username}/matches/").json()["results"]
    assert [m["id"] for m in mine] == [created["id"]]


def test_history_filters_by_ruleset_and_status(api_client):
    players = seated_players(2)
    classic = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    poker = ActiveMatchFactory(players=[user for user, _ in players], ruleset="poker_dice").pk
    players[0][1].post(f"{MATCHES}{poker}/resign/", {}, format="json")
    url = f"/api/v1/players/{players[0][0].username}/matches/"
    assert [m["id"] for m in api_client.get(url).json()["results"]] == [poker, classic]
    assert [m["id"] for m in api_client.get(f"{url}?ruleset=classic").json()["results"]] == [
        classic
    ]
    assert [m["id"] for m in api_client.get(f"{url}?status=finished").json()["results"]] == [poker]
    assert_problem(api_client.get(f"{url}?ruleset=chess"), 400, "validation_error")
    assert_problem(api_client.get("/api/v1/players/nobody-here/matches/"), 404, "not_found")
