"""Heartbeats of periodic jobs, to tell afterwards that the stack was down for a while."""

from datetime import datetime, timedelta

from django.db import transaction

from core.models import Heartbeat


def beat(name: str, *, now: datetime) -> datetime | None:
    """Records that `name` runs at `now` and returns when it ran before (None the first
    time). Inside the caller's transaction the row stays locked until the commit, so two
    concurrent runs never both see the same previous beat."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("beat() must run inside a transaction")
    Heartbeat.objects.bulk_create([Heartbeat(name=name, beat_at=now)], ignore_conflicts=True)
    row = Heartbeat.objects.select_for_update().get(name=name)
    previous = row.beat_at if row.beat_at != now else None  # else: just inserted above
    row.beat_at = now
    row.save(update_fields=["beat_at"])
    return previous


def silent_for(name: str, *, now: datetime) -> timedelta | None:
    """How long ago `name` last ran (None if it never did)."""
    beat_at = Heartbeat.objects.filter(name=name).values_list("beat_at", flat=True).first()
    return None if beat_at is None else now - beat_at
