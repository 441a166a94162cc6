"""Webhook secrets encrypted at rest: the column is renamed and every existing secret
sealed under the current WEBHOOK_SECRET_KEYS (reversed: opened back to plaintext)."""

from django.db import migrations, models

from accounts.secret_box import seal, unseal


def _convert(apps, schema_editor, convert) -> None:
    webhook = apps.get_model("accounts", "Webhook")
    for hook in webhook.objects.only("pk", "encrypted_secret").iterator():
        hook.encrypted_secret = convert(hook.encrypted_secret)
        hook.save(update_fields=["encrypted_secret"])


def seal_secrets(apps, schema_editor) -> None:
    _convert(apps, schema_editor, seal)


def unseal_secrets(apps, schema_editor) -> None:
    _convert(apps, schema_editor, unseal)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0006_account_events"),
    ]

    operations = [
        migrations.RenameField(
            model_name="webhook", old_name="secret", new_name="encrypted_secret"
        ),
        migrations.AlterField(
            model_name="webhook", name="encrypted_secret", field=models.TextField()
        ),
        migrations.RunPython(seal_secrets, unseal_secrets),
    ]
