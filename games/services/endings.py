"""Ending a running match by the players: an abort they all agree to in round 1 (every
chip refunded as a moderator's abort refunds it), and a win claimed when every
opponent is gone (their turns played by the timeout policy, `CLAIM_AFTER_TIMEOUTS` in
a row: they are forfeited as a timeout forfeits them). Engine calls here:
`match_abort_agree` (engine.round_number); forfeits through `play.forfeit_seat`."""

from collections.abc import Callable

from django.db import transaction

from accounts.models import User
from games import engine
from games.engine.limits import CLAIM_AFTER_TIMEOUTS
from games.errors import (
    AbortNotAgreeable,
    AbortTooLate,
    AlreadyAgreed,
    AlreadyOut,
    MatchNotActive,
    NoAbortProposal,
    NotSeated,
    OpponentsNotGone,
    StaleVersion,
)
from games.models import Match, Seat
from games.selectors import abort_proposal_standing
from games.services.interventions import abort_locked
from games.services.play import forfeit_seat, match_for_play
from games.services.publish import publish
from games.services.table import MatchChange

_PROPOSAL_FIELDS = ["abort_proposal", "version", "event_seq"]
# Why a match may not be aborted by its players' agreement, asked of the apps above games
# (`abort_agreement_veto`): a tournament's table places its players by seed when aborted,
# so agreeing with the house's bots would hand out places and prizes unplayed.
_AGREEMENT_VETOES: list[Callable[[Match], str | None]] = []


def abort_agreement_veto(veto: Callable[[Match], str | None]) -> None:
    """Registers `veto(match)`: the reason the players of `match` may not abort it by
    agreement, or None. An app above games registers it when it is ready."""
    if veto not in _AGREEMENT_VETOES:
        _AGREEMENT_VETOES.append(veto)


def seat_for_request(
    match: Match, seats: list[Seat], user: User, expected_version: int | None
) -> Seat:
    """`user`'s seat at the locked `match` (`NotSeated` without one), once
    `expected_version`, when given, is the match's version (`StaleVersion`)."""
    seat = next((s for s in seats if s.player_id == user.pk), None)
    if seat is None:
        raise NotSeated("You have no seat in this match.")
    if expected_version is not None and expected_version != match.version:
        raise StaleVersion(
            f"The match is at version {match.version}, not {expected_version}; reload it."
        )
    return seat


def _playing_seat(match: Match, seats: list[Seat], user: User, expected: int | None) -> Seat:
    seat = seat_for_request(match, seats, user, expected)
    if match.status != Match.Status.ACTIVE:
        raise MatchNotActive(f"This match is {match.status}; only a running match ends so.")
    if seat.status != Seat.Status.PLAYING:
        raise AlreadyOut("You are out of this match already.")
    return seat


@transaction.atomic
def match_abort_agree(
    *, match_id: int, user: User, expected_version: int | None = None
) -> MatchChange:
    """Proposes to abort the running match, or agrees to the proposal in play, in round
    1 only (`AbortTooLate` after). The server's bots agree as soon as it is proposed;
    once every seat still playing agrees, the match is aborted with every chip given
    back (`abort_locked`, as a moderator's abort)."""
    match, seats = match_for_play(match_id, user)
    seat = _playing_seat(match, seats, user, expected_version)
    state = engine.state_from_json(match.state)
    number = engine.round_number(state)
    if number > 1:
        raise AbortTooLate(f"Round {number} is in play: a match aborts by agreement in round 1.")
    for veto in _AGREEMENT_VETOES:
        if reason := veto(match):
            raise AbortNotAgreeable(reason)
    proposal = abort_proposal_standing(match, state)
    playing = [s for s in seats if s.status == Seat.Status.PLAYING]
    if proposal is None:
        agreed = {s.seat for s in playing if s.player.bot_strategy}
    elif seat.seat in proposal["seats"]:
        raise AlreadyAgreed("You agreed to abort this match already.")
    else:
        agreed = set(proposal["seats"])
    agreed.add(seat.seat)
    match.version += 1
    kind = "abort_proposed" if proposal is None else "abort_agreed"
    publish(match=match, events=[{"type": kind, "seat": seat.seat, "agreed_seats": sorted(agreed)}])
    if all(s.seat in agreed for s in playing):
        match.abort_proposal = None
        match.save(update_fields=["abort_proposal"])
        abort_locked(match, actor=user, reason="aborted by agreement")
        return MatchChange(match=match)
    match.abort_proposal = {"round": number, "seats": sorted(agreed)}
    match.save(update_fields=_PROPOSAL_FIELDS)
    return MatchChange(match=match, seats=seats)


@transaction.atomic
def match_abort_withdraw(
    *, match_id: int, user: User, expected_version: int | None = None
) -> MatchChange:
    """Any seat still playing withdraws its agreement or declines the proposal: either
    way the proposal is over for everyone (`NoAbortProposal` without one)."""
    match, seats = match_for_play(match_id, user)
    seat = _playing_seat(match, seats, user, expected_version)
    if abort_proposal_standing(match, engine.state_from_json(match.state)) is None:
        raise NoAbortProposal("Nobody proposes to abort this match.")
    match.abort_proposal = None
    match.version += 1
    publish(match=match, events=[{"type": "abort_withdrawn", "seat": seat.seat}])
    match.save(update_fields=_PROPOSAL_FIELDS)
    return MatchChange(match=match, seats=seats)


@transaction.atomic
def match_claim_victory(
    *, match_id: int, user: User, expected_version: int | None = None
) -> MatchChange:
    """`user` wins a running match whose every opponent still playing has had their
    turns played by the timeout policy `CLAIM_AFTER_TIMEOUTS` times in a row: each is
    forfeited, in seat order, as a timeout forfeits them, and the match finishes through
    the usual end (pots, stacks, ratings). Poker dice ends at the first forfeit, that
    seat buying the jug and everyone else winning, as its rules say."""
    match, seats = match_for_play(match_id, user)
    seat = _playing_seat(match, seats, user, expected_version)
    opponents = [s for s in seats if s.status == Seat.Status.PLAYING and s.seat != seat.seat]
    present = [s.seat for s in opponents if s.consecutive_timeouts < CLAIM_AFTER_TIMEOUTS]
    if present:
        raise OpponentsNotGone(
            f"Seat(s) {', '.join(map(str, present))} played one of their last "
            f"{CLAIM_AFTER_TIMEOUTS} turns: a win is claimed once every opponent is gone."
        )
    preface = [
        {"type": "victory_claimed", "seat": seat.seat, "gone_seats": [s.seat for s in opponents]}
    ]
    change = MatchChange(match=match, seats=seats)
    for gone in opponents:
        if match.status != Match.Status.ACTIVE:
            break
        change = forfeit_seat(match, seats, gone.seat, preface=preface)
        preface = None
    return change
