"""The established opponents every player met in the rated matches before
(`accounts.RatedOpponent`), which the leaderboard by rating counts. History does not say
who was established when met: an opponent counts who has RATING_ESTABLISHED_GAMES (10 by
default) rated matches in the scope now. The server's bots count for nobody."""

from django.conf import settings
from django.db import migrations

_MET = """
INSERT INTO accounts_ratedopponent (user_id, opponent_id, ruleset)
SELECT DISTINCT me.player_id, them.player_id, {scope}
FROM games_seat me
JOIN games_seat them ON them.match_id = me.match_id AND them.player_id <> me.player_id
JOIN games_match m ON m.id = me.match_id
JOIN accounts_user o ON o.id = them.player_id AND o.bot_strategy = ''
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
    # Its own migration, so its own transaction: the reads of the seats do not hold the
    # lock that adding 0016's column takes.
    dependencies = [
        ("games", "0016_match_unrated_reason"),
    ]

    operations = [
        migrations.RunPython(_backfill, migrations.RunPython.noop),
    ]
