"""The channel that wakes a tournament's spectators (`tournaments.api.stream`) through
`core.notifications`: every change of a tournament notifies it with the tournament's
id when its transaction commits."""

from core import notifications

CHANNEL = notifications.listen_on("tournaments")
