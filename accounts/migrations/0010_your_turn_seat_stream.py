"""Kept `your_turn` events, and webhook deliveries of them not yet sent, from before the
event named the seat's stream: given their `seat_stream`, so a replay or a resend fits
the event as it is now."""

from django.db import migrations

SEAT_STREAM = "jsonb_build_object('seat_stream', '/api/v1/matches/' || ({column}->>'match_id') || '/seat-stream/')"

EVENTS = f"""
    UPDATE accounts_accountevent SET data = data || {SEAT_STREAM.format(column="data")}
    WHERE type = 'your_turn' AND NOT data ? 'seat_stream'
"""
DELIVERIES = f"""
    UPDATE accounts_webhookdelivery SET payload = payload || {SEAT_STREAM.format(column="payload")}
    WHERE event = 'your_turn' AND status = 'pending' AND NOT payload ? 'seat_stream'
"""


class Migration(migrations.Migration):
    dependencies = [("accounts", "0009_account_event_timestamps_in_z")]

    operations = [
        migrations.RunSQL(EVENTS, reverse_sql=migrations.RunSQL.noop),
        migrations.RunSQL(DELIVERIES, reverse_sql=migrations.RunSQL.noop),
    ]
