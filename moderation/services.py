"""Moderation actions. Each one runs in one transaction with the audit record it writes:
either both happen or neither does. An action on matches or seats checks its target,
calls one public games service (which locks as `games.services.locks` orders), then
writes the audit record; a moderator's change looks to players like any other change."""

from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import selectors as account_selectors
from accounts.models import User
from games import selectors as game_selectors
from games import services as games
from games.errors import MatchEnded, MessageHidden
from games.models import ChatMessage, Match
from ledger.models import Account
from ledger.services import Movement
from moderation.errors import (
    AlreadyReported,
    CannotReportOneself,
    MuteInThePast,
    NotAllowed,
    NotAtThatMatch,
    NothingToDo,
    ReasonRequired,
)
from moderation.models import AuditAction, AuditRecord, PlayerReport
from tournaments import services as tournaments
from tournaments.errors import TournamentOver
from tournaments.models import Tournament


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


def chips_adjust_record(*, actor: User, account: Account, move: Movement) -> AuditRecord:
    """The audit record of a chip adjustment (the admin's "Adjust chips", `house_fund`),
    written in the adjustment's transaction."""
    return audit_record(
        actor=actor,
        action=AuditAction.CHIPS_ADJUST,
        reason=move.transfer.reason,
        target=str(account),
        target_user=account.user,
        details={
            "transfer_id": move.transfer.pk,
            "account_id": account.pk,
            "amount": move.amount if account.pk == move.transfer.credit_id else -move.amount,
        },
    )


# --- matches -------------------------------------------------------------------------


@transaction.atomic
def match_abort(*, match_id: int, moderator: User, reason: str) -> Match:
    """Ends an open or running match (`games.services.match_abort`: refunds, the round in
    play revealed with its salts, `match_aborted` for the players) and audits it."""
    reason = _reason(reason)
    try:
        aborted = games.match_abort(match_id=match_id, actor=moderator)
    except MatchEnded as exc:
        raise NothingToDo(str(exc)) from exc
    match = aborted.change.match
    audit_record(
        actor=moderator,
        action=AuditAction.MATCH_ABORT,
        reason=reason,
        target=str(match),
        match=match,
        details={"status_before": aborted.status_before, "chips": aborted.chips},
    )
    return match


@transaction.atomic
def tournament_cancel(*, tournament_id: int, moderator: User, reason: str) -> Tournament:
    """Cancels a tournament not over yet (`tournaments.services.tournament_cancel`: its
    tables still playing aborted, every entry refunded exactly, `tournament_cancelled`
    for the entrants) and audits it."""
    reason = _reason(reason)
    try:
        cancelled = tournaments.tournament_cancel(
            tournament_id=tournament_id, actor=moderator, reason=reason, as_moderator=True
        )
    except TournamentOver as exc:
        raise NothingToDo(str(exc)) from exc
    audit_record(
        actor=moderator,
        action=AuditAction.TOURNAMENT_CANCEL,
        reason=reason,
        target=str(cancelled.tournament),
        details={
            "tournament_id": tournament_id,
            "status_before": cancelled.status_before,
            "refunded": cancelled.refunded,
            "matches_aborted": cancelled.matches_aborted,
        },
    )
    return cancelled.tournament


@transaction.atomic
def turn_force_timeout(*, match_id: int, moderator: User, reason: str) -> Match:
    """Applies the match's timeout policy to the current turn now, as if its deadline had
    passed (for a turn stuck on a lost task or an absent player), and audits it."""
    reason = _reason(reason)
    forced = games.turn_force_timeout(match_id=match_id)
    match = forced.change.match
    audit_record(
        actor=moderator,
        action=AuditAction.TURN_FORCE_TIMEOUT,
        reason=reason,
        target=f"seat {forced.seat} of {match}",
        target_user=forced.player,
        match=match,
        details={
            "seat": forced.seat,
            "version_before": forced.version_before,
            "deadline_was": forced.deadline_was.isoformat() if forced.deadline_was else None,
            "policy": forced.policy,
        },
    )
    return match


# --- players -------------------------------------------------------------------------


def _check_target(player: User, moderator: User) -> None:
    if player.pk == moderator.pk:
        raise NotAllowed("Moderators cannot act on their own account.")
    if (player.is_staff or player.is_superuser) and not moderator.is_superuser:
        raise NotAllowed("Only a superuser can act on staff accounts.")


@transaction.atomic
def player_ban(*, user_id: int, moderator: User, reason: str) -> User:
    """Bans a player (`games.services.player_banned`: the account deactivated, its tokens
    revoked, its lobbies left, its turns to the timeout policy) and audits it."""
    reason = _reason(reason)
    _check_target(User.objects.get(pk=user_id), moderator)
    banned = games.player_banned(user_id=user_id)
    if banned is None:
        player = User.objects.get(pk=user_id)
        raise NothingToDo(f"{player.username} is already banned.")
    player = banned.player
    audit_record(
        actor=moderator,
        action=AuditAction.PLAYER_BAN,
        reason=reason,
        target=player.username,
        target_user=player,
        details={
            "tokens_revoked": banned.tokens_revoked,
            "lobbies_left": banned.lobbies_left,
            "turns_timed_out": banned.turns_due,
        },
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
        raise MuteInThePast("A mute ends in the future.")
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
    """Hides a chat message from the API (`games.services.message_hide`), kept for the
    record with the reason, and audits it."""
    reason = _reason(reason)
    try:
        message = games.message_hide(message_id=message_id, reason=reason)
    except MessageHidden as exc:
        raise NothingToDo(str(exc)) from exc
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
    """The current round's dice of every seat (`games.selectors.hidden_dice`), with an
    audit record of who looked (callers check the `moderation.view_hidden_dice`
    permission)."""
    dice = game_selectors.hidden_dice(match=match)
    if dice is None:
        return None
    with transaction.atomic():
        audit_record(
            actor=viewer,
            action=AuditAction.HIDDEN_DICE_VIEW,
            reason="viewed the hidden dice of the current round",
            target=f"round {dice['round']} of {match}",
            match=match,
            details={"round": dice["round"], "version": match.version},
        )
    return dice


# --- players' reports ------------------------------------------------------------------


def player_report(
    *, reporter: User, username: str, reason: str, detail: str = "", match_id: int | None = None
) -> PlayerReport:
    """Files `reporter`'s report of a player for the moderators, optionally about a match
    both of them sat at (any other match is refused alike, so a report cannot probe
    which private matches exist)."""
    reported = account_selectors.player_get(username=username)
    if reported.pk == reporter.pk:
        raise CannotReportOneself("You cannot report yourself.")
    match = None
    if match_id is not None:
        match = (
            Match.objects.filter(pk=match_id, seats__player=reporter)
            .filter(seats__player=reported)
            .first()
        )
        if match is None:
            raise NotAtThatMatch("You can only name a match at which you both sat.")
    try:
        with transaction.atomic():
            return PlayerReport.objects.create(
                reporter=reporter, reported=reported, match=match, reason=reason, detail=detail
            )
    except IntegrityError as exc:
        if getattr(exc.__cause__, "diag", None) and (
            exc.__cause__.diag.constraint_name == "moderation_report_one_open"
        ):
            raise AlreadyReported(
                "You have already reported this; a moderator will look at it."
            ) from exc
        raise


@transaction.atomic
def report_resolve(*, report_id: int, moderator: User, reason: str) -> PlayerReport:
    """Closes an open report with the moderator's note (in the audit trail)."""
    reason = _reason(reason)
    report = PlayerReport.objects.select_for_update().get(pk=report_id)
    if report.status != PlayerReport.Status.OPEN:
        raise NothingToDo("This report is already resolved.")
    report.status = PlayerReport.Status.RESOLVED
    report.resolved_at = timezone.now()
    report.resolved_by = moderator
    report.save(update_fields=["status", "resolved_at", "resolved_by"])
    audit_record(
        actor=moderator,
        action=AuditAction.REPORT_RESOLVE,
        reason=reason,
        target=f"report #{report.pk} of {report.reported.username}",
        target_user=report.reported,
        match=report.match,
        details={"report": report.pk, "reporter": report.reporter_id, "about": report.reason},
    )
    return report
