"""Rated or casual: a casual match (or one nobody played a move in) changes no rating;
challenges and seeks carry the choice into their match, and quick play pairs only seeks
of the same kind."""

import pytest

from accounts.models import Rating, User
from games import services
from games.models import Match
from tests.factories import FinishedMatchFactory, PlayerFactory, establish
from tests.games.helpers import MATCHES, seated_players

pytestmark = pytest.mark.django_db

QUICK = {"dice_per_player": 2}


def _ratings(users) -> list[tuple]:
    rows = User.objects.filter(pk__in=[u.pk for u in users]).order_by("pk")
    return [(u.rating_mu, u.rating_sigma, u.games_played, u.games_won) for u in rows]


def test_a_rated_match_changes_ratings_and_a_casual_one_does_not():
    # Established players: against fresh accounts a rating would not move (issue 33).
    people = [establish(PlayerFactory(), rulesets=["classic"]) for _ in range(2)]
    games = people[0].games_played
    start = _ratings(people)
    rated = FinishedMatchFactory(players=people, options=QUICK)
    assert rated.rated is True and rated.unrated_reason == ""
    rows = User.objects.filter(pk__in=[u.pk for u in people])
    assert all(u.games_played == games + 1 for u in rows)
    assert Rating.objects.filter(user__in=people, ruleset="classic").count() == 2
    before = _ratings(people)
    assert [r[:2] for r in before] != [r[:2] for r in start]  # mu and sigma moved

    casual = FinishedMatchFactory(players=people, options=QUICK, rated=False, seed=1)
    assert casual.status == Match.Status.FINISHED and casual.rated is False
    assert casual.unrated_reason == Match.Unrated.CASUAL
    assert _ratings(people) == before
    assert all(r.games == games + 1 for r in Rating.objects.filter(user__in=people))


def test_a_match_everyone_resigned_at_once_changes_no_rating():
    """Issue 25's farm: matches made and resigned before any move count for nothing."""
    ann, bob = PlayerFactory(), PlayerFactory()
    before = _ratings([ann, bob])
    for _ in range(3):
        match = FinishedMatchFactory(players=[ann, bob], resigned=[ann])
        assert match.status == Match.Status.FINISHED and match.winner_seats == [1]
    assert _ratings([ann, bob]) == before
    assert not Rating.objects.filter(user__in=[ann, bob]).exists()


def test_rated_is_an_input_and_shown_on_the_match():
    ((_, client),) = seated_players(1)
    body = {"ruleset": "classic", "max_players": 2, "turn_seconds": 60, "rated": False}
    created = client.post(MATCHES, body, format="json").json()
    assert created["rated"] is False
    listed = client.get(MATCHES, {"mine": "true"}).json()["results"][0]
    assert listed["rated"] is False
    default = client.post(MATCHES, {**body, "rated": None}, format="json")
    assert default.status_code == 400  # a boolean or nothing
    body.pop("rated")
    assert client.post(MATCHES, body, format="json").json()["rated"] is True


def test_a_casual_challenge_starts_a_casual_match_with_its_options():
    (_, client), (bob, bob_client) = seated_players(2)
    terms = {
        "ruleset": "perudo",
        "options": {"dice_per_player": 3},
        "turn_seconds": 60,
        "usernames": [bob.username],
    }
    challenge = client.post("/api/v1/challenges/", {**terms, "rated": False}, format="json")
    assert challenge.status_code == 201 and challenge.json()["rated"] is False
    accepted = bob_client.post(
        f"/api/v1/challenges/{challenge.json()['id']}/accept/", {}, format="json"
    )
    assert accepted.status_code == 200, accepted.content
    match = Match.objects.get(pk=accepted.json()["match_id"])
    assert match.rated is False and match.rules["dice_per_player"] == 3


def test_quick_play_pairs_only_seeks_of_the_same_kind():
    ann, bob, cat = PlayerFactory(), PlayerFactory(), PlayerFactory()
    seek = {"ruleset": "classic", "players": 2, "turn_seconds": 60}
    casual = services.seek_create(user=ann, rated=False, **seek)
    rated = services.seek_create(user=bob, **seek)
    assert casual.status == rated.status == "waiting"
    paired = services.seek_create(user=cat, rated=False, **seek)
    assert paired.status == "matched" and paired.match.rated is False
    assert set(paired.match.seats.values_list("player_id", flat=True)) == {ann.pk, cat.pk}
    (_, client) = seated_players(1)[0]
    shown = client.post("/api/v1/seeks/", {**seek, "rated": False}, format="json").json()
    assert shown["rated"] is False and shown["status"] == "waiting"
