"""What a seat (or a spectator) may see of a poker-dice match, and what the server may
read of the box: commitments, the reveal of a round, a moderator's look."""

from __future__ import annotations

from typing import Any

from ..action_fields import copy_action
from ..family import view_head
from .hands import RANKS, canonical_hand, describe_hand
from .play import DIRECTION_NAMES, copy_round_record, round_record
from .state import PokerDiceState


def view_for(state: PokerDiceState, seat: int | None) -> dict:
    """The match as `seat` may see it (None = spectator). Legal actions are separate.

    Only the player holding the open box (player one after rolling until they bid; an
    accepting player from accepting until they bid) sees `round.box` and `round.shelf`.
    Finished rounds (`last_round`) are public.
    """
    live = state.live
    seats = [
        {"seat": s, "status": "playing" if live[s] else "out", "lives": n}
        for s, n in enumerate(state.lives)
    ]
    view = view_head(state, seat, seats)
    if state.last_round is not None:
        view["last_round"] = copy_round_record(state.last_round)
    if state.finished:
        view["loser_seat"] = state.loser
    r = state.round
    if r is not None:
        round_view = {
            "number": r.number,
            "opener_seat": r.player_one,
            "turn_seat": r.turn,
            "phase": r.phase,
            "direction": DIRECTION_NAMES.get(r.direction),
            "current_bid": None
            if r.bid is None
            else {"hand": canonical_hand(r.bid), "seat": r.bidder, "text": describe_hand(r.bid)},
            "actions": [copy_action(a) for a in r.actions],
            "lives": {str(s): n for s, n in enumerate(state.lives)},
            # The box, as `your_dice`, for the seat holding it only; nothing is shown.
            "your_dice": None,
            "your_hand": None,
            "shown_dice": {},
        }
        if seat is not None and seat == r.turn and r.phase in ("bid", "reroll"):
            round_view["your_dice"] = [RANKS[v] for v in r.box]
            round_view["your_hand"] = describe_hand(r.box)
            round_view["shelf"] = list(r.shelf)
        view["round"] = round_view
    return view


def reveal_round(state: PokerDiceState) -> dict[str, Any] | None:
    """The round in play with the box revealed (an abort); None when no round is in play."""
    r = state.round
    if r is None or state.finished:
        return None
    return copy_round_record(round_record(r, r.actions, None))


def held_dice(state: PokerDiceState) -> dict[str, Any]:
    """The box now, under the key "box": {"box", "shelf", "rolls"} (never send to players)."""
    r = state.round
    if r is None:
        return {}
    return {
        "box": {
            "box": [RANKS[v] for v in r.box],
            "shelf": list(r.shelf),
            "rolls": [[RANKS[v] for v in b] for b in r.rolls],
        }
    }


def commitment_material(state: PokerDiceState) -> dict[str, list]:
    """What the commitment covers: the one box (whoever holds it), as rank names."""
    r = state.round
    if r is None:
        return {}
    return {"box": [RANKS[v] for v in r.box]}
