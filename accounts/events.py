"""The account event store: per-user, ordered, kept at least ACCOUNT_EVENTS_KEEP_HOURS.

The types and payloads are games' (`games.events`); its publisher
(`games.services.publish`), the only caller of `account_events_append`, appends them
inside the change's transaction. The account stream (`accounts.streams`) is woken on
commit through `core.notifications`.
"""

import json
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from accounts.models import AccountEvent, AccountEventCounter
from core.notifications import listen_on, notify
from core.payloads import timestamp
from core.prebuilt import Statement, Writes

CHANNEL = listen_on("account_events")
# Woken when a user's tokens are revoked or the account is disabled: streams re-check.
SESSIONS_CHANNEL = listen_on("account_sessions")

_COUNTERS = AccountEventCounter._meta.db_table
# One statement per event: the next seq from the user's counter, the event row, and the
# notification (sent on commit).
_APPEND = f"""
    WITH next AS (
        INSERT INTO {_COUNTERS} (user_id, last_seq) VALUES (%s, 1)
        ON CONFLICT (user_id) DO UPDATE SET last_seq = {_COUNTERS}.last_seq + 1
        RETURNING user_id, last_seq
    )
    INSERT INTO {AccountEvent._meta.db_table} (user_id, seq, type, data, created_at)
    SELECT user_id, last_seq, %s, %s, %s FROM next
    RETURNING pg_notify(%s, user_id::text)
"""


def account_events_append(
    entries: Iterable[tuple[int, str, dict[str, Any]]],
    writes: Writes | None = None,
    *,
    created_at: datetime,
) -> None:
    """Appends (user_id, type, data) events made at `created_at` (the time the webhooks'
    bodies carry too) in the caller's transaction, at once or, with `writes`, with the
    caller's other writes. Each user's counter row stays locked until
    the commit, so one user's events commit in `seq` order (a stream never skips an id
    that commits later). Users are taken in ascending id: two transactions never wait on
    each other in a cycle."""
    queue = Writes() if writes is None else writes
    for user_id, kind, data in sorted(entries, key=lambda e: e[0]):
        queue.add(Statement(_APPEND, [user_id, kind, json.dumps(data), created_at, CHANNEL]))
    if writes is None:
        queue.run()


def account_events_after(*, user_id: int, after: int, limit: int = 200) -> list[dict[str, Any]]:
    rows = AccountEvent.objects.filter(user_id=user_id, seq__gt=after).order_by("seq")[:limit]
    # Flat: the payload's fields beside the envelope's (`games.events` types them).
    return [
        {"id": seq, "type": kind, "created_at": timestamp(created), **data}
        for seq, kind, data, created in rows.values_list("seq", "type", "data", "created_at")
    ]


def account_last_seq(*, user_id: int) -> int:
    counter = AccountEventCounter.objects.filter(user_id=user_id).first()
    return counter.last_seq if counter else 0


def account_events_purge(*, now=None) -> int:
    """Deletes events past their keeping time; returns how many."""
    cutoff = (now or timezone.now()) - timedelta(hours=settings.ACCOUNT_EVENTS_KEEP_HOURS)
    deleted, _ = AccountEvent.objects.filter(created_at__lt=cutoff).delete()
    return deleted


def sessions_changed(*, user_id: int) -> None:
    """Tells open streams of `user_id` to re-check their token (revoked, banned)."""
    notify(SESSIONS_CHANNEL, user_id)
