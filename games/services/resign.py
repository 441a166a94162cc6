"""Resigning a running match: the seat leaves by the engine's forfeit, the path a
timeout policy or a ban takes (RULES.md 1.9)."""

from django.db import transaction

from accounts.models import User
from games.errors import AlreadyOut, MatchNotActive, NotSeated
from games.models import Match, Seat
from games.services.play import forfeit_seat, match_for_play
from games.services.table import MatchChange


@transaction.atomic
def match_resign(*, match_id: int, user: User) -> MatchChange:
    """`user` gives up their seat in a running match, on their turn or not. The round in
    play is voided (antes back), the seat is out (`left`); the match goes on among the
    others or, with one left (poker dice: at once, the resigner losing), ends."""
    match, seats = match_for_play(match_id, user)
    seat = next((s for s in seats if s.player_id == user.pk), None)
    if seat is None:
        raise NotSeated("You have no seat in this match.")
    if match.status != Match.Status.ACTIVE:
        raise MatchNotActive(f"This match is {match.status}; only a running match is resigned.")
    if seat.status != Seat.Status.PLAYING:
        raise AlreadyOut("You are out of this match already.")
    preface = [{"type": "player_resigned", "seat": seat.seat}]
    return forfeit_seat(match, seats, seat.seat, preface=preface)
