"""Fair play (issues 25 and 33): only a match that was played changes ratings (and one
abandoned in its first rounds does not, however it was played), a finished match shows
each seat's place, chips and rating change (or why none), and the suspicion report sees
a pair farming wins even when no chip moves."""

import random

import pytest
from django.conf import settings

from accounts.models import Rating, User
from accounts.rating_scale import shown_rating
from games import services
from games.models import Match, RoundRecord
from ledger.selectors import wallet_balance
from moderation.selectors import suspicion_report
from tests.conftest import client_for
from tests.factories import ActiveMatchFactory, PlayerFactory, establish
from tests.games.helpers import MATCHES, action_from_legal, play_rounds

pytestmark = pytest.mark.django_db

QUICK = {"dice_per_player": 2}
# Enough dice that RATED_MIN_ROUNDS (3) rounds end before the match can.
LONGER = {"dice_per_player": 4}
NEWCOMER = {"value": 1500, "deviation": 167, "provisional": True}


def _resign(client, match_id: int) -> None:
    assert client.post(f"{MATCHES}{match_id}/resign/", {}, format="json").status_code == 200


def _unrated(users) -> bool:
    rows = User.objects.filter(pk__in=[u.pk for u in users])
    return all(u.games_played == 0 and u.rating_mu == 25.0 for u in rows) and not (
        Rating.objects.filter(user__in=users).exists()
    )


def _bid(client, match_id: int) -> None:
    legal = client.get(f"{MATCHES}{match_id}/").json()["legal_actions"]
    bids = [e for e in legal if e["type"] == "bid"]
    action = action_from_legal(bids, random.Random(1))
    assert client.post(f"{MATCHES}{match_id}/actions/", action, format="json").status_code == 201


def test_resigning_after_one_bid_is_unrated():
    """One seat bid and the other resigned: not a round played by everyone."""
    ann, bob = PlayerFactory(), PlayerFactory()
    match = ActiveMatchFactory(players=[ann, bob], options=QUICK)
    seats = {s.player_id: s.seat for s in match.seats.all()}
    turn = Match.objects.get(pk=match.pk).turn_seat
    mover, other = (ann, bob) if seats[ann.pk] == turn else (bob, ann)
    _bid(client_for(mover), match.pk)
    _resign(client_for(other), match.pk)
    body = client_for(ann).get(f"{MATCHES}{match.pk}/").json()
    assert body["status"] == "finished" and body["rated"] is True
    assert body["unrated_reason"] == "abandoned"
    assert _unrated([ann, bob])
    assert all(r["rating_before"] is None and r["rating_after"] is None for r in body["results"])
    assert all(r["rating_weight"] is None for r in body["results"])


def test_a_round_ended_without_every_seat_moving_is_unrated():
    """Three at the table: two finish round 1 between them, the third resigns before
    ever moving; the two play on past RATED_MIN_ROUNDS, then one resigns: nobody's
    rating changes, as the third never moved."""
    people = [establish(PlayerFactory()) for _ in range(3)]
    match = ActiveMatchFactory(players=people, options=LONGER)
    by_seat = {s.seat: s.player for s in match.seats.all()}
    clients = {s: client_for(u) for s, u in by_seat.items()}
    opener = Match.objects.get(pk=match.pk).turn_seat
    _bid(clients[opener], match.pk)
    follower = Match.objects.get(pk=match.pk).turn_seat
    view = clients[follower].get(f"{MATCHES}{match.pk}/").json()
    [challenge] = [e for e in view["legal_actions"] if e["type"] == "challenge"]
    action = action_from_legal([challenge], random.Random(0))
    posted = clients[follower].post(f"{MATCHES}{match.pk}/actions/", action, format="json")
    assert posted.status_code == 201
    assert clients[opener].get(f"{MATCHES}{match.pk}/").json()["last_round"] is not None
    idle = next(s for s in by_seat if s not in (opener, follower))
    _resign(clients[idle], match.pk)
    two = [(by_seat[s], clients[s]) for s in (opener, follower)]
    # One more: the resignation voided the round in play, which ended with no result.
    view = play_rounds(match.pk, two, random.Random(0), rounds=settings.RATED_MIN_ROUNDS + 1)
    assert view["status"] == "active"
    assert RoundRecord.objects.filter(match=match, record__result__isnull=False).count() >= 3
    _resign(clients[opener], match.pk)
    body = clients[idle].get(f"{MATCHES}{match.pk}/").json()
    assert body["status"] == "finished" and body["unrated_reason"] == "not_played"
    rows = User.objects.filter(pk__in=[u.pk for u in people])
    assert all(u.games_played == people[0].games_played and u.rating_mu == 25.0 for u in rows)


def test_a_played_match_shows_places_chips_and_ratings_on_the_shown_scale():
    # Established (issue 33): each counts fully for the other's rating.
    ann, bob = (establish(PlayerFactory(), rulesets=["classic"]) for _ in range(2))
    wallets = {u.pk: wallet_balance(user=u) for u in (ann, bob)}
    match = ActiveMatchFactory(players=[ann, bob], options=LONGER, buy_in=100, ante=5)
    players = [(ann, client_for(ann)), (bob, client_for(bob))]
    running = players[0][1].get(f"{MATCHES}{match.pk}/").json()
    assert running["results"] is None and running["unrated_reason"] is None
    play_rounds(match.pk, players, random.Random(3), rounds=settings.RATED_MIN_ROUNDS)
    _resign(players[0][1], match.pk)

    body = players[1][1].get(f"{MATCHES}{match.pk}/").json()
    assert body["status"] == "finished" and body["unrated_reason"] is None
    seat_of = {s["player"]["id"]: s["seat"] for s in body["seats"]}
    results = {r["seat"]: r for r in body["results"]}
    ann_result, bob_result = results[seat_of[ann.pk]], results[seat_of[bob.pk]]
    assert (bob_result["place"], ann_result["place"]) == (1, 2)
    # Chips: what each wallet gained or lost, the ledger's net of the buy-in.
    for user, result in ((ann, ann_result), (bob, bob_result)):
        assert result["chips"] == wallet_balance(user=user) - wallets[user.pk]
    assert ann_result["chips"] + bob_result["chips"] == 0 and bob_result["chips"] > 0
    assert ann_result["rating_before"] == bob_result["rating_before"] == NEWCOMER
    assert bob_result["rating_after"]["value"] > 1500 > ann_result["rating_after"]["value"]
    assert ann_result["rating_weight"] == bob_result["rating_weight"] == 1.0
    for user, result in ((ann, ann_result), (bob, bob_result)):
        rating = Rating.objects.get(user=user, ruleset="classic")
        assert result["rating_after"] == shown_rating(rating.mu, rating.sigma)

    profile = players[0][1].get(f"/api/v1/players/{bob.username}/").json()
    assert profile["ratings"]["classic"]["shown"] == bob_result["rating_after"]
    assert profile["rating_shown"]["value"] > 1500
    me = players[0][1].get("/api/v1/me/").json()
    assert me["rating_shown"]["value"] < 1500
    board = players[0][1].get("/api/v1/leaderboard/?by=rating&ruleset=classic").json()
    assert [e["rating_shown"] for e in board["results"]] == [
        bob_result["rating_after"],
        ann_result["rating_after"],
    ]
    shown = client_for(bob).patch("/api/v1/me/", {"show_chips": True}, format="json")
    assert shown.status_code == 200
    chips_board = players[0][1].get("/api/v1/leaderboard/?by=chips").json()
    assert [e["id"] for e in chips_board["results"]] == [bob.pk]
    assert all(e["rating_shown"] is None for e in chips_board["results"])


def test_the_shown_scale():
    assert shown_rating(25.0, 25.0 / 3) == NEWCOMER
    assert shown_rating(26.0, 6.0) == {"value": 1520, "deviation": 120, "provisional": False}
    assert shown_rating(20.9, 2.0)["value"] == 1418


def test_six_matches_made_and_resigned_at_once_are_unrated_and_reported():
    """The farm of issue 25: a second account joins and resigns at once, six times, at
    no stake. No rating moves, and the report names the pair all the same."""
    farmer, helper, rival = PlayerFactory(), PlayerFactory(), PlayerFactory()
    for _ in range(6):
        lobby = services.match_create(
            user=farmer, ruleset="classic", max_players=2, turn_seconds=60
        ).match
        services.match_join(match_id=lobby.pk, user=helper)
        services.match_resign(match_id=lobby.pk, user=helper)
        assert Match.objects.get(pk=lobby.pk).status == "finished"
    for loser in (rival, farmer):  # wins both ways: not lopsided
        lobby = services.match_create(
            user=farmer, ruleset="classic", max_players=2, turn_seconds=60
        ).match
        services.match_join(match_id=lobby.pk, user=rival)
        services.match_resign(match_id=lobby.pk, user=loser)
    assert _unrated([farmer, helper, rival])
    board = client_for(rival).get("/api/v1/leaderboard/?by=rating&ruleset=classic").json()
    assert board["results"] == []

    [pair] = suspicion_report().win_farming
    assert (pair.a, pair.b) == (helper, farmer)
    assert (pair.a_to_b, pair.b_to_a, pair.together) == (6, 0, 6)
