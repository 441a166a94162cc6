"""Rematches: offered once a match is finished, accepted by everyone seated (the
server's bots at once); the new match has the same rules, settings and stakes, the
seats one on, buy-ins from the wallets; declined, expired or refused clearly."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from accounts.models import AccountEvent, WebhookDelivery
from games import services
from games.models import Match
from ledger.selectors import wallet_balance
from tests.conftest import client_for
from tests.factories import ActiveMatchFactory, FinishedMatchFactory, PlayerFactory
from tests.games.helpers import MATCHES
from tests.problems import assert_problem

pytestmark = pytest.mark.django_db

QUICK = {"dice_per_player": 2}


def _ledger_ok() -> None:
    out = StringIO()
    call_command("ledger_check", stdout=out, stderr=out)
    assert "Ledger OK" in out.getvalue()


def _post(client, match_id, what="rematch", body=None):
    return client.post(f"{MATCHES}{match_id}/{what}/", body or {}, format="json")


def test_everyone_accepts_and_the_rematch_starts_with_the_seats_rotated():
    people = [PlayerFactory() for _ in range(3)]
    clients = [client_for(u) for u in people]
    old = FinishedMatchFactory(
        players=people, options=QUICK, buy_in=30, ante=1, rated=False, on_timeout="challenge"
    )
    wallets = [wallet_balance(user=u) for u in people]
    for client in clients:
        hook = client.post("/api/v1/webhooks/", {"url": "http://127.0.0.1:9/hook"}, format="json")
        assert hook.status_code == 201, hook.content

    offered = _post(clients[1], old.pk).json()
    assert offered["rematch_offer"]["accepted_seats"] == [1] and offered["rematch_id"] is None
    for person in (people[0], people[2]):
        event = AccountEvent.objects.filter(user=person, type="rematch_offered").get()
        assert event.data["match_id"] == old.pk and event.data["offered_by"] == people[1].username
    assert not AccountEvent.objects.filter(user=people[1], type="rematch_offered").exists()
    assert WebhookDelivery.objects.filter(event="rematch_offered").count() == 2

    assert_problem(_post(clients[1], old.pk), 409, "already_agreed")
    assert _post(clients[0], old.pk).json()["rematch_offer"]["accepted_seats"] == [0, 1]
    done = _post(clients[2], old.pk).json()
    assert done["rematch_offer"] is None and done["rematch_id"] is not None

    new = Match.objects.get(pk=done["rematch_id"])
    assert new.status == Match.Status.ACTIVE
    assert (new.ruleset, new.rules, new.buy_in, new.ante, new.rated, new.on_timeout) == (
        old.ruleset,
        old.rules,
        30,
        1,
        False,
        "challenge",
    )
    seated = list(new.seats.order_by("seat").values_list("player_id", flat=True))
    assert seated == [people[2].pk, people[0].pk, people[1].pk]  # seat s sits at s + 1
    assert [wallet_balance(user=u) for u in people] == [w - 30 for w in wallets]
    events = [e["type"] for e in clients[0].get(f"{MATCHES}{old.pk}/events/").json()["events"]]
    assert events[-4:] == [
        "rematch_offered",
        "rematch_accepted",
        "rematch_accepted",
        "rematch_started",
    ]
    assert_problem(_post(clients[0], old.pk), 409, "rematch_started")
    assert_problem(_post(clients[0], old.pk, "rematch/decline"), 409, "rematch_started")
    _ledger_ok()


def test_the_servers_bots_accept_at_once():
    ann = PlayerFactory()
    old = FinishedMatchFactory(players=[ann], bots=["cautious"], options=QUICK)
    done = _post(client_for(ann), old.pk).json()
    new = Match.objects.get(pk=done["rematch_id"])
    assert new.status == Match.Status.ACTIVE
    assert list(new.seats.order_by("seat").values_list("player_id", flat=True)) == [
        s.player_id for s in reversed(list(old.seats.order_by("seat")))
    ]


def test_a_declined_or_expired_offer_is_over():
    ann, bob = PlayerFactory(), PlayerFactory()
    old = FinishedMatchFactory(players=[ann, bob], options=QUICK)
    a, b = client_for(ann), client_for(bob)
    assert_problem(_post(b, old.pk, "rematch/decline"), 409, "no_rematch_offer")
    _post(a, old.pk)
    declined = _post(b, old.pk, "rematch/decline").json()
    assert declined["rematch_offer"] is None
    events = a.get(f"{MATCHES}{old.pk}/events/").json()["events"]
    assert events[-1]["data"] == {"type": "rematch_declined", "seat": 1}

    _post(a, old.pk)
    past = timezone.now() - timedelta(seconds=1)
    Match.objects.filter(pk=old.pk).update(
        rematch_offer={"seats": [0], "expires_at": past.isoformat().replace("+00:00", "Z")}
    )
    assert a.get(f"{MATCHES}{old.pk}/").json()["rematch_offer"] is None
    assert_problem(_post(b, old.pk, "rematch/decline"), 409, "no_rematch_offer")
    renewed = _post(b, old.pk).json()  # an expired offer: this is a new one
    assert renewed["rematch_offer"]["accepted_seats"] == [1] and renewed["rematch_id"] is None


def _spend_all_but(user, keep: int) -> None:
    """`user` puts everything but `keep` chips into another table that starts at once."""
    buy_in = wallet_balance(user=user) - keep
    lobby = services.match_create(
        user=user, ruleset="classic", max_players=2, turn_seconds=60, buy_in=buy_in
    ).match
    services.match_join(match_id=lobby.pk, user=PlayerFactory())
    assert wallet_balance(user=user) == keep


def test_a_short_wallet_refuses_its_own_acceptance_telling_its_own_balance_only():
    ann, bob = PlayerFactory(), PlayerFactory()
    old = FinishedMatchFactory(players=[ann, bob], options=QUICK, buy_in=100)
    _post(client_for(ann), old.pk)
    _spend_all_but(bob, 10)
    matches = Match.objects.count()
    body = assert_problem(_post(client_for(bob), old.pk), 409, "insufficient_chips")
    assert "You have 10 chips" in body["detail"]
    assert Match.objects.get(pk=old.pk).rematch_offer["seats"] == [0]
    assert Match.objects.count() == matches
    _ledger_ok()


def test_an_offerer_who_spent_their_chips_since_is_not_named():
    ann, bob = PlayerFactory(), PlayerFactory()
    old = FinishedMatchFactory(players=[ann, bob], options=QUICK, buy_in=100)
    _post(client_for(ann), old.pk)
    _spend_all_but(ann, 7)
    matches = Match.objects.count()
    body = assert_problem(_post(client_for(bob), old.pk), 409, "insufficient_chips")
    assert body["detail"] == "A player can no longer cover the buy-in; the rematch did not start."
    assert Match.objects.get(pk=old.pk).rematch_id is None
    assert Match.objects.count() == matches
    _ledger_ok()


def test_rematch_refusals():
    ann, bob = PlayerFactory(), PlayerFactory()
    running = ActiveMatchFactory(players=[ann, bob])
    a = client_for(ann)
    assert_problem(_post(a, running.pk), 409, "match_not_finished")
    old = FinishedMatchFactory(players=[ann, bob], options=QUICK)
    outsider = client_for(PlayerFactory())
    assert_problem(_post(outsider, old.pk), 403, "not_a_player")
    assert_problem(_post(a, old.pk, body={"expected_version": 0}), 409, "stale_version")
    assert_problem(_post(a, old.pk, body={"seats": [1]}), 400, "validation_error")
    assert Match.objects.get(pk=old.pk).rematch_offer is None


def test_a_player_banned_since_accepting_stops_the_rematch_naming_nobody():
    from moderation.services import player_ban
    from tests.moderation.conftest import make_moderator

    people = [PlayerFactory() for _ in range(2)]
    clients = [client_for(u) for u in people]
    old = FinishedMatchFactory(players=people, options=QUICK, buy_in=30, ante=1)
    wallets = [wallet_balance(user=u) for u in people]
    assert _post(clients[1], old.pk).status_code == 200
    player_ban(user_id=people[1].pk, moderator=make_moderator(), reason="cheating")

    refused = assert_problem(_post(clients[0], old.pk), 409, "player_unavailable")
    assert people[1].username not in refused["detail"]
    assert Match.objects.count() == 1  # no new table
    assert [wallet_balance(user=u) for u in people] == wallets
    _ledger_ok()
