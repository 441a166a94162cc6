"""Tournaments: a sit-and-go (one table that starts when full) or a knockout (stages of
tables whose top finishers advance to the next stage, down to a final table).

Money lives in the ledger, never here: each entry's buy-in sits in the tournament's
prize pool (`tournaments.money`) until the prizes or the refunds empty it. The tables
are ordinary matches with no stakes (`buy_in` 0): a tournament's chips are its pool's.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from games.engine.limits import MAX_PLAYERS, MIN_PLAYERS
from games.models import Match


class Tournament(models.Model):
    class Format(models.TextChoices):
        SIT_AND_GO = "sit_and_go"
        KNOCKOUT = "knockout"

    class Status(models.TextChoices):
        REGISTERING = "registering"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    class Seeding(models.TextChoices):
        RATING = "rating"
        RANDOM = "random"

    name = models.CharField(max_length=80)
    format = models.CharField(max_length=12, choices=Format.choices)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTERING)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_tournaments"
    )
    ruleset = models.CharField(max_length=32)
    # The preset's option overrides, as given: every table is made from preset + options.
    options = models.JSONField(default=dict, blank=True)
    turn_seconds = models.PositiveIntegerField()
    on_timeout = models.CharField(
        max_length=10, choices=Match.TimeoutPolicy.choices, default=Match.TimeoutPolicy.AUTO
    )
    max_timeouts = models.PositiveSmallIntegerField(default=3)
    rated = models.BooleanField(default=False)
    table_size = models.PositiveSmallIntegerField()
    # How many of each table (not the final) go on to the next stage; a sit-and-go's one
    # table is its final.
    advance = models.PositiveSmallIntegerField(default=1)
    seeding = models.CharField(max_length=8, choices=Seeding.choices, default=Seeding.RATING)
    min_entrants = models.PositiveIntegerField()
    max_entrants = models.PositiveIntegerField()
    # A knockout starts then (cancelled with refunds when short of `min_entrants`); with
    # none it starts once `min_entrants` registered. A sit-and-go starts when full.
    starts_at = models.DateTimeField(null=True, blank=True)
    buy_in = models.PositiveIntegerField(default=0)
    fee = models.PositiveIntegerField(default=0, help_text="Per entry, to the house.")
    bots_allowed = models.BooleanField(default=False)
    # Set at the start: the pool and the share of it each place wins, in basis points.
    pool = models.PositiveBigIntegerField(default=0)
    payout = models.JSONField(default=list, blank=True)
    # Bumped by every change a spectator can see (the stream sends a new standing).
    version = models.PositiveIntegerField(default=0)
    cancel_reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["status", "-created_at"]),
            models.Index(
                fields=["starts_at"],
                name="tournaments_due_starts",
                condition=Q(status="registering"),
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(table_size__gte=MIN_PLAYERS, table_size__lte=MAX_PLAYERS),
                name="tournaments_table_size_range",
            ),
            models.CheckConstraint(
                condition=Q(advance__gte=1, advance__lt=models.F("table_size")),
                name="tournaments_advance_below_table_size",
            ),
            models.CheckConstraint(
                condition=Q(
                    min_entrants__gte=MIN_PLAYERS, min_entrants__lte=models.F("max_entrants")
                ),
                name="tournaments_entrant_range",
            ),
        ]

    def __str__(self) -> str:
        return f"Tournament {self.pk} {self.name!r} ({self.format}, {self.status})"


class Entry(models.Model):
    """One registration. Withdrawn and cancelled entries stay (their refunds name them);
    a player may register again after withdrawing, as a new entry."""

    class Status(models.TextChoices):
        REGISTERED = "registered"
        WITHDRAWN = "withdrawn"  # unregistered before the start: refunded
        REFUNDED = "refunded"  # the tournament was cancelled: refunded

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournament_entries"
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTERED)
    # 1 = the strongest (rating seeding) or the first drawn (random), set at the start.
    seed = models.PositiveIntegerField(null=True, blank=True)
    place = models.PositiveIntegerField(null=True, blank=True)
    prize = models.PositiveBigIntegerField(null=True, blank=True)
    # The stage the entrant went out in (or won the final of).
    last_stage = models.PositiveIntegerField(null=True, blank=True)
    registered_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "entries"
        ordering = ["tournament", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "user"],
                condition=Q(status="registered"),
                name="tournaments_one_entry_per_player",
            ),
            models.UniqueConstraint(
                fields=["tournament", "place"], name="tournaments_one_entrant_per_place"
            ),
        ]

    def __str__(self) -> str:
        return f"Entry {self.pk} of {self.user_id} in tournament {self.tournament_id}"


class Stage(models.Model):
    """One round of tables; the unique number makes each stage built exactly once."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="stages")
    number = models.PositiveIntegerField()
    final = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "number"], name="tournaments_stage_built_once"
            ),
        ]

    def __str__(self) -> str:
        return f"Stage {self.number} of tournament {self.tournament_id}"


class Table(models.Model):
    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField()
    match = models.OneToOneField(Match, on_delete=models.PROTECT, related_name="tournament_table")
    # How many of this table go on (0 at the final).
    advance = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["stage", "number"]
        constraints = [
            models.UniqueConstraint(fields=["stage", "number"], name="tournaments_table_unique"),
        ]

    def __str__(self) -> str:
        return f"Table {self.number} of stage {self.stage_id}"
