"""Finding whom to challenge: players by the start of their name, public fields only,
for token holders, rate-limited."""

import pytest

from tests.conftest import client_for
from tests.factories import PlayerFactory
from tests.problems import assert_invalid_field, assert_problem

pytestmark = pytest.mark.django_db

PLAYERS = "/api/v1/players/"


def test_player_search_finds_names_by_their_start_in_any_case_public_fields_only():
    for name in ("Annabel", "ann", "anna", "annex-bot", "bob", "Zann"):
        PlayerFactory(username=name)
    PlayerFactory(username="annulled", is_active=False)  # a banned or closed account
    client = client_for(PlayerFactory(username="searcher"))

    found = client.get(PLAYERS + "?search=ANN")
    assert found.status_code == 200, found.content
    # The exact name first, then the shortest; never an inactive account.
    assert [p["username"] for p in found.json()] == ["ann", "anna", "Annabel", "annex-bot"]
    assert all(set(p) == {"id", "username", "is_bot"} for p in found.json())
    assert [p["username"] for p in client.get(PLAYERS + "?search=ann&limit=2").json()] == [
        "ann",
        "anna",
    ]
    assert client.get(PLAYERS + "?search=nobody").json() == []


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("", "search"),
        ("search=", "search"),
        ("search=a%20b", "search"),
        ("search=" + "a" * 151, "search"),
        ("search=ann&limit=0", "limit"),
        ("search=ann&limit=21", "limit"),
        ("search=ann&sort=name", "sort"),
    ],
)
def test_a_bad_player_search_is_a_problem_naming_it(query, field):
    client = client_for(PlayerFactory())
    assert_invalid_field(client.get(f"{PLAYERS}?{query}"), field)


def test_player_search_needs_a_token_and_is_throttled(api_client):
    from django.conf import settings
    from django.test import override_settings

    assert_problem(api_client.get(PLAYERS + "?search=ann"), 401, "not_authenticated")
    client = client_for(PlayerFactory())
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "player_search": "3/min"}
    with override_settings(
        REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    ):
        for _ in range(3):
            assert client.get(PLAYERS + "?search=ann").status_code == 200
        refused = assert_problem(client.get(PLAYERS + "?search=ann"), 429, "throttled")
        assert refused["status"] == 429
