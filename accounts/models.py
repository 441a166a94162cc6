import hashlib

from django.contrib.auth.models import AbstractUser
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from accounts.scopes import SCOPES, all_scopes


class User(AbstractUser):
    """A player account. Bots (ours and third-party programs) are users with `is_bot`."""

    is_bot = models.BooleanField(
        default=False, help_text="Shown on every response naming this player."
    )
    bot_strategy = models.CharField(
        max_length=32, blank=True, help_text="Set on the server's own bot accounts."
    )
    games_played = models.PositiveIntegerField(default=0)
    games_won = models.PositiveIntegerField(default=0)
    # OpenSkill (Plackett-Luce) parameters; `rating` is the conservative estimate.
    rating_mu = models.FloatField(default=25.0)
    rating_sigma = models.FloatField(default=25.0 / 3.0)
    chat_muted_until = models.DateTimeField(
        null=True, blank=True, help_text="Set by moderators: no chat messages before this time."
    )
    # Balances are private (docs/API.md, "Balances are private"): only a player who opts
    # in is listed, with their balance, on the leaderboard by chips.
    show_chips = models.BooleanField(
        default=False, help_text="Listed with your wallet balance on the chips leaderboard."
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique"),
        ]

    def is_muted(self, now=None) -> bool:
        return self.chat_muted_until is not None and self.chat_muted_until > (now or timezone.now())

    @property
    def rating(self) -> float:
        return round(self.rating_mu - 3 * self.rating_sigma, 2)


class Rating(models.Model):
    """A player's OpenSkill rating in one rule preset (the `ruleset` a match was made
    from); `User.rating_*` stays the rating over every preset."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="ratings")
    ruleset = models.CharField(max_length=32)
    mu = models.FloatField(default=25.0)
    sigma = models.FloatField(default=25.0 / 3.0)
    games = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "ruleset"], name="accounts_rating_unique"),
        ]
        indexes = [models.Index(fields=["ruleset"])]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.ruleset}: {self.rating}"

    @property
    def rating(self) -> float:
        return round(self.mu - 3 * self.sigma, 2)


class RatedOpponent(models.Model):
    """An opponent `user` met in a rated match while the opponent was established in the
    scope (`ruleset`; "" for the rating over every preset): the leaderboard by rating
    counts these, distinct, before listing a player (`LEADERBOARD_MIN_OPPONENTS`)."""

    OVERALL = ""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="rated_opponents")
    opponent = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    ruleset = models.CharField(max_length=32, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "ruleset", "opponent"], name="accounts_rated_opponent_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} met {self.opponent_id} ({self.ruleset or 'overall'})"


def hash_token(raw_token: str) -> str:
    # Tokens carry 256 bits of entropy, so a fast unsalted hash is enough to make a leaked
    # table useless while keeping per-request lookups to one indexed query.
    return hashlib.sha256(raw_token.encode()).hexdigest()


class ApiToken(models.Model):
    """A bearer token. Only its SHA-256 is stored; the token itself is shown once."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(
        max_length=12, editable=False, help_text="First characters, to tell tokens apart."
    )
    name = models.CharField(max_length=100, blank=True, help_text="The owner's label.")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    # Written at most once per LAST_USED_PRECISION, not on every request.
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    scopes = ArrayField(
        models.CharField(max_length=16, choices=[(s, s) for s in SCOPES]),
        default=all_scopes,
        help_text="What the token may do (accounts.scopes).",
    )

    class Meta:
        indexes = [models.Index(fields=["user", "revoked_at"])]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"


class Webhook(models.Model):
    """Where to POST a player's turn notifications; each body is signed with the secret,
    which is kept only encrypted (`accounts.secret_box`)."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    encrypted_secret = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)
    active = models.BooleanField(default=True)

    def __str__(self) -> str:
        return f"{self.url} ({self.user})"


class WebhookDelivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        FAILED = "failed"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=32)
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)
    # When the next attempt is due; one overdue with no lease lost its task (the sweep).
    next_attempt_at = models.DateTimeField(default=timezone.now)
    # Set while an attempt is under way: no other attempt starts before it passes.
    leased_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["webhook", "-id"]),
            models.Index(
                fields=["next_attempt_at"],
                condition=models.Q(status="pending"),
                name="accounts_delivery_pending_due",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event} -> {self.webhook_id} ({self.status})"


class AccountEvent(models.Model):
    """What happened to an account across all its matches (`your_turn`, `match_started`,
    `match_finished`, ...), for its account stream. `seq` increases per user with no gap
    and is the stream's event id; events are kept at least ACCOUNT_EVENTS_KEEP_HOURS."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="account_events")
    seq = models.PositiveBigIntegerField()
    type = models.CharField(max_length=32)
    data = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "seq"], name="accounts_event_user_seq"),
        ]

    def __str__(self) -> str:
        return f"#{self.seq} {self.type} (user {self.user_id})"


class AccountEventCounter(models.Model):
    """The last `AccountEvent.seq` given to a user: survives purges, so ids never repeat,
    and its row lock orders one user's appends by commit."""

    user = models.OneToOneField(User, on_delete=models.CASCADE, primary_key=True, related_name="+")
    last_seq = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"user {self.user_id}: {self.last_seq}"
