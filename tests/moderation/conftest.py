"""Moderators, real matches with chips, and helpers for admin action POSTs."""

import pytest
from django.contrib.auth.models import Group, Permission
from django.urls import reverse

from games import services as games
from games.models import Match
from ledger.selectors import ledger_problems
from moderation.permissions import ensure_moderators_group
from tests.factories import PlayerFactory, UserFactory

CHANGELIST = {
    "match": "admin:games_match_changelist",
    "message": "admin:games_chatmessage_changelist",
    "user": "admin:accounts_user_changelist",
}


def make_moderator(**kwargs):
    user = UserFactory(is_staff=True, **kwargs)
    # Transactional tests flush the data the migration created; put the group back.
    user.groups.add(ensure_moderators_group(Group, Permission))
    return user


def grant(user, codename: str, app_label: str = "moderation"):
    user.user_permissions.add(
        Permission.objects.get(content_type__app_label=app_label, codename=codename)
    )
    # The permission cache lives on the instance: fetch a fresh one.
    return type(user).objects.get(pk=user.pk)


@pytest.fixture
def moderator(db):
    return make_moderator(username="mod")


@pytest.fixture
def mod_client(client, moderator):
    client.force_login(moderator)
    client.user = moderator
    return client


def running_match(
    *,
    buy_in: int = 50,
    ante: int = 1,
    ruleset: str = "milton_bradley",
    n: int = 2,
    options: dict | None = None,
):
    """A started match of `n` players with chips; returns (match, players)."""
    players = [PlayerFactory() for _ in range(n)]
    match = games.match_create(
        user=players[0],
        ruleset=ruleset,
        options=options,
        max_players=n,
        turn_seconds=60,
        buy_in=buy_in,
        ante=ante,
    ).match
    for player in players[1:]:
        games.match_join(match_id=match.pk, user=player)
    match = Match.objects.get(pk=match.pk)
    assert match.status == Match.Status.ACTIVE
    return match, players


def run_action(client, kind: str, action: str, pks, **form):
    """The two POSTs of an admin action with an intermediate form: the changelist POST
    (which shows the form), then the form's POST with `apply`."""
    url = reverse(CHANGELIST[kind])
    data = {"action": action, "_selected_action": [str(pk) for pk in pks]}
    first = client.post(url, data)
    assert first.status_code == 200, first.content[:500]
    assert b'name="reason"' in first.content
    return client.post(url, {**data, "apply": "1", **form})


def assert_ledger_clean():
    assert ledger_problems() == []


def played_match(*, humans: int = 2, bots: tuple[str, ...] = ("cautious",), seed: int = 1, **body):
    """A match played to its end through the API (humans) and the bot service (bots),
    without a Celery worker; returns (match id, the humans)."""
    import random

    from games.services.turns import bot_play
    from tests.conftest import client_for
    from tests.games.helpers import MATCHES, action_from_legal

    rng = random.Random(seed)
    players = [PlayerFactory() for _ in range(humans)]
    clients = {p.pk: client_for(p) for p in players}
    body = {"ruleset": "classic", "turn_seconds": 60, **body}
    body.setdefault("max_players", humans + len(bots))
    created = clients[players[0].pk].post(
        MATCHES, {**body, "bots": [{"strategy": b} for b in bots]}, format="json"
    )
    assert created.status_code == 201, created.content
    match_id = created.json()["id"]
    for player in players[1:]:
        joined = clients[player.pk].post(f"{MATCHES}{match_id}/join/", {}, format="json")
        assert joined.status_code == 200, joined.content
    for _ in range(5000):
        match = Match.objects.get(pk=match_id)
        if match.status != Match.Status.ACTIVE:
            return match_id, players
        seat = match.seats.select_related("player").get(seat=match.turn_seat)
        if seat.player.bot_strategy:
            assert bot_play(match_id=match_id, version=match.version)
            continue
        client = clients[seat.player_id]
        legal = client.get(f"{MATCHES}{match_id}/").json()["legal_actions"]
        action = action_from_legal(legal, rng)
        response = client.post(f"{MATCHES}{match_id}/actions/", action, format="json")
        assert response.status_code == 201, (action, response.content)
    raise AssertionError("the match did not end")
