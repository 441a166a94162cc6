"""Kept account events written before every timestamp ended in `Z`: `your_turn`'s
`turn_deadline` and `challenge_received`'s `expires_at` said `+00:00`. Rewritten in place
so a replay (`?after=0`) sends one format; nothing else in their payloads changed."""

from django.db import migrations

FIELDS = ("turn_deadline", "expires_at")


def _rewrite(field: str) -> str:
    return f"""
        UPDATE accounts_accountevent
        SET data = jsonb_set(
            data, '{{{field}}}', to_jsonb(regexp_replace(data->>'{field}', '\\+00:00$', 'Z'))
        )
        WHERE data->>'{field}' LIKE '%+00:00'
    """


class Migration(migrations.Migration):
    dependencies = [("accounts", "0008_webhook_delivery_lease")]

    operations = [
        migrations.RunSQL(_rewrite(field), reverse_sql=migrations.RunSQL.noop) for field in FIELDS
    ]
