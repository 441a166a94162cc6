"""Webhook secrets at rest: the database holds only a Fernet token, never the secret;
deliveries are still signed with the secret itself; a rotated key list still opens
tokens sealed under an older key; the migration seals existing rows and opens them back."""

import hashlib
import hmac
import io

import pytest
from cryptography.fernet import InvalidToken
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import override_settings

from accounts.models import Webhook, WebhookDelivery
from accounts.secret_box import seal, unseal
from accounts.webhooks import deliver
from core.models import IdempotencyRecord
from tests.accounts.test_webhooks import Receiver
from tests.conftest import client_for
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SECRET = "receiver-secret-0123456789abcdef"


def _stored_rows() -> str:
    """Every webhook row and idempotency record as the database holds them, as text."""
    text = ""
    with connection.cursor() as cursor:
        for table in (Webhook._meta.db_table, IdempotencyRecord._meta.db_table):
            cursor.execute(f"SELECT coalesce(string_agg(t::text, ' '), '') FROM {table} t")
            text += cursor.fetchone()[0]
    return text


def _verify(secret: str, signature: str, body: bytes) -> bool:
    parts = dict(p.split("=", 1) for p in signature.split(","))
    expected = hmac.new(secret.encode(), f"{parts['t']}.".encode() + body, hashlib.sha256)
    return hmac.compare_digest(parts["v1"], expected.hexdigest())


def test_the_database_never_holds_the_secret_yet_deliveries_are_signed_with_it(user):
    with Receiver(204) as receiver:
        response = client_for(user).post(
            "/api/v1/webhooks/",
            {"url": receiver.url(), "secret": SECRET},
            format="json",
            HTTP_IDEMPOTENCY_KEY="hook-secret-1",
        )
        assert response.status_code == 201, response.content
        made = (
            client_for(user)
            .post("/api/v1/webhooks/", {"url": receiver.url()}, format="json")
            .json()["secret"]
        )
        assert IdempotencyRecord.objects.exists()
        stored = _stored_rows()
        assert SECRET not in stored and made not in stored
        hook = Webhook.objects.get(pk=response.json()["id"])
        delivery = WebhookDelivery.objects.create(
            webhook=hook, event="your_turn", payload={"event": "your_turn", "match_id": 3}
        )
        assert deliver(delivery.pk) is True
    _, headers, body = receiver.received[0]
    assert _verify(SECRET, headers["X-Signature"], body)


def test_a_rotated_key_list_opens_old_secrets_and_the_command_reseals_them():
    with override_settings(WEBHOOK_SECRET_KEYS=["old-key-0123456789abcdef0123456789"]):
        hook = Webhook.objects.create(
            user=UserFactory(), url="http://127.0.0.1:9/", encrypted_secret=seal(SECRET)
        )
    rotated = ["new-key-abcdef0123456789abcdef0123", "old-key-0123456789abcdef0123456789"]
    with override_settings(WEBHOOK_SECRET_KEYS=rotated):
        hook.refresh_from_db()
        assert unseal(hook.encrypted_secret) == SECRET
        with Receiver(204) as receiver:
            hook.url = receiver.url()
            hook.save()
            delivery = WebhookDelivery.objects.create(webhook=hook, event="e", payload={"n": 1})
            assert deliver(delivery.pk) is True
        _, headers, body = receiver.received[0]
        assert _verify(SECRET, headers["X-Signature"], body)
        call_command("rotate_webhook_secrets", stdout=io.StringIO())
    hook.refresh_from_db()
    with override_settings(WEBHOOK_SECRET_KEYS=rotated[:1]):
        assert unseal(hook.encrypted_secret) == SECRET
    with override_settings(WEBHOOK_SECRET_KEYS=rotated[1:]), pytest.raises(InvalidToken):
        unseal(hook.encrypted_secret)


def _migrate(*targets: tuple[str, str]):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(list(targets))
    return executor.loader.project_state(list(targets)).apps


@pytest.mark.django_db(transaction=True)
def test_the_migration_seals_existing_secrets_and_reverses():
    try:
        apps = _migrate(("accounts", "0006_account_events"))
        # The user as that migration knew it (today's model has columns added since).
        user = apps.get_model("accounts", "User").objects.create(username="before-0007")
        old = apps.get_model("accounts", "Webhook").objects.create(
            user_id=user.pk, url="http://127.0.0.1:9/", secret=SECRET
        )
        _migrate(("accounts", "0007_webhook_encrypted_secret"))
        sealed = Webhook.objects.get(pk=old.pk).encrypted_secret
        assert SECRET not in sealed and unseal(sealed) == SECRET
        apps = _migrate(("accounts", "0006_account_events"))
        assert apps.get_model("accounts", "Webhook").objects.get(pk=old.pk).secret == SECRET
    finally:
        _migrate(*MigrationExecutor(connection).loader.graph.leaf_nodes())
