"""accounts 0009 and 0010: account events kept from before every timestamp ended in `Z`,
and `your_turn` events (and their pending webhook bodies) from before they named the
seat's stream, are brought up to date in place, so a replay or a resend fits the event
as it is now."""

import json

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from accounts.events import account_events_after
from accounts.models import Webhook, WebhookDelivery
from accounts.secret_box import seal
from tests.factories import UserFactory

BEFORE = [("accounts", "0008_webhook_delivery_lease")]


@pytest.mark.django_db(transaction=True)
def test_old_timestamps_end_in_z_after_the_migration():
    executor = MigrationExecutor(connection)
    # Back to every app's latest: going back unapplies other apps' migrations that depend
    # on accounts' later ones, and the tests after this one need them.
    latest = executor.loader.graph.leaf_nodes()
    user = UserFactory()
    old = {
        "your_turn": {
            "match_id": 1,
            "seat": 0,
            "version": 3,
            "turn_deadline": "2026-11-25T17:25:11.359713+00:00",
        },
        "challenge_received": {"challenge_id": 2, "expires_at": "2026-11-25T18:00:00+00:00"},
        "match_started": {"match_id": 1, "seat": 0},
    }
    try:
        MigrationExecutor(connection).migrate(BEFORE)
        hook = Webhook.objects.create(
            user=user, url="http://127.0.0.1:9/hook", encrypted_secret=seal("s" * 20)
        )
        pending = WebhookDelivery.objects.create(
            webhook=hook, event="your_turn", payload={"event": "your_turn", **old["your_turn"]}
        )
        with connection.cursor() as cursor:
            for seq, (kind, data) in enumerate(old.items(), start=1):
                cursor.execute(
                    "INSERT INTO accounts_accountevent (user_id, seq, type, data, created_at)"
                    " VALUES (%s, %s, %s, %s, now())",
                    [user.pk, seq, kind, json.dumps(data)],
                )
    finally:
        MigrationExecutor(connection).migrate(latest)
    events = {e["type"]: e for e in account_events_after(user_id=user.pk, after=0)}
    assert events["your_turn"]["turn_deadline"] == "2026-11-25T17:25:11.359713Z"
    assert events["challenge_received"]["expires_at"] == "2026-11-25T18:00:00Z"
    assert events["match_started"]["match_id"] == 1  # untouched
    assert events["your_turn"]["seat_stream"] == "/api/v1/matches/1/seat-stream/"
    pending.refresh_from_db()
    assert pending.payload["seat_stream"] == "/api/v1/matches/1/seat-stream/"
