"""IdempotencyRecord moved to the `core` app; its table stays (state only)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0005_match_opener_seat"),
        ("core", "0001_idempotencyrecord"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="IdempotencyRecord")],
            database_operations=[],
        ),
    ]
