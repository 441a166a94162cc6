"""Rematches: once a match is finished, a seated person offers to play it again; when
every person seated at it has accepted (the server's bots accept at once), a new match
starts with the same rules, settings and stakes, each player one seat further on, its
buy-ins taken from the wallets as joining takes them. The others hear of the offer as
the `rematch_offered` account event; the finished match shows the offer and, once
created, the new match (`rematch_id`). An offer lapses after `REMATCH_TTL_SECONDS`.

Locks: the finished match (as play locks it), then the new match, whose id is higher
(`locks` orders matches by ascending id), then what its start locks."""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from core.payloads import timestamp
from games import engine
from games.errors import (
    AlreadyAgreed,
    MatchNotFinished,
    NoRematchOffer,
    RematchStarted,
)
from games.events import RematchOffered
from games.models import Match, Seat
from games.selectors import rematch_offer_standing
from games.services.endings import seat_for_request
from games.services.lobby import check_wallet, match_open_full
from games.services.play import match_for_play
from games.services.publish import publish, seat_notices
from games.services.table import MatchChange

_OFFER_FIELDS = ["rematch_offer", "rematch", "version", "event_seq"]


def _finished_seat(match: Match, seats: list[Seat], user: User, expected: int | None) -> Seat:
    seat = seat_for_request(match, seats, user, expected)
    if match.status != Match.Status.FINISHED:
        raise MatchNotFinished(f"This match is {match.status}; only a finished one is replayed.")
    if match.rematch_id is not None:
        raise RematchStarted(f"The rematch is match {match.rematch_id}.")
    return seat


@transaction.atomic
def match_rematch(*, match_id: int, user: User, expected_version: int | None = None) -> MatchChange:
    """Offers a rematch of the finished match, or accepts the offer standing. `user`
    must cover the buy-in (`InsufficientChips` tells them their own balance only). The
    last acceptance starts the new match; the answer is the finished match, whose
    `rematch_id` names it."""
    match, seats = match_for_play(match_id, user)
    seat = _finished_seat(match, seats, user, expected_version)
    offer = rematch_offer_standing(match)
    if offer is not None and seat.seat in offer["seats"]:
        raise AlreadyAgreed("You accepted this rematch already.")
    check_wallet(user, match.buy_in)
    notices = []
    if offer is None:
        accepted = {s.seat for s in seats if s.player.bot_strategy}
        expires_at = timestamp(timezone.now() + timedelta(seconds=settings.REMATCH_TTL_SECONDS))
        others = [s for s in seats if s.pk != seat.pk]
        notices = seat_notices(
            others,
            lambda s: RematchOffered(
                match_id=match.pk,
                seat=s.seat,
                offered_by=user.username,
                expires_at=datetime.fromisoformat(expires_at),
            ),
        )
        event = {"type": "rematch_offered", "seat": seat.seat}
    else:
        accepted, expires_at = set(offer["seats"]), offer["expires_at"]
        event = {"type": "rematch_accepted", "seat": seat.seat}
    accepted.add(seat.seat)
    events = [{**event, "accepted_seats": sorted(accepted), "expires_at": expires_at}]
    if all(s.seat in accepted for s in seats):
        match.rematch = _start_rematch(match, seats)
        match.rematch_offer = None
        events.append({"type": "rematch_started", "match_id": match.rematch.pk})
    else:
        match.rematch_offer = {"seats": sorted(accepted), "expires_at": expires_at}
    match.version += 1
    publish(match=match, events=events, notices=notices)
    match.save(update_fields=_OFFER_FIELDS)
    return MatchChange(match=match)


@transaction.atomic
def match_rematch_decline(
    *, match_id: int, user: User, expected_version: int | None = None
) -> MatchChange:
    """A seated person declines the rematch offered (or withdraws their own): the offer
    is over for everyone (`NoRematchOffer` without one)."""
    match, seats = match_for_play(match_id, user)
    seat = _finished_seat(match, seats, user, expected_version)
    if rematch_offer_standing(match) is None:
        raise NoRematchOffer("Nobody offers a rematch of this match.")
    match.rematch_offer = None
    match.version += 1
    publish(match=match, events=[{"type": "rematch_declined", "seat": seat.seat}])
    match.save(update_fields=_OFFER_FIELDS)
    return MatchChange(match=match, seats=seats)


def _start_rematch(match: Match, seats: list[Seat]) -> Match:
    """The new match, started: the player of seat `s` sits at `s + 1` (the last at 0, who
    creates it), the same rules, settings, stakes and kind."""
    players = [s.player for s in seats]
    return match_open_full(
        players=players[-1:] + players[:-1],
        refusal="A player can no longer cover the buy-in; the rematch did not start.",
        ruleset=match.ruleset,
        options=engine.rules_from_dict(match.rules).options(),
        turn_seconds=match.turn_seconds,
        buy_in=match.buy_in,
        ante=match.ante,
        private=match.private,
        rated=match.rated,
        on_timeout=match.on_timeout,
        max_timeouts=match.max_timeouts,
    )
