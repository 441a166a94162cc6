import random

import pytest
from django.test import override_settings
from django.utils import timezone

from accounts.models import User
from games.models import ChatMessage, Match
from tests.conftest import client_for
from tests.factories import ActiveMatchFactory, PlayerFactory, establish
from tests.games.helpers import MATCHES, play_to_the_end, seated_players

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _seeded_dice(monkeypatch):
    monkeypatch.setattr("games.fairness.SECURE_DICE", random.Random(11))


def _ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [m["id"] for m in response.json()["results"]]


def test_lobby_filters_and_private_matches():
    (_alice, a), (_bob, b) = seated_players(2)
    open_id = a.post(
        MATCHES, {"ruleset": "classic", "max_players": 3, "turn_seconds": 60}, format="json"
    ).json()["id"]
    private_id = a.post(
        MATCHES,
        {"ruleset": "classic", "max_players": 3, "turn_seconds": 60, "private": True},
        format="json",
    ).json()["id"]
    active_id = ActiveMatchFactory(
        players=[user for user, _ in seated_players(2)], ruleset="wild_ones"
    ).pk
    assert _ids(b.get(MATCHES + "?status=open")) == [open_id]
    assert _ids(a.get(MATCHES + "?status=open")) == [private_id, open_id]
    assert _ids(b.get(MATCHES + "?status=active")) == [active_id]
    assert _ids(b.get(MATCHES + "?mine=true")) == []
    assert _ids(a.get(MATCHES + "?mine=true")) == [private_id, open_id]
    bad = b.get(MATCHES + "?status=open&colour=red")
    assert bad.status_code == 400 and bad.json()["errors"][0]["field"] == "colour"


def test_leave_before_start_and_abort_when_everyone_left():
    (alice, a), (_bob, b) = seated_players(2)
    match_id = a.post(
        MATCHES, {"ruleset": "classic", "max_players": 3, "turn_seconds": 60}, format="json"
    ).json()["id"]
    b.post(f"{MATCHES}{match_id}/join/", {}, format="json")
    left = b.post(f"{MATCHES}{match_id}/leave/", format="json")
    assert left.status_code == 200
    assert [s["player"]["username"] for s in left.json()["seats"]] == [alice.username]
    a.post(f"{MATCHES}{match_id}/leave/", format="json")
    assert Match.objects.get(pk=match_id).status == "aborted"


def test_a_creator_who_leaves_hands_the_lobby_to_the_next_player_clockwise():
    (_alice, a), (bob, b), (_carol, c) = seated_players(3)
    match_id = a.post(
        MATCHES, {"ruleset": "classic", "max_players": 4, "turn_seconds": 60}, format="json"
    ).json()["id"]
    b.post(f"{MATCHES}{match_id}/join/", {}, format="json")
    c.post(f"{MATCHES}{match_id}/join/", {}, format="json")
    assert a.post(f"{MATCHES}{match_id}/leave/", format="json").status_code == 200
    match = Match.objects.get(pk=match_id)
    assert match.status == "open" and match.created_by == bob
    changed = match.events.get(type="creator_changed").data
    assert changed["seat"] == 1 and changed["player"]["username"] == bob.username
    assert c.post(f"{MATCHES}{match_id}/start/", format="json").status_code == 403
    started = b.post(f"{MATCHES}{match_id}/start/", format="json")
    assert started.status_code == 200 and started.json()["status"] == "active"


def test_chat_for_players_read_only_for_spectators_hidden_messages_vanish():
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    a = players[0][1]
    spectator = client_for(PlayerFactory())
    url = f"{MATCHES}{match_id}/messages/"
    assert a.post(url, {"text": "good luck"}, format="json").status_code == 201
    rude = a.post(url, {"text": "rude words"}, format="json").json()
    assert a.post(url, {"text": "x" * 501}, format="json").status_code == 400
    assert a.post(url, {"text": ""}, format="json").status_code == 400
    assert spectator.post(url, {"text": "hi"}, format="json").status_code == 403
    texts = [m["text"] for m in spectator.get(url).json()["results"]]
    assert texts == ["rude words", "good luck"]
    ChatMessage.objects.filter(pk=rude["id"]).update(
        hidden_at=timezone.now(), hidden_reason="abuse"
    )
    texts = [m["text"] for m in spectator.get(url).json()["results"]]
    assert texts == ["good luck"]


def test_chat_is_throttled():
    from django.conf import settings

    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    url = f"{MATCHES}{match_id}/messages/"
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "chat": "2/min"}
    with override_settings(
        REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    ):
        for _ in range(2):
            assert players[0][1].post(url, {"text": "hey"}, format="json").status_code == 201
        response = players[0][1].post(url, {"text": "hey"}, format="json")
        assert response.status_code == 429 and response.json()["code"] == "throttled"
    assert ChatMessage.objects.count() == 2


def test_ratings_stats_and_leaderboards_after_a_match():
    # Established players (issue 33): the leaderboard lists no one else, and a result
    # against fresh accounts moves no rating.
    players = [(establish(u), c) for u, c in seated_players(3)]
    games = players[0][0].games_played
    match_id = ActiveMatchFactory(
        players=[user for user, _ in players], ruleset="milton_bradley", buy_in=100, ante=2
    ).pk
    final = play_to_the_end(match_id, players, random.Random(2))
    winner_seat = final["winner_seats"][0]
    winner_id = next(s["player"]["id"] for s in final["seats"] if s["seat"] == winner_seat)
    users = {u.pk: u for u in User.objects.filter(pk__in=[u.pk for u, _ in players])}
    assert all(u.games_played == games + 1 for u in users.values())
    assert users[winner_id].games_won == 1
    assert sum(u.games_won for u in users.values()) == 1
    best = max(users.values(), key=lambda u: u.rating)
    assert best.pk == winner_id
    me = players[0][1].get("/api/v1/me/").json()
    assert me["games_played"] == games + 1
    by_rating = players[0][1].get("/api/v1/leaderboard/?by=rating").json()["results"]
    assert by_rating[0]["id"] == winner_id
    assert {e["id"] for e in by_rating} == set(users)
    # Balances are private: the chips board lists only those who chose to show theirs.
    for _, client in players:
        shown = client.patch("/api/v1/me/", {"show_chips": True}, format="json")
        assert shown.status_code == 200 and shown.json()["show_chips"] is True
    by_chips = players[0][1].get("/api/v1/leaderboard/?by=chips").json()["results"]
    assert by_chips[0]["id"] == winner_id
    assert by_chips[0]["score"] > 1000
    assert {e["id"] for e in by_chips} == set(users)


def test_rounds_history_has_every_finished_round_in_full():
    players = seated_players(2)
    match_id = ActiveMatchFactory(
        players=[user for user, _ in players], ruleset="classic", buy_in=10, ante=1
    ).pk
    final = play_to_the_end(match_id, players, random.Random(4))
    body = players[0][1].get(f"{MATCHES}{match_id}/rounds/").json()
    assert body["current"] is None
    rounds = body["rounds"]
    assert [r["number"] for r in rounds] == list(range(1, len(rounds) + 1))
    for record in rounds:
        assert set(record["dice"]) == set(record["salts"]) == set(record["dice_commitments"])
        assert record["actions"] and record["result"]["type"] in (
            "challenge",
            "exact",
            "pass_challenge",
        )
        kinds = {c["kind"] for c in record["result"]["chips"]}
        assert {"ante_round", "ante_game"} <= kinds
    assert final["status"] == "finished"


def test_rulesets_lists_every_preset_with_all_options(api_client):
    body = api_client.get("/api/v1/rulesets/").json()
    names = {r["name"] for r in body}
    assert names == {"milton_bradley", "wild_ones", "roll_off", "classic", "perudo", "poker_dice"}
    mb = next(r for r in body if r["name"] == "milton_bradley")
    assert mb["options"]["show_and_reroll"] == "after_reroll"
    assert mb["family"] == "common_pool"
    perudo = next(r for r in body if r["name"] == "perudo")
    assert perudo["family"] == "common_pool"
    assert perudo["options"]["ones_bids"] == "perudo" and perudo["options"]["palifico"] is True
    assert perudo["options"]["exact_call"] is True  # calza
