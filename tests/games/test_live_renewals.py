"""A long poll's renewal costs no query for what the process already knows (the caller's
token, that the match is public), and still refuses a revoked token."""

import pytest

from accounts.models import ApiToken
from accounts.services import token_create, token_revoke
from games.models import Match
from tests.factories import ActiveMatchFactory, UserFactory
from tests.games.helpers import MATCHES, seated_players

pytestmark = pytest.mark.django_db


def test_a_renewal_reads_only_the_events_and_a_revoked_token_is_refused(
    client, django_assert_num_queries
):
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    seq = Match.objects.get(pk=match_id).event_seq
    token, raw = token_create(user=players[0][0])
    url = f"{MATCHES}{match_id}/events/?after={seq}&wait=0"
    headers = {"Authorization": f"Bearer {raw}"}
    assert client.get(url, headers=headers).status_code == 200  # token and match checked
    with django_assert_num_queries(1):  # the events: nobody else follows the match here
        renewed = client.get(url, headers=headers)
    assert renewed.status_code == 200
    assert renewed.json() == {"events": [], "last_seq": seq}
    token_revoke(token=token)
    refused = client.get(url, headers=headers)
    assert refused.status_code == 401
    assert refused.json()["code"] == "authentication_failed"


def test_a_private_match_is_checked_on_every_renewal():
    (_, creator), (_, outsider) = seated_players(2)
    body = {"ruleset": "classic", "max_players": 2, "turn_seconds": 60, "private": True}
    created = creator.post(MATCHES, body, format="json")
    assert created.status_code == 201, created.content
    url = f"{MATCHES}{created.json()['id']}/events/?after=0&wait=0"
    for _ in range(2):
        assert creator.get(url).status_code == 200
        assert outsider.get(url).status_code == 404


@pytest.mark.parametrize("deleted", ["the token", "its user"])
def test_a_deleted_token_is_refused_by_a_renewal(client, deleted):
    """Deleted outside the services (the admin's delete, a user's cascade), a token is
    refused by a renewal at once, as by every other endpoint."""
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    seq = Match.objects.get(pk=match_id).event_seq
    user = UserFactory()  # no wallet: a user the ledger protects cannot be deleted
    token, raw = token_create(user=user)
    url = f"{MATCHES}{match_id}/events/?after={seq}&wait=0"
    headers = {"Authorization": f"Bearer {raw}"}
    assert client.get(url, headers=headers).status_code == 200  # now remembered
    if deleted == "the token":
        ApiToken.objects.filter(pk=token.pk).delete()
    else:
        user.delete()  # its tokens go with it (CASCADE)
    assert client.get("/api/v1/me/", headers=headers).status_code == 401
    assert client.get(url, headers=headers).status_code == 401
