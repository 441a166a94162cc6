"""Account events about matches (`accounts.events`): `match_started`, `your_turn`,
`match_finished`, appended in the match's transaction so they commit with the change
they announce (with `writes`, together with the change's other writes). Server bots get
none (the server plays them)."""

from typing import Any

from accounts.events import account_events_push
from core.prebuilt import Writes
from games.models import Match, Seat


def _people(seats: list[Seat]) -> list[Seat]:
    return [s for s in seats if not s.player.bot_strategy]


def match_started(match: Match, seats: list[Seat], writes: Writes | None = None) -> None:
    entries = [
        (s.player_id, "match_started", {"match_id": match.pk, "seat": s.seat})
        for s in _people(seats)
    ]
    account_events_push(entries, writes)


def your_turn(match: Match, seat: Seat, writes: Writes | None = None) -> None:
    if seat.player.bot_strategy:
        return
    data: dict[str, Any] = {
        "match_id": match.pk,
        "seat": seat.seat,
        "version": match.version,
        "turn_deadline": match.turn_deadline.isoformat() if match.turn_deadline else None,
    }
    account_events_push([(seat.player_id, "your_turn", data)], writes)


def match_finished(match: Match, seats: list[Seat], writes: Writes | None = None) -> None:
    entries = [
        (
            s.player_id,
            "match_finished",
            {
                "match_id": match.pk,
                "seat": s.seat,
                "status": match.status,
                "winner_seats": list(match.winner_seats),
            },
        )
        for s in _people(seats)
    ]
    account_events_push(entries, writes)
