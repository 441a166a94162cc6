"""What every match service shares: the result it returns (`MatchChange`), what a lobby
change saves, and how events name a player."""

from dataclasses import dataclass
from typing import Any

from accounts.models import User
from games import engine
from games.models import Match, Seat

# What a lobby change saves on the match row.
LOBBY_FIELDS = ["version", "event_seq", "status", "finished_at", "created_by"]


@dataclass(frozen=True)
class MatchChange:
    """What a service did to a match: the saved row and, when the service loaded them,
    its seats (with `has_webhook`) and engine state, which the response view reuses
    instead of reading them again."""

    match: Match
    seats: list[Seat] | None = None
    state: "engine.State | None" = None


def player_ref(user: User) -> dict[str, Any]:
    return {"id": user.pk, "username": user.username, "is_bot": user.is_bot}
