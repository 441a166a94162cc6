"""Direct challenges: the challenged hear of it, the match starts when all accept, one
refusal or the challenger's cancel ends it, unanswered it expires; refusals change
nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.events import account_events_after
from accounts.models import Webhook, WebhookDelivery
from accounts.secret_box import seal
from games.models import Challenge, Match
from games.services.challenges import challenges_expire
from ledger.selectors import wallet_balance
from tests.factories import ActiveMatchFactory, PlayerFactory
from tests.games.helpers import seated_players
from tests.problems import assert_problem

pytestmark = pytest.mark.django_db
CHALLENGES = "/api/v1/challenges/"


def _challenge(client, usernames, **body):
    body = {"usernames": usernames, "ruleset": "classic", "turn_seconds": 60, **body}
    return client.post(CHALLENGES, body, format="json")


def _hook(user) -> None:
    Webhook.objects.create(
        user=user, url="http://127.0.0.1:9/hook", encrypted_secret=seal("s" * 20)
    )


def test_the_match_starts_when_every_challenged_player_accepts():
    players = seated_players(3)
    (alice, a), (bob, b), (carol, c) = players
    _hook(bob)
    created = _challenge(a, [bob.username, carol.username.upper()], buy_in=40, ante=1)
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["status"] == "pending" and body["match_id"] is None
    assert [p["player"]["id"] for p in body["players"]] == [bob.pk, carol.pk]
    delivery = WebhookDelivery.objects.get(webhook__user=bob, event="challenge_received")
    assert delivery.payload["challenge_id"] == body["id"]
    assert delivery.payload["challenger"] == alice.username
    assert delivery.payload["challenger_is_bot"] is False  # a person's challenge
    # The same event on the account stream, for a page that follows it.
    received = [e for e in account_events_after(user_id=bob.pk, after=0)]
    assert [(e["type"], e["challenge_id"]) for e in received] == [
        ("challenge_received", body["id"])
    ]

    incoming = b.get(f"{CHALLENGES}?direction=incoming").json()["results"]
    assert [x["id"] for x in incoming] == [body["id"]]
    assert a.get(f"{CHALLENGES}?direction=incoming").json()["results"] == []
    assert [x["id"] for x in a.get(CHALLENGES).json()["results"]] == [body["id"]]

    first = b.post(f"{CHALLENGES}{body['id']}/accept/", {}, format="json").json()
    assert first["status"] == "pending" and first["players"][0]["response"] == "accepted"
    last = c.post(f"{CHALLENGES}{body['id']}/accept/", {}, format="json").json()
    assert last["status"] == "accepted"
    match = Match.objects.get(pk=last["match_id"])
    assert match.status == "active" and match.buy_in == 40 and match.ruleset == "classic"
    seats = {s.player_id: s.seat for s in match.seats.all()}
    assert seats == {alice.pk: 0, bob.pk: 1, carol.pk: 2}
    assert wallet_balance(user=alice) == wallet_balance(user=bob)
    started = WebhookDelivery.objects.get(webhook__user=bob, event="challenge_accepted")
    assert started.payload["match_id"] == match.pk
    heard = {e["type"]: e for e in account_events_after(user_id=alice.pk, after=0)}
    accepted = heard["challenge_accepted"]
    assert accepted == {
        "id": accepted["id"],
        "type": "challenge_accepted",
        "created_at": accepted["created_at"],
        "challenge_id": body["id"],
        "match_id": match.pk,
    }
    assert accepted["created_at"].endswith("Z")
    assert_problem(
        c.post(f"{CHALLENGES}{body['id']}/accept/", {}, format="json"), 409, "challenge_closed"
    )


def test_a_challenge_with_options_starts_a_match_with_them():
    (_alice, a), (_bob, b) = seated_players(2)
    options = {"ones_wild": True, "dice_per_player": 3}
    created = _challenge(a, [_bob.username], options=options)
    assert created.status_code == 201, created.content
    assert created.json()["options"] == options
    accepted = b.post(f"{CHALLENGES}{created.json()['id']}/accept/", {}, format="json")
    assert accepted.status_code == 200, accepted.content
    match = Match.objects.get(pk=accepted.json()["match_id"])
    assert match.status == "active"
    assert {k: match.rules[k] for k in options} == options


def test_accepting_never_tells_another_players_balance():
    """The challenger spent their chips after challenging: the last acceptance cannot
    start the match, and its refusal does not say what the challenger has left."""
    (alice, a), (bob, b) = seated_players(2)
    challenge = _challenge(a, [bob.username], buy_in=wallet_balance(user=alice) - 10).json()
    ActiveMatchFactory(players=[alice, PlayerFactory()], buy_in=wallet_balance(user=alice) - 5)
    response = b.post(f"{CHALLENGES}{challenge['id']}/accept/", {}, format="json")
    body = assert_problem(response, 409, "insufficient_chips")
    assert not any(ch.isdigit() for ch in body["detail"]), body["detail"]  # no balance
    assert Challenge.objects.get(pk=challenge["id"]).status == "pending"
    assert not Match.objects.filter(seats__player=bob).exists()


def test_one_decline_ends_it_and_the_challenger_may_cancel():
    (alice, a), (bob, b), (carol, c) = seated_players(3)
    _hook(alice)
    declined = _challenge(a, [bob.username, carol.username]).json()
    body = c.post(f"{CHALLENGES}{declined['id']}/decline/", {}, format="json").json()
    assert body["status"] == "declined"
    assert WebhookDelivery.objects.filter(webhook__user=alice, event="challenge_declined").exists()
    assert_problem(
        b.post(f"{CHALLENGES}{declined['id']}/accept/", {}, format="json"), 409, "challenge_closed"
    )

    cancelled = _challenge(a, [bob.username]).json()
    assert_problem(
        b.post(f"{CHALLENGES}{cancelled['id']}/cancel/", {}, format="json"), 403, "not_challenger"
    )
    assert_problem(
        a.post(f"{CHALLENGES}{cancelled['id']}/accept/", {}, format="json"), 403, "not_challenged"
    )
    assert (
        a.post(f"{CHALLENGES}{cancelled['id']}/cancel/", {}, format="json").json()["status"]
        == "cancelled"
    )
    assert not Match.objects.exists()


def test_unanswered_challenges_expire():
    (_alice, a), (bob, b) = seated_players(2)
    body = _challenge(a, [bob.username]).json()
    Challenge.objects.filter(pk=body["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert_problem(
        b.post(f"{CHALLENGES}{body['id']}/accept/", {}, format="json"), 409, "challenge_expired"
    )
    assert challenges_expire() == 1
    assert Challenge.objects.get(pk=body["id"]).status == "expired"
    assert challenges_expire() == 0


def test_bad_challenges_are_refused_and_change_nothing():
    (alice, a), (bob, _b) = seated_players(2)
    outsider = seated_players(1)[0][1]
    assert_problem(_challenge(a, [alice.username]), 400, "validation_error")
    assert_problem(_challenge(a, ["nobody-at-all"]), 400, "validation_error")
    assert_problem(_challenge(a, [bob.username, bob.username.upper()]), 400, "validation_error")
    assert_problem(_challenge(a, []), 400, "validation_error")
    assert_problem(_challenge(a, [bob.username], buy_in=10**6), 409, "insufficient_chips")
    assert_problem(_challenge(a, [bob.username], options={"lives": 0}), 400, "validation_error")
    assert not Challenge.objects.exists()
    body = _challenge(a, [bob.username]).json()
    assert_problem(
        outsider.post(f"{CHALLENGES}{body['id']}/accept/", {}, format="json"), 404, "not_found"
    )
    assert_problem(outsider.get(f"{CHALLENGES}?direction=sideways"), 400, "validation_error")


def test_an_idempotent_accept_replays():
    (_alice, a), (bob, b) = seated_players(2)
    body = _challenge(a, [bob.username]).json()
    url = f"{CHALLENGES}{body['id']}/accept/"
    first = b.post(url, {}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    again = b.post(url, {}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert first.status_code == again.status_code == 200
    assert again["Idempotent-Replayed"] == "true"
    assert Match.objects.count() == 1
