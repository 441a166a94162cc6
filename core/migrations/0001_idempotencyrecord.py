"""IdempotencyRecord, moved here from `games` with its table (games_idempotencyrecord),
which `games` 0002 created: this migration changes the project's state, not the database."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="IdempotencyRecord",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("key", models.CharField(max_length=255)),
                        ("request_hash", models.CharField(max_length=64)),
                        (
                            "response_status",
                            models.PositiveSmallIntegerField(blank=True, null=True),
                        ),
                        ("response_body", models.JSONField(blank=True, null=True)),
                        (
                            "created_at",
                            models.DateTimeField(db_index=True, default=django.utils.timezone.now),
                        ),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_idempotencyrecord",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("user", "key"), name="games_idempotency_unique"
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
