"""What every match service shares: the result it returns (`MatchChange`), the match and
its seats as a service loads them."""

from dataclasses import dataclass
from typing import Any

from accounts.models import User, Webhook
from core.prebuilt import (
    PrebuiltSelect,
    PrebuiltUpdate,
    select_together,
    table,
)
from games import engine
from games.errors import MatchNotFound
from games.models import Match, Seat
from games.selectors import match_visible
from games.services.locks import MATCH_FOR_UPDATE

# What play changes on the match row (the rest is fixed at creation).
PLAY_FIELDS = [
    "status",
    "version",
    "event_seq",
    "state",
    "secrets",
    "turn_seat",
    "turn_deadline",
    "winner_seats",
    "started_at",
    "finished_at",
    "opener_seat",
]

# Every move writes the match row this way (core.prebuilt), with its other writes.
PLAY_UPDATE = PrebuiltUpdate(Match, PLAY_FIELDS)

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


# Every move reads them: their SQL is built once (core.prebuilt).
_SEATS_FOR_PLAY = PrebuiltSelect(
    Seat,
    "WHERE m.match_id = %s ORDER BY m.seat",
    related="player",
    annotations={
        "has_webhook": f"EXISTS (SELECT 1 FROM {table(Webhook)} w"
        " WHERE w.user_id = m.player_id AND w.active)"
    },
)


def seats_for_play(match: Match) -> list[Seat]:
    """The match's seats in order, with players and `has_webhook` (which saves a query
    per action when nobody at the table has a webhook)."""
    return _SEATS_FOR_PLAY.all([match.pk])


def match_for_play(match_id: int, user: User) -> tuple[Match, list[Seat]]:
    """`visible_match_lock` and `seats_for_play` in one round trip: the seats are read
    once the match's lock is held, as they would be one after the other."""
    matches, seats = select_together((MATCH_FOR_UPDATE, [match_id]), (_SEATS_FOR_PLAY, [match_id]))
    if not matches or not match_visible(matches[0], seats, user):
        raise MatchNotFound(f"No match {match_id}.")
    return matches[0], seats


def player_ref(user: User) -> dict[str, Any]:
    return {"id": user.pk, "username": user.username, "is_bot": user.is_bot}
