"""The moderation audit trail: one append-only row per moderation action.

PostgreSQL refuses any UPDATE or DELETE of a row (trigger, see 0002_triggers); the Django
layer refuses them too, with `AuditImmutable`.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.models import Match
from moderation.errors import AuditImmutable


class AuditAction(models.TextChoices):
    MATCH_ABORT = "match_abort", "abort a match"
    TURN_FORCE_TIMEOUT = "turn_force_timeout", "force a turn's timeout"
    PLAYER_BAN = "player_ban", "ban a player"
    PLAYER_UNBAN = "player_unban", "unban a player"
    PLAYER_MUTE = "player_mute", "mute a player in chat"
    PLAYER_UNMUTE = "player_unmute", "unmute a player"
    MESSAGE_HIDE = "message_hide", "hide a chat message"
    CHIPS_ADJUST = "chips_adjust", "adjust chips"
    HIDDEN_DICE_VIEW = "hidden_dice_view", "view hidden dice"
    REPORT_RESOLVE = "report_resolve", "resolve a player's report"
    TOURNAMENT_CANCEL = "tournament_cancel", "cancel a tournament"


class AuditRecordQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AuditImmutable("Audit records are never edited.")

    def delete(self):
        raise AuditImmutable("Audit records are never deleted.")


class AuditRecord(models.Model):
    """Who did what, to whom, why and when."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="moderation_actions"
    )
    action = models.CharField(max_length=32, choices=AuditAction.choices)
    target_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="moderation_records",
    )
    match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.PROTECT, related_name="moderation_records"
    )
    target = models.CharField(max_length=200, help_text="What was acted on, in words.")
    reason = models.TextField()
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    objects = AuditRecordQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        permissions = [
            ("view_hidden_dice", "Can view the hidden dice of a running match"),
            ("abort_match", "Can abort a match (refunding its chips)"),
            ("force_timeout", "Can force the timeout of a turn"),
            ("ban_player", "Can ban and unban players"),
            ("mute_player", "Can mute and unmute players in chat"),
            ("hide_message", "Can hide chat messages"),
            ("cancel_tournament", "Can cancel a tournament (refunding every entry)"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(reason=""), name="moderation_audit_reason_not_empty"
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.action} by {self.actor_id}: {self.target}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AuditImmutable("Audit records are never edited.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AuditImmutable("Audit records are never deleted.")


class SuspicionReport(Match):
    """No table of its own: the admin's entry for the chip-dumping and collusion report."""

    class Meta:
        proxy = True
        verbose_name = "suspicion report"
        verbose_name_plural = "suspicion report"


class PlayerReport(models.Model):
    """A player's report of another player, waiting for a moderator. Only moderators see
    reports: the reported player is never told who reported them."""

    class Reason(models.TextChoices):
        CHEATING = "cheating", "cheating or collusion"
        ABUSE = "abuse", "abuse in chat"
        NAME = "name", "an offensive name"
        STALLING = "stalling", "stalling or abandoning matches"
        OTHER = "other", "something else"

    class Status(models.TextChoices):
        OPEN = "open"
        RESOLVED = "resolved"

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_made"
    )
    reported = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_received"
    )
    match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="player_reports"
    )
    reason = models.CharField(max_length=16, choices=Reason.choices)
    detail = models.TextField(blank=True, max_length=1000)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="reports_resolved",
    )

    class Meta:
        ordering = ["-id"]
        permissions = [("resolve_report", "Can resolve players' reports")]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(reporter=models.F("reported")),
                name="moderation_report_not_of_oneself",
            ),
            # One open report per reporter, player and match (or none): a second press
            # of the button adds nothing for moderators to wade through.
            models.UniqueConstraint(
                fields=["reporter", "reported", "match"],
                condition=models.Q(status="open"),
                nulls_distinct=False,
                name="moderation_report_one_open",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.reporter_id} reports {self.reported_id}: {self.reason}"
