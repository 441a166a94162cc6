"""What both families' engines answer the same way, from the fields every state has."""

from __future__ import annotations

from typing import Any

from .interface import MatchState
from .seats import placements


class FamilyEngine:
    """Base of a family's `RulesEngine`: the readers common to every family."""

    @staticmethod
    def current_seat(state: MatchState) -> int | None:
        """Whose turn it is, or None once the match is over."""
        return None if state.finished else state.round.turn

    @staticmethod
    def round_number(state: MatchState) -> int:
        """The current round's number (the last round's once the match is over)."""
        if state.round is not None:
            return state.round.number
        return state.last_round["number"] if state.last_round else 0

    @staticmethod
    def placements(state: MatchState) -> dict[str, int]:
        """Final place per seat (1 = best, ties share), once the match is over."""
        return placements(state.n_players, state.winners, state.eliminations)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


def view_head(state: MatchState, seat: int | None, seats: list[dict]) -> dict[str, Any]:
    """The part of a match view both families share; `round` is filled in by the family."""
    return {
        "family": state.rules.family,
        "rules": state.rules.to_dict(),
        "version": state.version,
        "status": "finished" if state.finished else "active",
        "your_seat": seat,
        "turn_seat": None if state.finished else state.round.turn,
        "seats": seats,
        "round": None,
        "last_round": None,
        "winner_seats": list(state.winners),
    }
