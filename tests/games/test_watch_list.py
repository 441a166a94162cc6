"""Finding a match to watch or join: the lobby's filters (preset, table size, stakes),
private tables never listed to strangers, and bad filters refused."""

import pytest

from games.models import Match
from tests.conftest import client_for
from tests.factories import ActiveMatchFactory, LobbyFactory, PlayerFactory
from tests.games.helpers import MATCHES
from tests.problems import assert_invalid_field

pytestmark = pytest.mark.django_db


def _ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [m["id"] for m in response.json()["results"]]


def test_live_public_matches_are_filtered_by_preset_table_size_and_stakes():
    classic_free = ActiveMatchFactory(ruleset="classic").pk
    classic_staked = ActiveMatchFactory(ruleset="classic", buy_in=100, ante=2).pk
    perudo_three = ActiveMatchFactory(ruleset="perudo", players=3, buy_in=500, ante=5).pk
    poker = ActiveMatchFactory(ruleset="poker_dice", buy_in=40, ante=1).pk
    private = ActiveMatchFactory(ruleset="classic", private=True).pk
    lobby = LobbyFactory(ruleset="classic").pk  # open, not in play
    watcher = client_for(PlayerFactory())
    live = MATCHES + "?status=active"

    assert _ids(watcher.get(live)) == [poker, perudo_three, classic_staked, classic_free]
    assert _ids(watcher.get(live + "&ruleset=classic")) == [classic_staked, classic_free]
    assert _ids(watcher.get(live + "&players=3")) == [perudo_three]
    assert _ids(watcher.get(live + "&players=2&ruleset=perudo")) == []
    assert _ids(watcher.get(live + "&buy_in_max=0")) == [classic_free]
    assert _ids(watcher.get(live + "&buy_in_min=40&buy_in_max=100")) == [poker, classic_staked]
    assert _ids(watcher.get(live + "&buy_in_min=101")) == [perudo_three]
    # The same filters narrow the open lobbies, and a private table stays with its players.
    assert _ids(watcher.get(MATCHES + "?status=open&ruleset=classic")) == [lobby]
    assert private not in _ids(watcher.get(MATCHES + "?ruleset=classic&page_size=100"))
    seated = client_for(Match.objects.get(pk=private).created_by)
    assert _ids(seated.get(live + "&ruleset=classic&mine=true")) == [private]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("ruleset=chess", "ruleset"),
        ("players=1", "players"),
        ("players=9", "players"),
        ("players=two", "players"),
        ("buy_in_min=-5", "buy_in_min"),
        ("buy_in_max=1e3", "buy_in_max"),
        ("buy_in_min=50&buy_in_max=10", "buy_in_max"),
        ("ruleset=classic&ruleset=perudo", "ruleset"),
    ],
)
def test_a_bad_filter_is_a_problem_naming_it(query, field):
    client = client_for(PlayerFactory())
    assert_invalid_field(client.get(f"{MATCHES}?{query}"), field)
