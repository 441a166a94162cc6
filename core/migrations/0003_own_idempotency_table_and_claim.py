"""`core` owns the table of its IdempotencyRecord and the SQL function that claims a key,
both created under `games` names before the model moved here (games 0002 and 0004).

The table and its unique constraint are renamed in place, rows kept; the claim function
is created under core's name (CREATE OR REPLACE, so this runs the same on an existing
database and on a fresh one, where games 0004 has just created the old function) and the
old one dropped, as its body names the old table.

The claim sets `synchronous_commit` off for its own transaction only: the request's work
commits synchronously right after it, and PostgreSQL flushes its log in order, so a claim
can never be lost while the work it guards survives.
"""

from django.db import migrations, models

CLAIM = """
CREATE OR REPLACE FUNCTION {function}(p_user bigint, p_key text, p_hash text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE claimed bigint;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    INSERT INTO {table} (user_id, key, request_hash, created_at)
    VALUES (p_user, p_key, p_hash, now())
    ON CONFLICT (user_id, key) DO NOTHING
    RETURNING id INTO claimed;
    RETURN claimed;
END $$;
DROP FUNCTION IF EXISTS {old_function}(bigint, text, text);
"""

RENAME_CONSTRAINT = "ALTER TABLE core_idempotencyrecord RENAME CONSTRAINT {old} TO {new};"


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0002_heartbeat"),
        # The table (games 0002) and the old claim function (games 0004) exist.
        ("games", "0006_move_idempotencyrecord_to_core"),
    ]

    operations = [
        migrations.AlterModelTable(name="idempotencyrecord", table=None),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    RENAME_CONSTRAINT.format(
                        old="games_idempotency_unique", new="core_idempotency_unique"
                    ),
                    RENAME_CONSTRAINT.format(
                        old="core_idempotency_unique", new="games_idempotency_unique"
                    ),
                ),
            ],
            state_operations=[
                migrations.RemoveConstraint(
                    model_name="idempotencyrecord", name="games_idempotency_unique"
                ),
                migrations.AddConstraint(
                    model_name="idempotencyrecord",
                    constraint=models.UniqueConstraint(
                        fields=("user", "key"), name="core_idempotency_unique"
                    ),
                ),
            ],
        ),
        migrations.RunSQL(
            CLAIM.format(
                function="core_claim_idempotency_key",
                table="core_idempotencyrecord",
                old_function="games_claim_idempotency_key",
            ),
            # Backwards, games 0004's function comes back, on the table's old name (the
            # operations above are reversed after this one).
            CLAIM.format(
                function="games_claim_idempotency_key",
                table="games_idempotencyrecord",
                old_function="core_claim_idempotency_key",
            ),
        ),
    ]
