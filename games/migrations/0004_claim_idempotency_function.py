"""Claiming an Idempotency-Key in one round trip, committed without waiting for the disk.

`synchronous_commit` off is set for the claim's own transaction only: the request's work
commits synchronously right after it, and PostgreSQL flushes its log in order, so a claim
can never be lost while the work it guards survives.

Core migration 0003 replaces it by `core_claim_idempotency_key`, on core's own table.
"""

from django.db import migrations

CREATE = """
CREATE FUNCTION games_claim_idempotency_key(p_user bigint, p_key text, p_hash text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE claimed bigint;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    INSERT INTO games_idempotencyrecord (user_id, key, request_hash, created_at)
    VALUES (p_user, p_key, p_hash, now())
    ON CONFLICT (user_id, key) DO NOTHING
    RETURNING id INTO claimed;
    RETURN claimed;
END $$;
"""

DROP = "DROP FUNCTION games_claim_idempotency_key(bigint, text, text);"


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0003_match_max_timeouts_match_on_timeout_and_more"),
    ]

    operations = [migrations.RunSQL(CREATE, DROP)]
