"""A tournament's spectators' stream on a real server: the tournament as it is, then a
new one after each change, until it is over."""

import pytest

from accounts.services import token_create
from tests.factories import PlayerFactory
from tests.live_server import StreamReader
from tests.tournaments.helpers import knockout
from tournaments.services import tournament_cancel, tournament_register

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_a_spectator_sees_each_change_and_the_end(live_asgi):
    creator, spectator, entrant = PlayerFactory(), PlayerFactory(), PlayerFactory()
    tournament = knockout(creator, min_entrants=4, max_entrants=8)
    url = f"{live_asgi.url}/api/v1/tournaments/{tournament.pk}/stream/"
    stream = StreamReader(url, token_create(user=spectator)[1])
    assert stream.wait_for(lambda s: len(s.events) == 1)
    assert stream.events[0].type == "tournament" and stream.events[0].data["entrant_count"] == 0
    tournament_register(tournament_id=tournament.pk, user=entrant)
    assert stream.wait_for(lambda s: len(s.events) == 2)
    latest = stream.events[-1].data
    assert latest["entrant_count"] == 1 and stream.events[-1].id == latest["version"]
    assert [s["player"]["username"] for s in latest["standings"]] == [entrant.username]
    tournament_cancel(tournament_id=tournament.pk, actor=creator, reason="test")
    assert stream.wait_for(lambda s: s.ended.is_set())
    assert stream.events[-1].data["status"] == "cancelled"
