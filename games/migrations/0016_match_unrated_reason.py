"""Why a finished match moved no rating (`Match.unrated_reason`): a column with no
default to write, so adding it is quick; the backfill of the opponents met is 0017."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0015_seat_rating_change"),
        ("accounts", "0012_show_chips_rated_opponents"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="unrated_reason",
            field=models.CharField(
                blank=True,
                choices=[
                    ("casual", "a casual match"),
                    ("not_played", "no round ended with every seat having moved"),
                    ("abandoned", "ended by a forfeit before RATED_MIN_ROUNDS rounds ended"),
                ],
                max_length=12,
            ),
        ),
    ]
