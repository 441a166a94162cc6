"""A private match one has no seat at does not exist for them: every operation on it
answers 404 as a read does, never a 403 that gives it away."""

import pytest

from games.models import ChatMessage, Match
from tests.conftest import client_for
from tests.factories import PlayerFactory
from tests.games.helpers import MATCHES

pytestmark = pytest.mark.django_db


def _private_match(*, start: bool) -> tuple[int, str, int]:
    """(id, invite code, version) of a private match: a lobby, or a match in play."""
    creator, friend = PlayerFactory(), PlayerFactory()
    body = {"ruleset": "classic", "max_players": 2, "turn_seconds": 60, "private": True}
    created = client_for(creator).post(MATCHES, body, format="json").json()
    if start:
        joined = client_for(friend).post(
            f"{MATCHES}{created['id']}/join/",
            {"invite_code": created["invite_code"]},
            format="json",
        )
        assert joined.status_code == 200, joined.content
    match = Match.objects.get(pk=created["id"])
    return match.pk, created["invite_code"], match.version


OPERATIONS = [
    ("get", "", None),
    ("get", "events/", None),
    ("get", "rounds/", None),
    ("get", "messages/", None),
    ("post", "messages/", {"text": "hello?"}),
    ("post", "join/", {}),
    ("post", "join/", {"invite_code": "guessed-wrong"}),
    ("post", "leave/", {}),
    ("post", "bots/", {"strategy": "random"}),
    ("post", "start/", {}),
    ("post", "actions/", {"type": "challenge"}),
    ("post", "actions/", {"type": "bid", "quantity": 1, "face": 2}),
    ("post", "resign/", {}),
    ("get", "export/", None),
]


def _call(client, method: str, url: str, body: dict | None):
    return client.get(url) if method == "get" else client.post(url, body, format="json")


@pytest.mark.parametrize("start", [False, True], ids=["lobby", "in-play"])
@pytest.mark.parametrize(("method", "path", "body"), OPERATIONS)
def test_a_stranger_gets_404_for_every_operation(start, method, path, body):
    match_id, _, version = _private_match(start=start)
    stranger = client_for(PlayerFactory())
    url = f"{MATCHES}{match_id}/{path}"
    response = _call(stranger, method, url, body)
    assert response.status_code == 404, response.content
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["detail"] == f"No match {match_id}."
    # Exactly what a match that never existed answers.
    missing = _call(stranger, method, f"{MATCHES}999999/{path}", body)
    assert missing.status_code == 404
    assert {k: v for k, v in missing.json().items() if k != "detail"} == {
        k: v for k, v in response.json().items() if k != "detail"
    }
    assert Match.objects.get(pk=match_id).version == version
    assert not ChatMessage.objects.filter(match_id=match_id).exists()


def test_the_invite_code_still_lets_a_stranger_join():
    match_id, code, _ = _private_match(start=False)
    response = client_for(PlayerFactory()).post(
        f"{MATCHES}{match_id}/join/", {"invite_code": code}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "active"
