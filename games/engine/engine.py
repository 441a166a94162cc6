"""The engine's public entry points: start a match, list and apply actions, read state."""

from __future__ import annotations

from typing import Any

from ._common import DiceSource
from .errors import ErrorCode, IllegalAction, InvalidRules
from .pokerdice import new_poker_match, poker_apply, poker_forfeit, poker_legal_actions
from .pool import new_pool_match, pool_apply, pool_forfeit, pool_legal_actions
from .rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from .state import State


def new_match(
    rules: Rules,
    n_players: int,
    rng: DiceSource,
    *,
    creator_seat: int = 0,
    opener_seat: int | None = None,
) -> tuple[State, list[dict]]:
    """Start a match: choose the first opener, roll round 1. Returns (state, events).

    `opener_seat` is the seat the creator names (first_opener `creator`; for poker dice,
    player one of round 1, random when None); it is ignored for `random` and `roll_off`.
    """
    if not isinstance(rules, Rules):
        raise InvalidRules("rules", "rules must be a Rules instance")
    if type(n_players) is not int or not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
        raise InvalidRules("players", f"players must be from {MIN_PLAYERS} to {MAX_PLAYERS}")
    for name, seat in (("creator_seat", creator_seat), ("opener_seat", opener_seat)):
        if seat is not None and (type(seat) is not int or not 0 <= seat < n_players):
            raise InvalidRules(name, f"{name} must be a seat from 0 to {n_players - 1}")
    if rules.is_poker:
        return new_poker_match(rules, n_players, rng, creator_seat, opener_seat)
    return new_pool_match(rules, n_players, rng, creator_seat, opener_seat)


def legal_actions(state: State, seat: int | None) -> list[dict]:
    """What `seat` may do now (empty when it is not their turn or the match is over)."""
    if state.finished or seat is None or seat != state.round.turn:
        return []
    if state.rules.is_poker:
        return poker_legal_actions(state, seat)
    return pool_legal_actions(state, seat)


def apply(state: State, action: dict, rng: DiceSource) -> tuple[State, list[dict]]:
    """Apply one action (API body plus "seat"). Returns (new state, events).

    Raises IllegalAction for anything malformed or not allowed; never changes `state`.
    """
    if not isinstance(action, dict):
        raise IllegalAction(ErrorCode.VALIDATION_ERROR, "an action must be a JSON object")
    seat = action.get("seat")
    if type(seat) is not int or not 0 <= seat < state.n_players:
        raise IllegalAction(
            ErrorCode.VALIDATION_ERROR, f"seat must be from 0 to {state.n_players - 1}", "seat"
        )
    kind = action.get("type")
    if not isinstance(kind, str):
        raise IllegalAction(ErrorCode.VALIDATION_ERROR, "type must be a string", "type")
    if state.finished:
        raise IllegalAction(ErrorCode.MATCH_OVER, "the match is over")
    if not state.live[seat]:
        raise IllegalAction(ErrorCode.ILLEGAL_ACTION, "you are out of this match")
    if kind == "forfeit":
        if state.rules.is_poker:
            return poker_forfeit(state, seat)
        return pool_forfeit(state, seat, rng)
    if state.rules.is_poker:
        return poker_apply(state, seat, kind, action, rng)
    return pool_apply(state, seat, kind, action, rng)


def current_seat(state: State) -> int | None:
    """Whose turn it is, or None when the match is over."""
    return None if state.finished else state.round.turn


def is_over(state: State) -> bool:
    return state.finished


def winners(state: State) -> list[int]:
    """Winning seats (empty while the match runs). Poker dice: everyone but the loser."""
    return list(state.winners)


def round_number(state: State) -> int:
    """Number of the current round (of the last round once the match is over)."""
    if state.round is not None:
        return state.round.number
    return state.last_round["number"] if state.last_round else 0


def dice_counts(state: State) -> dict[int, int]:
    """Dice held per seat (common pool)."""
    return dict(enumerate(state.dice_counts))


def lives(state: State) -> dict[int, int]:
    """Lives per seat (poker dice)."""
    return dict(enumerate(state.lives))


def seat_dice(state: State, seat: int) -> dict[str, Any]:
    """The dice a seat holds now, for the server's commitments (never send to others).

    Common pool: {"cup": [...], "shown": [...], "rolls": [[...], ...]} (every roll this
    round). Poker dice: {"box": [...], "shelf": [...], "rolls": [...]} regardless of seat.
    """
    r = state.round
    if r is None:
        return {}
    if state.rules.is_poker:
        from .poker import RANKS

        return {
            "box": [RANKS[v] for v in r.box],
            "shelf": list(r.shelf),
            "rolls": [[RANKS[v] for v in b] for b in r.rolls],
        }
    return {
        "cup": list(r.dice[seat]),
        "shown": list(r.shown[seat]),
        "rolls": [list(x) for x in r.rolls[seat]],
    }


def seat_status(state: State, seat: int) -> str:
    """ "playing" or "out"."""
    return "playing" if state.live[seat] else "out"


def placements(state: State) -> dict[str, int]:
    """Final place per seat (1 = best, ties share), once the match is over."""
    from ._common import placements as _placements

    return _placements(state.n_players, state.winners, state.eliminations)
