"""Issue 33: why a finished match moved no rating, and the established opponents every
player met in the rated matches before (`accounts.RatedOpponent`), which the leaderboard
by rating counts. History does not say who was established when met: an opponent counts
who has RATING_ESTABLISHED_GAMES (10 by default) rated matches in the scope now."""

from django.conf import settings
from django.db import migrations, models

_MET = """
INSERT INTO accounts_ratedopponent (user_id, opponent_id, ruleset)
SELECT DISTINCT me.player_id, them.player_id, {scope}
FROM games_seat me
JOIN games_seat them ON them.match_id = me.match_id AND them.player_id <> me.player_id
JOIN games_match m ON m.id = me.match_id
{established}
WHERE m.status = 'finished' AND me.rating_change IS NOT NULL
ON CONFLICT DO NOTHING
"""


def _backfill(apps, schema_editor):
    games = settings.RATING_ESTABLISHED_GAMES
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            _MET.format(
                scope="''",
                established="JOIN accounts_user u ON u.id = them.player_id"
                " AND u.games_played >= %s",
            ),
            [games],
        )
        cursor.execute(
            _MET.format(
                scope="m.ruleset",
                established="JOIN accounts_rating r ON r.user_id = them.player_id"
                " AND r.ruleset = m.ruleset AND r.games >= %s",
            ),
            [games],
        )


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
        migrations.RunPython(_backfill, migrations.RunPython.noop),
    ]
