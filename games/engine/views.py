"""What a seat (or a spectator) may see: the one place that filters hidden information."""

from __future__ import annotations

from ._common import json_copy
from .engine import current_seat
from .pokerdice import poker_view_round
from .pool import pool_view_round
from .state import State


def view_for(state: State, seat: int | None) -> dict:
    """The match as `seat` may see it (None = spectator). Legal actions are separate.

    Common pool: a seat sees its own cup (`round.your_dice`); everyone sees dice counts,
    shown dice and the actions. Poker dice: only the player holding the open box (player
    one after rolling until they bid; an accepting player from accepting until they bid)
    sees `round.box` and `round.shelf`. Finished rounds (`last_round`) are public.
    """
    poker = state.rules.is_poker
    seats = []
    for s in range(state.n_players):
        entry = {"seat": s, "status": "playing" if state.live[s] else "out"}
        if poker:
            entry["lives"] = state.lives[s]
        else:
            entry["dice_count"] = state.dice_counts[s]
        seats.append(entry)
    view = {
        "family": state.rules.family,
        "rules": state.rules.to_dict(),
        "version": state.version,
        "status": "finished" if state.finished else "active",
        "your_seat": seat,
        "turn_seat": current_seat(state),
        "seats": seats,
        "round": None,
        "last_round": json_copy(state.last_round),
        "winner_seats": list(state.winners),
    }
    if poker and state.finished:
        view["loser_seat"] = state.loser
    if state.round is not None:
        view["round"] = poker_view_round(state, seat) if poker else pool_view_round(state, seat)
    return view
