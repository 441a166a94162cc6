"""Seat order and final places, shared by both families."""

from __future__ import annotations

from .errors import ErrorCode, IllegalAction, InvalidRules
from .limits import MAX_PLAYERS, MIN_PLAYERS


def next_live(live: tuple[bool, ...], seat: int, step: int = 1) -> int:
    """The next live seat after `seat` going in direction `step` (skips players who are out)."""
    n = len(live)
    s = seat
    for _ in range(n):
        s = (s + step) % n
        if live[s]:
            return s
    return seat


def live_from(live: tuple[bool, ...], seat: int) -> int:
    """`seat` if still live, else the next live seat clockwise from it."""
    return seat if live[seat] else next_live(live, seat)


def placements(
    n_players: int, winners: tuple[int, ...], eliminations: tuple[tuple[int, ...], ...]
) -> dict[str, int]:
    """Place per seat (1 = best); seats out in the same event share a place."""
    places: dict[str, int] = {str(s): 1 for s in winners}
    better = len(winners)
    for group in reversed(eliminations):
        for s in group:
            places[str(s)] = better + 1
        better += len(group)
    return places


def check_seat(n_players: int, seat: object) -> int:
    """`seat` if it is a seat number of this match (bool is not a number)."""
    if type(seat) is not int or not 0 <= seat < n_players:
        raise IllegalAction(
            ErrorCode.VALIDATION_ERROR, f"seat must be from 0 to {n_players - 1}", "seat"
        )
    return seat


def check_new_match(n_players: object, creator_seat: object, opener_seat: object) -> None:
    """The table of a new match: 2..8 players, seats that exist."""
    if type(n_players) is not int or not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
        raise InvalidRules("players", f"players must be from {MIN_PLAYERS} to {MAX_PLAYERS}")
    for name, seat in (("creator_seat", creator_seat), ("opener_seat", opener_seat)):
        if seat is not None and (type(seat) is not int or not 0 <= seat < n_players):
            raise InvalidRules(name, f"{name} must be a seat from 0 to {n_players - 1}")
