from django.conf import settings
from django.db import models
from django.utils import timezone


class IdempotencyRecord(models.Model):
    """The first response to a mutating POST sent with an `Idempotency-Key`."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="core_idempotency_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.user_id})"


class Heartbeat(models.Model):
    """When a periodic job last ran (`core.heartbeat`). A gap much longer than its period
    means the stack that runs it (beat, broker, worker or database) was down meanwhile."""

    name = models.CharField(max_length=50, primary_key=True)
    beat_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} at {self.beat_at:%Y-%m-%d %H:%M:%S}"
