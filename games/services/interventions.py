"""What staff do to tables, as games services (the moderation app calls them and writes
the audit record): abort a match with its refunds and the reveal of the round in play
(`abort_locked`, which the players' abort by agreement shares), and take a banned
player away from the tables. Engine calls here: `round_reveal`
(engine.reveal_round)."""

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from accounts.services import user_deactivate
from games import engine, stakes
from games.errors import MatchEnded
from games.models import Match, RoundRecord, Seat
from games.services.lobby import match_leave
from games.services.locks import match_lock, matches_lock, user_lock
from games.services.play import match_finished_notices, reveal_commitments
from games.services.publish import publish, schedule_turn_timeout
from games.services.table import MatchChange


@dataclass(frozen=True)
class MatchAborted:
    """An aborted match: the change, the status it had and the chips given back."""

    change: MatchChange
    status_before: str
    chips: list[dict]


@transaction.atomic
def match_abort(*, match_id: int, actor: User) -> MatchAborted:
    """Ends an open or running match (`abort_locked`): players see it was a moderator.
    `MatchEnded` for a match that is over already."""
    match = match_lock(match_id)
    if match.status not in (Match.Status.OPEN, Match.Status.ACTIVE):
        raise MatchEnded(f"Match {match.pk} is {match.status}; only open or active ones abort.")
    was = match.status
    # Players see that a moderator did it; the reason stays in the caller's audit trail.
    moves = abort_locked(match, actor=actor, reason="aborted by a moderator")
    return MatchAborted(change=MatchChange(match=match), status_before=was, chips=moves)


def abort_locked(match: Match, *, actor: User, reason: str) -> list[dict]:
    """Aborts the locked, open or running `match` (by a moderator, or by the players'
        agreement): every chip goes back as RULES.md 1.8 says (what each player put into
        unsettled pots, then their stack), the round in play is revealed (`round_reveal`),
        players see `match_aborted` with `reason` and what each seat got back, and the seats
    still playing become `aborted`. Returns the refunds' movements."""
    revealed = round_reveal(match)
    refund = stakes.refund_match(match=match, actor=actor)
    match.status = Match.Status.ABORTED
    match.finished_at = timezone.now()
    match.turn_seat = None
    match.turn_deadline = None
    match.version += 1
    # Nobody plays on at an aborted table: its seats say so, as an out one says it lost.
    match.seats.filter(status=Seat.Status.PLAYING).update(status=Seat.Status.ABORTED)
    event: dict[str, Any] = {
        "type": "match_aborted",
        "reason": reason,
        "chips": refund.moves,
        "refunds": refund.by_seat,
    }
    if revealed is not None:
        event["round"] = revealed
    publish(
        match=match,
        events=[event],
        notices=match_finished_notices(match, list(match.seats.select_related("player"))),
    )
    match.save(
        update_fields=[
            "status",
            "finished_at",
            "turn_seat",
            "turn_deadline",
            "version",
            "event_seq",
        ]
    )
    return refund.moves


def round_reveal(match: Match) -> dict[str, Any] | None:
    """Records the round in play of the locked `match` in full, as a voided round is
    (every die, the commitments and their salts), so players can check the dice they were
    committed to. None when no round is in play."""
    if not match.state:
        return None
    record = engine.reveal_round(engine.state_from_json(match.state))
    if record is None:
        return None
    secret = match.secrets or {}
    record["aborted"] = True
    reveal_commitments(record, secret)
    record["chips"] = list(secret.get("chips", []))
    RoundRecord.objects.create(match=match, number=record["number"], record=record)
    return record


@dataclass(frozen=True)
class PlayerBanned:
    """A banned player: the user row, and what the ban did at the tables."""

    player: User
    tokens_revoked: int
    lobbies_left: list[int]
    turns_due: list[int]


@transaction.atomic
def player_banned(*, user_id: int) -> PlayerBanned | None:
    """Takes a player away from the tables: deactivates the account (tokens revoked),
    leaves every open lobby, and gives their turns in running matches to the timeout
    policy (`turn_deadline` gives an inactive player no time; a turn that is theirs right
    now gets a deadline of now, applied by the timeout task or the beat sweep). None when
    the player is inactive already.

    Locks as `locks` orders: the player's matches by id, then the player, so a ban never
    waits on play while holding the user row play will lock at the match's end. Matches
    joined after this read are lobbies, whose services lock no user."""
    matches_lock(_seated_match_ids(user_id))
    # Locked before the check: of two bans at once, the second finds the player banned.
    player = user_lock(user_id)
    if not player.is_active:
        return None
    # Deactivated first, in this transaction, so `turn_deadline` sees it for the seats below.
    revoked = user_deactivate(user=player)
    left = []
    for match_id in (
        Seat.objects.filter(player=player, match__status=Match.Status.OPEN)
        .order_by("match_id")
        .values_list("match_id", flat=True)
    ):
        match_leave(match_id=match_id, user=player)
        left.append(match_id)
    due = []
    for match_id, number in (
        Seat.objects.filter(player=player, match__status=Match.Status.ACTIVE)
        .order_by("match_id")
        .values_list("match_id", "seat")
    ):
        match = match_lock(match_id)
        if match.status == Match.Status.ACTIVE and match.turn_seat == number:
            match.turn_deadline = timezone.now()
            match.save(update_fields=["turn_deadline"])
            schedule_turn_timeout(
                match_id=match.pk, version=match.version, deadline=match.turn_deadline
            )
            due.append(match_id)
    return PlayerBanned(player=player, tokens_revoked=revoked, lobbies_left=left, turns_due=due)


def _seated_match_ids(user_id: int) -> list[int]:
    return list(
        Seat.objects.filter(
            player_id=user_id, match__status__in=(Match.Status.OPEN, Match.Status.ACTIVE)
        )
        .order_by("match_id")
        .values_list("match_id", flat=True)
    )
