"""Moderation actions. Each one runs in one transaction with the audit record it writes:
either both happen or neither does. Match actions lock the match row first, as the game
services do, and reuse their building blocks (`_lock`, `_append_events`,
`_timeout_locked`) so a moderator's change looks to players like any other change."""

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import ApiToken, User
from games import engine, stakes
from games import services as games
from games.engine.pokerdice import poker_round_record
from games.engine.pool import round_record
from games.errors import MatchNotActive
from games.models import ChatMessage, Match, RoundRecord, Seat
from moderation.errors import NotAllowed, NothingToDo, ReasonRequired
from moderation.models import AuditAction, AuditRecord


def _reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ReasonRequired("A moderation action needs a reason.")
    return reason


def audit_record(
    *,
    actor: User,
    action: str,
    reason: str,
    target: str,
    target_user: User | None = None,
    match: Match | None = None,
    details: dict[str, Any] | None = None,
) -> AuditRecord:
    return AuditRecord.objects.create(
        actor=actor,
        action=action,
        reason=_reason(reason),
        target=target[:200],
        target_user=target_user,
        match=match,
        details=details or {},
    )


# --- matches -------------------------------------------------------------------------


@transaction.atomic
def match_abort(*, match_id: int, moderator: User, reason: str) -> Match:
    """Ends an open or running match: every chip goes back as RULES.md 1.8 says (what each
    player put into unsettled pots, then their stack), and players see `match_aborted`."""
    reason = _reason(reason)
    match = games._lock(match_id)
    if match.status not in (Match.Status.OPEN, Match.Status.ACTIVE):
        raise NothingToDo(f"Match {match.pk} is {match.status}; only open or active ones abort.")
    was = match.status
    revealed = _reveal_current_round(match)
    moves = stakes.refund_match(match=match, actor=moderator)
    match.status = Match.Status.ABORTED
    match.finished_at = timezone.now()
    match.turn_seat = None
    match.turn_deadline = None
    match.version += 1
    # The moderator's reason stays in the audit trail; players see that a moderator did it.
    event: dict[str, Any] = {
        "type": "match_aborted",
        "reason": "aborted by a moderator",
        "chips": moves,
    }
    if revealed is not None:
        event["round"] = revealed
    games._append_events(match, [event])
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
    audit_record(
        actor=moderator,
        action=AuditAction.MATCH_ABORT,
        reason=reason,
        target=str(match),
        match=match,
        details={"status_before": was, "chips": moves},
    )
    return match


def _reveal_current_round(match: Match) -> dict[str, Any] | None:
    """Records the round in play, in full as a voided round is (every die, the
    commitments and their salts), so players can check the dice they were committed to."""
    if not match.state:
        return None
    state = engine.State.from_json(match.state)
    r = state.round
    if r is None or state.finished:
        return None
    if state.rules.is_poker:
        record = poker_round_record(r, r.actions, None)
    else:
        record = round_record(state, r, r.actions, None)
    secret = match.secrets or {}
    record["aborted"] = True
    record["dice_commitments"] = secret.get("commitments", {})
    record["salts"] = {
        s: v for s, v in secret.get("salts", {}).items() if s in record["dice_commitments"]
    }
    record["chips"] = list(secret.get("chips", []))
    RoundRecord.objects.create(match=match, number=record["number"], record=record)
    return record


@transaction.atomic
def turn_force_timeout(*, match_id: int, moderator: User, reason: str) -> Match:
    """Applies the match's timeout policy to the current turn now, as if its deadline had
    passed (for a turn stuck on a lost task or an absent player)."""
    reason = _reason(reason)
    match = games._lock(match_id)
    if match.status != Match.Status.ACTIVE or match.turn_seat is None:
        raise MatchNotActive(f"Match {match.pk} is {match.status}: no turn to time out.")
    seat = match.turn_seat
    player = Seat.objects.select_related("player").get(match=match, seat=seat).player
    deadline, version = match.turn_deadline, match.version
    match.turn_deadline = timezone.now()
    if not games._timeout_locked(match):  # pragma: no cover - guarded above
        raise NothingToDo("The turn could not be timed out.")
    audit_record(
        actor=moderator,
        action=AuditAction.TURN_FORCE_TIMEOUT,
        reason=reason,
        target=f"seat {seat} of {match}",
        target_user=player,
        match=match,
        details={
            "seat": seat,
            "version_before": version,
            "deadline_was": deadline.isoformat() if deadline else None,
            "policy": match.on_timeout,
        },
    )
    return match


# --- players -------------------------------------------------------------------------


def _check_target(player: User, moderator: User) -> None:
    if player.pk == moderator.pk:
        raise NotAllowed("Moderators cannot act on their own account.")
    if (player.is_staff or player.is_superuser) and not moderator.is_superuser:
        raise NotAllowed("Only a superuser can act on staff accounts.")


def _seated_match_ids(user_id: int) -> list[int]:
    return list(
        Seat.objects.filter(
            player_id=user_id, match__status__in=(Match.Status.OPEN, Match.Status.ACTIVE)
        )
        .order_by("match_id")
        .values_list("match_id", flat=True)
    )


def _lobbies_left_and_turns_due(player: User) -> tuple[list[int], list[int]]:
    """A banned player leaves every open lobby; in running matches their turns go to the
    timeout policy (`_deadline` gives an inactive player no time; a turn that is theirs
    right now gets a deadline of now, applied by the timeout task or the beat sweep)."""
    from games import tasks

    left = []
    for match_id in (
        Seat.objects.filter(player=player, match__status=Match.Status.OPEN)
        .order_by("match_id")
        .values_list("match_id", flat=True)
    ):
        games.match_leave(match_id=match_id, user=player)
        left.append(match_id)
    due = []
    for match_id, number in (
        Seat.objects.filter(player=player, match__status=Match.Status.ACTIVE)
        .order_by("match_id")
        .values_list("match_id", "seat")
    ):
        match = games._lock(match_id)
        if match.status == Match.Status.ACTIVE and match.turn_seat == number:
            match.turn_deadline = timezone.now()
            match.save(update_fields=["turn_deadline"])
            tasks.schedule_turn_timeout(
                match_id=match.pk, version=match.version, deadline=match.turn_deadline
            )
            due.append(match_id)
    return left, due


@transaction.atomic
def player_ban(*, user_id: int, moderator: User, reason: str) -> User:
    reason = _reason(reason)
    # Play locks a match, then its players' user rows (`games._finish`); the ban locks in
    # that order too (the player's matches by id, then the user), so neither waits on the
    # other. Matches joined after this read are lobbies, whose services lock no user.
    for match_id in _seated_match_ids(user_id):
        games._lock(match_id)
    # Locked before the check: of two bans at once, the second finds the player banned.
    player = User.objects.select_for_update().get(pk=user_id)
    _check_target(player, moderator)
    if not player.is_active:
        raise NothingToDo(f"{player.username} is already banned.")
    # Deactivated first, in this transaction, so `_deadline` sees it for the seats below;
    # the token check and the session backend refuse inactive users from the commit on.
    player.is_active = False
    player.save(update_fields=["is_active"])
    revoked = ApiToken.objects.filter(user=player, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    left, due = _lobbies_left_and_turns_due(player)
    audit_record(
        actor=moderator,
        action=AuditAction.PLAYER_BAN,
        reason=reason,
        target=player.username,
        target_user=player,
        details={"tokens_revoked": revoked, "lobbies_left": left, "turns_timed_out": due},
    )
    return player


@transaction.atomic
def player_unban(*, user_id: int, moderator: User, reason: str) -> User:
    reason = _reason(reason)
    player = User.objects.select_for_update().get(pk=user_id)
    _check_target(player, moderator)
    if player.is_active:
        raise NothingToDo(f"{player.username} is not banned.")
    player.is_active = True
    player.save(update_fields=["is_active"])
    audit_record(
        actor=moderator,
        action=AuditAction.PLAYER_UNBAN,
        reason=reason,
        target=player.username,
        target_user=player,
    )
    return player


@transaction.atomic
def player_mute(*, user_id: int, moderator: User, reason: str, until: datetime) -> User:
    reason = _reason(reason)
    if until <= timezone.now():
        raise ReasonRequired("A mute ends in the future.", code="invalid_until")
    player = User.objects.select_for_update().get(pk=user_id)
    _check_target(player, moderator)
    before = player.chat_muted_until
    player.chat_muted_until = until
    player.save(update_fields=["chat_muted_until"])
    audit_record(
        actor=moderator,
        action=AuditAction.PLAYER_MUTE,
        reason=reason,
        target=player.username,
        target_user=player,
        details={
            "until": until.isoformat(),
            "previously_until": before.isoformat() if before else None,
        },
    )
    return player


@transaction.atomic
def player_unmute(*, user_id: int, moderator: User, reason: str) -> User:
    reason = _reason(reason)
    player = User.objects.select_for_update().get(pk=user_id)
    _check_target(player, moderator)
    if not player.is_muted():
        raise NothingToDo(f"{player.username} is not muted.")
    before = player.chat_muted_until
    player.chat_muted_until = None
    player.save(update_fields=["chat_muted_until"])
    audit_record(
        actor=moderator,
        action=AuditAction.PLAYER_UNMUTE,
        reason=reason,
        target=player.username,
        target_user=player,
        details={"was_until": before.isoformat() if before else None},
    )
    return player


# --- chat ----------------------------------------------------------------------------


@transaction.atomic
def message_hide(*, message_id: int, moderator: User, reason: str) -> ChatMessage:
    """Hides a chat message from the API (`messages_visible` leaves it out); kept for the
    record, with the reason."""
    reason = _reason(reason)
    message = ChatMessage.objects.select_for_update().select_related("author").get(pk=message_id)
    if message.hidden_at is not None:
        raise NothingToDo(f"Message {message.pk} is already hidden.")
    message.hidden_at = timezone.now()
    message.hidden_reason = reason[:200]
    message.save(update_fields=["hidden_at", "hidden_reason"])
    audit_record(
        actor=moderator,
        action=AuditAction.MESSAGE_HIDE,
        reason=reason,
        target=f"message {message.pk} in match {message.match_id}",
        target_user=message.author,
        match=Match(pk=message.match_id),
        details={"message_id": message.pk, "text": message.text},
    )
    return message


# --- reads that are audited ----------------------------------------------------------


def hidden_dice_view(*, match: Match, viewer: User) -> dict[str, Any] | None:
    """The current round's dice of every seat, from the engine state, with an audit record
    of who looked (callers check the `moderation.view_hidden_dice` permission)."""
    if not match.state:
        return None
    state = engine.State.from_json(match.state)
    if state.round is None or state.finished:
        return None
    if state.rules.is_poker:
        dice = {"box": engine.seat_dice(state, state.round.turn)}
    else:
        dice = {
            str(seat): engine.seat_dice(state, seat)
            for seat in range(state.n_players)
            if state.live[seat]
        }
    with transaction.atomic():
        audit_record(
            actor=viewer,
            action=AuditAction.HIDDEN_DICE_VIEW,
            reason="viewed the hidden dice of the current round",
            target=f"round {state.round.number} of {match}",
            match=match,
            details={"round": state.round.number, "version": match.version},
        )
    return {"round": state.round.number, "dice": dice}
