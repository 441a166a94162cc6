"""Ratings per preset: each finished match moves its players' rating in its own preset
(and the overall one); profiles list them; the leaderboard ranks by one preset; the
migration rates the matches finished before it, per preset, from their placements."""

import random

import pytest
from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from accounts.models import Rating, User
from tests.factories import ActiveMatchFactory, UserFactory, establish
from tests.games.helpers import MATCHES, play_rounds, seated_players
from tests.problems import assert_problem

pytestmark = pytest.mark.django_db


def _resign(client, match_id) -> None:
    assert client.post(f"{MATCHES}{match_id}/resign/", {}, format="json").status_code == 200


def test_each_preset_keeps_its_own_rating(api_client):
    # Established (issue 33): each counts fully for the others, and the leaderboard lists
    # them; carol plays classic only.
    both, classic_only = ["classic", "poker_dice"], ["classic"]
    players = [
        (establish(u, rulesets=rulesets), c)
        for (u, c), rulesets in zip(seated_players(3), [both, both, classic_only], strict=True)
    ]
    (alice, a), (bob, b), (carol, _) = players
    games = alice.games_played
    rounds = settings.RATED_MIN_ROUNDS  # resigned sooner, a match is abandoned: unrated
    classic = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    play_rounds(classic, players, random.Random(0), rounds=rounds)
    _resign(a, classic)
    _resign(b, classic)  # carol wins, then bob, alice last
    poker = ActiveMatchFactory(
        players=[user for user, _ in players[:2]], ruleset="poker_dice", options={"lives": 5}
    ).pk
    play_rounds(poker, players[:2], random.Random(0), rounds=rounds)
    _resign(b, poker)  # alice wins

    profile = api_client.get(f"/api/v1/players/{alice.username}/").json()
    assert set(profile["ratings"]) == {"classic", "poker_dice"}
    assert profile["ratings"]["classic"]["games"] == games + 1
    assert profile["ratings"]["poker_dice"]["rating"] > profile["ratings"]["classic"]["rating"]
    assert set(profile["ratings"]["classic"]) == {"rating", "mu", "sigma", "games", "shown"}
    assert profile["games_played"] == games + 2  # the overall count goes on

    by_classic = api_client.get("/api/v1/leaderboard/?by=rating&ruleset=classic").json()
    assert [p["id"] for p in by_classic["results"]] == [carol.pk, bob.pk, alice.pk]
    by_poker = api_client.get("/api/v1/leaderboard/?by=rating&ruleset=poker_dice").json()
    assert [p["id"] for p in by_poker["results"]] == [alice.pk, bob.pk]  # carol: unrated
    assert by_poker["next"] is None and len(by_poker["results"]) == 2
    rating = profile["ratings"]["poker_dice"]["rating"]
    assert by_poker["results"][0]["score"] == pytest.approx(rating, abs=0.005)


def test_a_preset_without_by_rating_or_an_unknown_one_is_refused(api_client):
    assert_problem(api_client.get("/api/v1/leaderboard/?ruleset=classic"), 400, "validation_error")
    assert_problem(
        api_client.get("/api/v1/leaderboard/?by=rating&ruleset=chess"), 400, "validation_error"
    )


def _migrate(targets):
    """Migrates to `targets` and answers the app registry as it stands there."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def _finished(apps, ruleset: str, players: list, placements: dict[str, int]):
    """A finished match written through the models as they stood at the migration
    (later migrations add columns the current models would write)."""
    Match = apps.get_model("games", "Match")
    Seat = apps.get_model("games", "Seat")
    MatchEvent = apps.get_model("games", "MatchEvent")
    match = Match.objects.create(
        status="finished",
        ruleset=ruleset,
        family="common_pool",
        rules={},
        created_by_id=players[0].pk,
        max_players=len(players),
        turn_seconds=60,
    )
    for number, player in enumerate(players):
        Seat.objects.create(match=match, seat=number, player_id=player.pk)
    MatchEvent.objects.create(
        match=match, seq=1, type="match_finished", data={"placements": placements}
    )
    return match


@pytest.mark.django_db(transaction=True)
def test_the_migration_rates_finished_matches_per_preset():
    apps = _migrate([("games", "0007_match_action")])
    try:
        a, b, c = UserFactory(), UserFactory(), UserFactory()
        _finished(apps, "classic", [a, b], {"0": 1, "1": 2})
        _finished(apps, "classic", [a, b, c], {"0": 1, "1": 3, "2": 2})
        _finished(apps, "poker_dice", [b, c], {"0": 1, "1": 2})
        apps.get_model("games", "Match").objects.create(  # a running match is not rated
            status="active",
            ruleset="classic",
            family="common_pool",
            rules={},
            created_by_id=c.pk,
            max_players=2,
            turn_seconds=60,
        )
        before = {u.pk: u.rating_mu for u in User.objects.all()}
        _migrate([("games", "0008_ratings_from_history")])
        rows = {(r.user_id, r.ruleset): r for r in Rating.objects.all()}
        assert set(rows) == {
            (a.pk, "classic"),
            (b.pk, "classic"),
            (c.pk, "classic"),
            (b.pk, "poker_dice"),
            (c.pk, "poker_dice"),
        }
        assert rows[(a.pk, "classic")].games == 2 and rows[(c.pk, "classic")].games == 1
        assert rows[(a.pk, "classic")].rating > rows[(c.pk, "classic")].rating
        assert rows[(c.pk, "classic")].rating > rows[(b.pk, "classic")].rating
        assert rows[(b.pk, "poker_dice")].rating > rows[(c.pk, "poker_dice")].rating
        assert {u.pk: u.rating_mu for u in User.objects.all()} == before
        _migrate([("games", "0007_match_action")])
        assert not Rating.objects.exists()
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
