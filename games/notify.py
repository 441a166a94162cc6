"""The channel that wakes a match's followers (long polls, event streams:
`games.api.streams`) through `core.notifications`. PostgreSQL notifies it by itself, from a
trigger on every INSERT into the match event log (migration 0011), when the
transaction commits; the payload is the match id."""

from core import notifications

CHANNEL = notifications.listen_on("match_events")
