"""Appending events to a match's log wakes its followers from inside PostgreSQL.

A statement trigger on `games_matchevent` sends `pg_notify('match_events', match_id)`
once per match the INSERT appended to (delivered when the transaction commits, like the
`SELECT pg_notify` the service sent before), so every move saves a round trip, and no
code path can append events without waking the long polls and streams that follow them.
"""

from django.db import migrations

CREATE = """
CREATE FUNCTION games_notify_match_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('match_events', appended.match_id::text)
    FROM (SELECT DISTINCT match_id FROM appended_events) AS appended;
    RETURN NULL;
END $$;
CREATE TRIGGER games_matchevent_notify
    AFTER INSERT ON games_matchevent
    REFERENCING NEW TABLE AS appended_events
    FOR EACH STATEMENT EXECUTE FUNCTION games_notify_match_events();
"""

DROP = """
DROP TRIGGER games_matchevent_notify ON games_matchevent;
DROP FUNCTION games_notify_match_events();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0010_seat_played_as_bot"),
    ]

    operations = [migrations.RunSQL(CREATE, DROP)]
