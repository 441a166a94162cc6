"""The house's bankroll rule starts here: escrow accounts (chips held in a scope for the
house), and from this migration on nothing mints for the house (ledger_check's bankroll
invariants read when it was applied: rows before it are history, kept as written)."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0007_prize_pools"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="account",
            name="ledger_account_kind_shape",
        ),
        migrations.RemoveConstraint(
            model_name="account",
            name="ledger_account_one_pot_per_kind_per_scope",
        ),
        migrations.AlterField(
            model_name="account",
            name="kind",
            field=models.CharField(
                choices=[
                    ("wallet", "Wallet"),
                    ("stack", "Stack"),
                    ("round_pot", "Round Pot"),
                    ("game_pot", "Game Pot"),
                    ("prize_pool", "Prize Pool"),
                    ("escrow", "Escrow"),
                    ("house", "House"),
                    ("issuer", "Issuer"),
                ],
                max_length=16,
            ),
        ),
        migrations.AddConstraint(
            model_name="account",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        ("kind", "wallet"), ("ref", ""), ("scope", ""), ("user__isnull", False)
                    ),
                    models.Q(
                        ("kind", "stack"),
                        ("user__isnull", False),
                        models.Q(("scope", ""), _negated=True),
                        models.Q(("ref", ""), _negated=True),
                    ),
                    models.Q(
                        ("kind__in", ("round_pot", "game_pot", "prize_pool", "escrow")),
                        ("ref", ""),
                        ("user__isnull", True),
                        models.Q(("scope", ""), _negated=True),
                    ),
                    models.Q(
                        ("kind__in", ("house", "issuer")),
                        ("ref", ""),
                        ("scope", ""),
                        ("user__isnull", True),
                    ),
                    _connector="OR",
                ),
                name="ledger_account_kind_shape",
            ),
        ),
        migrations.AddConstraint(
            model_name="account",
            constraint=models.UniqueConstraint(
                condition=models.Q(("kind__in", ("round_pot", "game_pot", "prize_pool", "escrow"))),
                fields=("scope", "kind"),
                name="ledger_account_one_pot_per_kind_per_scope",
            ),
        ),
    ]
