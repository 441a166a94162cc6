"""What a seat (or a spectator) may see of a common-pool match, and what the server may
read of the hidden dice: commitments, the reveal of a round, a moderator's look."""

from __future__ import annotations

from typing import Any

from ..action_fields import copy_action
from ..family import view_head
from .play import copy_round_record, round_record
from .state import CommonPoolState


def view_for(state: CommonPoolState, seat: int | None) -> dict:
    """The match as `seat` may see it (None = spectator). Legal actions are separate.

    A seat sees its own cup (`round.your_dice`); everyone sees dice counts, shown dice
    and the actions. Finished rounds (`last_round`) are public.
    """
    live = state.live
    seats = [
        {"seat": s, "status": "playing" if live[s] else "out", "dice_count": c}
        for s, c in enumerate(state.dice_counts)
    ]
    view = view_head(state, seat, seats)
    if state.last_round is not None:
        view["last_round"] = copy_round_record(state.last_round)
    r = state.round
    if r is not None:
        round_view = {
            "number": r.number,
            "opener_seat": r.opener,
            "turn_seat": r.turn,
            "current_bid": None
            if r.bid is None
            else {"quantity": r.bid[0], "face": r.bid[1], "seat": r.bidder},
            "actions": [copy_action(a) for a in r.actions],
            "shown_dice": {str(s): list(d) for s, d in enumerate(r.shown) if d},
            "dice_counts": {str(s): c for s, c in enumerate(state.dice_counts) if live[s]},
            "passed": list(r.passed),
            "must_raise": r.must_raise,
            "palifico": r.palifico,
        }
        if r.roll_off:
            round_view["roll_off"] = [dict(x) for x in r.roll_off]
        # Every family's view names the seat's own dice `your_dice` (null: none to see).
        holds = seat is not None and 0 <= seat < state.n_players and live[seat]
        round_view["your_dice"] = list(r.dice[seat]) if holds else None
        view["round"] = round_view
    return view


def reveal_round(state: CommonPoolState) -> dict[str, Any] | None:
    """The round in play recorded with every die revealed (as a voided round is), for an
    abort; None when no round is in play."""
    r = state.round
    if r is None or state.finished:
        return None
    return copy_round_record(round_record(state.n_players, r, r.actions, None))


def held_dice(state: CommonPoolState) -> dict[str, Any]:
    """Every live seat's dice now: {"<seat>": {"cup", "shown", "rolls"}} (never send to
    players). Empty when no round is in play."""
    r = state.round
    if r is None:
        return {}
    return {
        str(seat): {
            "cup": list(r.dice[seat]),
            "shown": list(r.shown[seat]),
            "rolls": [list(x) for x in r.rolls[seat]],
        }
        for seat in range(state.n_players)
        if state.live[seat]
    }


def commitment_material(state: CommonPoolState) -> dict[str, list]:
    """What each commitment covers: per live seat, the dice in its cup and the ones it
    showed this round. The server salts and hashes each entry."""
    r = state.round
    if r is None:
        return {}
    return {
        str(seat): [*r.dice[seat], *r.shown[seat]]
        for seat in range(state.n_players)
        if state.live[seat]
    }
