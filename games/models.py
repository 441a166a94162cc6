from django.conf import settings
from django.db import models
from django.utils import timezone

from games.engine.limits import MAX_PLAYERS, MIN_PLAYERS


class Match(models.Model):
    """A table of 2..8 seats playing one rule system. `state` holds the engine state and
    `secrets` the current round's commitment salts: neither is ever sent as is."""

    class Status(models.TextChoices):
        OPEN = "open"
        ACTIVE = "active"
        FINISHED = "finished"
        ABORTED = "aborted"

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    ruleset = models.CharField(max_length=32)
    family = models.CharField(max_length=16)
    rules = models.JSONField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_matches"
    )
    max_players = models.PositiveSmallIntegerField()
    turn_seconds = models.PositiveIntegerField()
    buy_in = models.PositiveIntegerField(default=0)
    ante = models.PositiveIntegerField(default=0)
    private = models.BooleanField(default=False)
    # Casual (False): the result changes no rating.
    rated = models.BooleanField(default=True)

    class Unrated(models.TextChoices):
        CASUAL = "casual", "a casual match"
        NOT_PLAYED = "not_played", "no round ended with every seat having moved"
        ABANDONED = "abandoned", "ended by a forfeit before RATED_MIN_ROUNDS rounds ended"

    # Written when the match finishes: why its result moved no rating; empty when it did.
    unrated_reason = models.CharField(max_length=12, choices=Unrated.choices, blank=True)

    class TimeoutPolicy(models.TextChoices):
        AUTO = "auto", "the cautious bot plays for the absent player"
        CHALLENGE = "challenge", "challenge the standing bid (or make the lowest bid)"
        FORFEIT = "forfeit", "the absent player is out"

    on_timeout = models.CharField(
        max_length=10, choices=TimeoutPolicy.choices, default=TimeoutPolicy.AUTO
    )
    max_timeouts = models.PositiveSmallIntegerField(
        default=3, help_text="Consecutive timeouts after which `auto` puts a player out."
    )
    invite_code = models.CharField(max_length=32, blank=True)
    # The lobby seat the creator named to open round 1 (first_opener `creator`).
    opener_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    # Bumped by every change a client can observe; `expected_version` compares with it.
    version = models.PositiveIntegerField(default=0)
    # Sequence number of the last event written (events are gapless per match).
    event_seq = models.PositiveIntegerField(default=0)
    state = models.JSONField(null=True, blank=True)
    secrets = models.JSONField(default=dict, blank=True)
    turn_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    turn_deadline = models.DateTimeField(null=True, blank=True)
    winner_seats = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Abort by agreement in round 1: {"round": n, "seats": [seats agreed]}; it lapses
    # once the match is in another round.
    abort_proposal = models.JSONField(null=True, blank=True)
    # A rematch offered once finished: {"seats": [seats accepted], "expires_at": "..."}.
    rematch_offer = models.JSONField(null=True, blank=True)
    rematch = models.OneToOneField(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="rematch_of"
    )

    class Meta:
        verbose_name_plural = "matches"
        indexes = [
            models.Index(fields=["status", "-created_at"]),
            models.Index(
                fields=["turn_deadline"],
                name="games_match_due_turns",
                condition=models.Q(status="active"),
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(max_players__gte=MIN_PLAYERS, max_players__lte=MAX_PLAYERS),
                name=f"games_match_max_players_{MIN_PLAYERS}_{MAX_PLAYERS}",
            ),
        ]

    def __str__(self) -> str:
        return f"Match {self.pk} ({self.ruleset}, {self.status})"


class Seat(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing"
        OUT = "out"
        LEFT = "left"
        ABORTED = "aborted"  # still playing when the match was aborted

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    played_as_bot = models.BooleanField(
        default=False,
        help_text="Whether the player was a bot when they took the seat (or when the match "
        "started): a player's own flag may change later.",
    )
    consecutive_timeouts = models.PositiveSmallIntegerField(default=0)
    joined_at = models.DateTimeField(default=timezone.now)
    # A rated match's effect on the player's rating in its preset, written when it
    # finishes: {"before": {"mu", "sigma"}, "after": {"mu", "sigma"}, "weight"}; null when
    # unrated. `weight` (0..1) is the share of OpenSkill's change applied (games.ratings).
    rating_change = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["match", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="games_seat_unique_number"),
            models.UniqueConstraint(fields=["match", "player"], name="games_seat_unique_player"),
        ]

    def __str__(self) -> str:
        return f"Seat {self.seat} of match {self.match_id}"


class MatchEvent(models.Model):
    """Append-only public log of a match; `seq` is gapless per match."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    data = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["match", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seq"], name="games_event_gapless_seq"),
        ]

    def __str__(self) -> str:
        return f"#{self.seq} {self.type} (match {self.match_id})"


class RoundRecord(models.Model):
    """A finished (or voided) round in full: every die, salts, result and chips moved."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="round_records")
    number = models.PositiveIntegerField()
    record = models.JSONField()
    finished_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="games_round_unique"),
        ]

    def __str__(self) -> str:
        return f"Round {self.number} of match {self.match_id}"


class ChatMessage(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="messages")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="chat_messages"
    )
    text = models.CharField(max_length=500)
    created_at = models.DateTimeField(default=timezone.now)
    hidden_at = models.DateTimeField(null=True, blank=True)
    hidden_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        indexes = [models.Index(fields=["match", "-id"])]

    def __str__(self) -> str:
        return f"{self.author_id}: {self.text[:40]}"


class MatchAction(models.Model):
    """Every action the engine applied, as given to it (with its seat), in order: with the
    dice the match rolled (`state.rolls`) they rebuild the match (`engine.replay`).
    Private while the match runs (a reroll's held dice name positions in a hidden box)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="actions")
    number = models.PositiveIntegerField(help_text="1, 2, ...: the engine state's version.")
    action = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="games_action_unique_number"),
        ]

    def __str__(self) -> str:
        return f"Action {self.number} of match {self.match_id}"


class Challenge(models.Model):
    """A direct invitation to named players; the match starts when every one accepts."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        DECLINED = "declined"
        CANCELLED = "cancelled"
        EXPIRED = "expired"

    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent"
    )
    ruleset = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True)
    turn_seconds = models.PositiveIntegerField()
    buy_in = models.PositiveIntegerField(default=0)
    ante = models.PositiveIntegerField(default=0)
    rated = models.BooleanField(default=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    match = models.ForeignKey(Match, on_delete=models.SET_NULL, null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(
                fields=["expires_at"],
                name="games_challenge_pending_due",
                condition=models.Q(status="pending"),
            ),
        ]

    def __str__(self) -> str:
        return f"Challenge {self.pk} by {self.challenger_id} ({self.status})"


class ChallengeInvite(models.Model):
    """One challenged player and their answer."""

    class Response(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        DECLINED = "declined"

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="invites")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_received"
    )
    response = models.CharField(max_length=10, choices=Response.choices, default=Response.PENDING)
    responded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["challenge", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["challenge", "player"], name="games_invite_unique_player"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in challenge {self.challenge_id} ({self.response})"


class Seek(models.Model):
    """Quick play: a wish to play a table of `players` at these settings with whoever
    else wants the same; paired by nearest rating in the preset."""

    class Status(models.TextChoices):
        WAITING = "waiting"
        MATCHED = "matched"
        CANCELLED = "cancelled"
        EXPIRED = "expired"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seeks"
    )
    ruleset = models.CharField(max_length=32)
    players = models.PositiveSmallIntegerField()
    turn_seconds = models.PositiveIntegerField()
    buy_in = models.PositiveIntegerField(default=0)
    ante = models.PositiveIntegerField(default=0)
    # Only seeks of the same kind (rated or casual) are paired.
    rated = models.BooleanField(default=True)
    # A bot's seek is paired with bots only unless it asks for people too; a person's is
    # paired with people and with bots that asked.
    against_people = models.BooleanField(default=False)
    # The seeker's rating in the preset when the seek was made (pairing is nearest first).
    rating = models.FloatField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    match = models.ForeignKey(Match, on_delete=models.SET_NULL, null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(
                fields=["ruleset", "players", "turn_seconds", "buy_in", "ante"],
                name="games_seek_waiting_pool",
                condition=models.Q(status="waiting"),
            ),
        ]
        constraints = [
            # One waiting seek per player: a player is never paired twice at once.
            models.UniqueConstraint(
                fields=["user"],
                condition=models.Q(status="waiting"),
                name="games_seek_one_waiting_per_user",
            ),
        ]

    def __str__(self) -> str:
        return f"Seek {self.pk} by {self.user_id} ({self.status})"
