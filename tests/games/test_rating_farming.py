"""Ratings that cannot be farmed (issue 33): results against fresh or provisional
accounts move an established rating little or nothing, a match abandoned in its first
rounds is unrated (and says so), and the leaderboard by rating lists only players who
met enough distinct established opponents."""

import random

import pytest
from django.conf import settings
from openskill.models import PlackettLuce
from rest_framework.test import APIClient

from accounts.models import RatedOpponent, Rating, User
from accounts.rating_scale import shown_rating
from games.ratings import apply_match_result
from tests.conftest import client_for
from tests.factories import ActiveMatchFactory, PlayerFactory, UserFactory, establish
from tests.games.helpers import MATCHES, farm_a_fresh_account, play_rounds

pytestmark = pytest.mark.django_db

LONGER = {"dice_per_player": 4}


def _shown(user: User) -> int:
    user.refresh_from_db()
    return shown_rating(user.rating_mu, user.rating_sigma)["value"]


def _board(client, **params) -> list[int]:
    body = client.get("/api/v1/leaderboard/", {"by": "rating", **params}).json()
    return [e["id"] for e in body["results"]]


def test_ten_fresh_accounts_farmed_through_the_api_gain_nothing_and_list_nowhere():
    genuine = [establish(PlayerFactory(), rulesets=["classic"]) for _ in range(3)]
    farmer = PlayerFactory()
    farmer_client = client_for(farmer)
    start = _shown(farmer)
    rng = random.Random(5)
    for _ in range(10):
        victim, match_id = farm_a_fresh_account(farmer_client, rng)
        body = farmer_client.get(f"{MATCHES}{match_id}/").json()
        assert body["status"] == "finished" and body["rated"] is True
        assert body["unrated_reason"] == "abandoned"
        assert all(r["rating_after"] is None for r in body["results"])
        assert _shown(victim) == 1500
        assert [s["player"]["id"] for s in body["seats"] if s["seat"] in body["winner_seats"]] == [
            farmer.pk
        ]
    assert _shown(farmer) - start <= 100
    assert _shown(farmer) == start  # not a point, in fact
    for client in (APIClient(), farmer_client):
        for params in ({}, {"ruleset": "classic"}):
            listed = _board(client, **params)
            assert farmer.pk not in listed
            assert set(listed) == {u.pk for u in genuine}


def test_played_out_wins_over_fresh_accounts_move_an_established_rating_not_at_all():
    """Past the abandoned rule (RATED_MIN_ROUNDS rounds, then the resign): rated, but a
    fresh account weighs nothing, while the fresh account learns from the established
    player in full."""
    farmer = establish(PlayerFactory(), rulesets=["classic"])
    farmer_client = client_for(farmer)
    before = (farmer.rating_mu, farmer.rating_sigma)
    for seed in range(3):
        victim = PlayerFactory()
        victim_client = client_for(victim)
        match = ActiveMatchFactory(players=[farmer, victim], options=LONGER)
        players = [(farmer, farmer_client), (victim, victim_client)]
        play_rounds(match.pk, players, random.Random(seed), rounds=settings.RATED_MIN_ROUNDS)
        resigned = victim_client.post(f"{MATCHES}{match.pk}/resign/", {}, format="json")
        assert resigned.status_code == 200
        body = farmer_client.get(f"{MATCHES}{match.pk}/").json()
        assert body["unrated_reason"] is None
        weights = {
            s["player"]["id"]: r["rating_weight"]
            for s, r in zip(body["seats"], body["results"], strict=True)
        }
        assert weights == {farmer.pk: 0.0, victim.pk: 1.0}
        victim.refresh_from_db()
        assert victim.rating_mu < 25.0 and victim.games_played == 1
    farmer.refresh_from_db()
    assert (farmer.rating_mu, farmer.rating_sigma) == before
    assert farmer.games_played == settings.RATING_ESTABLISHED_GAMES + 3
    # Three fresh accounts are no established opponents: no new ones were recorded.
    met = RatedOpponent.objects.filter(user=farmer, ruleset=RatedOpponent.OVERALL).count()
    assert met == settings.LEADERBOARD_MIN_OPPONENTS


def test_a_multi_seat_change_is_scaled_by_the_mean_weight_of_the_opponents():
    """Four at a table: the winner faces one established opponent, one with half the
    games and a fresh account: (1 + 0.5 + 0) / 3 of OpenSkill's change."""
    games = settings.RATING_ESTABLISHED_GAMES
    winner, rival, half, fresh = (
        UserFactory(games_played=n) for n in (games, games, games // 2, 0)
    )
    half_weight = (games // 2) / games
    places = [(winner, 1), (rival, 2), (half, 3), (fresh, 4)]
    model = PlackettLuce()
    full = model.rate([[model.rating()] for _ in places], ranks=[1, 2, 3, 4])
    changes = apply_match_result(players_by_place=places, winners={winner.pk}, ruleset="classic")

    expected = {
        winner: (1 + half_weight + 0) / 3,
        rival: (1 + half_weight + 0) / 3,
        half: (1 + 1 + 0) / 3,
        fresh: (1 + 1 + half_weight) / 3,
    }
    for (user, _), (rated,) in zip(places, full, strict=True):
        user.refresh_from_db()
        weight = expected[user]
        assert user.rating_mu == pytest.approx(25.0 + weight * (rated.mu - 25.0))
        assert user.rating_sigma == pytest.approx(25.0 / 3 + weight * (rated.sigma - 25.0 / 3))
    # The preset's rating: every player is new in it, so nobody's rating there moves.
    assert {c["weight"] for c in changes.values()} == {0.0}
    assert all(c["after"] == c["before"] for c in changes.values())
    assert Rating.objects.filter(ruleset="classic", games=1).count() == 4
    # Only established opponents are recorded, overall and in no preset.
    met = set(RatedOpponent.objects.values_list("user_id", "opponent_id", "ruleset"))
    assert met == {
        (u.pk, o.pk, "") for u in (winner, rival, half, fresh) for o in (winner, rival) if u != o
    }


def test_the_leaderboard_needs_enough_games_and_distinct_established_opponents(api_client):
    need = settings.LEADERBOARD_MIN_OPPONENTS
    short = establish(PlayerFactory(), opponents=need - 1)
    enough = establish(PlayerFactory())
    few_games = establish(PlayerFactory())
    User.objects.filter(pk=few_games.pk).update(games_played=settings.LEADERBOARD_MIN_GAMES - 1)
    assert _board(api_client) == [enough.pk]

    # Beating an established opponent met before, twice, adds no opponent; a new one does.
    again = RatedOpponent.objects.filter(user=short)[0].opponent
    new = UserFactory(games_played=settings.RATING_ESTABLISHED_GAMES)
    for opponent in (again, again, new):
        assert short.pk not in _board(api_client)
        short.refresh_from_db()
        apply_match_result(
            players_by_place=[(short, 1), (opponent, 2)], winners={short.pk}, ruleset="classic"
        )
    assert set(_board(api_client)) == {short.pk, enough.pk}
    # The preset's board counts the preset's own record: nobody has one there yet.
    assert _board(api_client, ruleset="classic") == []
