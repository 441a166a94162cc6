"""Wakes a match's followers (long polls, event streams: `games.streams`) when its
transaction commits, through `core.notifications`."""

from core import notifications

CHANNEL = notifications.listen_on("match_events")


def notify_match(match_id: int) -> None:
    notifications.notify(CHANNEL, match_id)
