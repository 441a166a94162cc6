"""The one exit for every change: a service says what its change tells the world (match
events for the match's public log, notices for players' accounts, the turn that
follows) and `publish` writes the `MatchEvent`, `AccountEvent` and `WebhookDelivery`
rows in the service's transaction, then schedules the follow-ups for after its commit.

Every type published is registered in `games.events`, which gives its JSON and its
schema; nothing else writes these rows (tests/test_boundaries.py checks it).

Follow-ups are Celery tasks sent by name after the commit: services never import
`games.tasks` (the tasks import the services), and a rolled-back change queues nothing.
`robust`: with the broker down the send fails after the commit; the change stands, so
the request must not fail. The error is logged, and the turn's deadline brings the work
back (the beat's sweep plays a due turn whose task was lost).
"""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.events import account_events_append
from accounts.webhooks import deliveries_record
from core.payloads import payload_json, timestamp
from core.prebuilt import PrebuiltInsert, Writes
from games.events import ACCOUNT_EVENTS, MATCH_EVENTS, AccountPayload
from games.models import Match, MatchEvent, Seat

_EVENTS_INSERT = PrebuiltInsert(MatchEvent)

# Events after which a match writes nothing more: its end, by play or by an abort.
MATCH_END_EVENTS = frozenset({"match_finished", "match_aborted"})
# What the apps above games do when a match ends, in the ending change's transaction
# (`match_end_listen`): a tournament queues the work on its next stage.
_MATCH_END_LISTENERS: list[Callable[[Match], None]] = []

PLAY_BOT_TURN = "games.tasks.play_bot_turn"
APPLY_TURN_TIMEOUT = "games.tasks.apply_turn_timeout"


@dataclass(frozen=True)
class Notice:
    """An account event for one player. `has_webhook` False skips the lookup of their
    webhooks (a move's seats know it); None looks them up."""

    user_id: int
    payload: AccountPayload
    has_webhook: bool | None = None


def seat_notices(seats: Iterable[Seat], payload: Callable[[Seat], AccountPayload]) -> list[Notice]:
    """A notice for each seated person; the server's own bots get none (it plays them)."""
    return [
        Notice(s.player_id, payload(s), getattr(s, "has_webhook", None))
        for s in seats
        if not s.player.bot_strategy
    ]


def publish(
    *,
    match: Match | None = None,
    events: Sequence[dict[str, Any]] = (),
    notices: Sequence[Notice] = (),
    turn: Seat | None = None,
    writes: Writes | None = None,
) -> None:
    """Writes what a change tells: `events` appended to `match`'s log (numbered from
    `match.event_seq`, which the caller saves), `notices` to the players' account streams
    and webhooks, and, when `turn` holds the seat to play next, its bot move and timeout
    queued for after the commit. With `writes`, the rows go with the caller's other
    writes (the caller runs them); else at once."""
    queue = Writes() if writes is None else writes
    if events:
        assert match is not None, "match events need their match"
        queue.add(_EVENTS_INSERT.statement(_numbered(match, events)))
    if notices:
        _notify(notices, queue)
    if writes is None:
        queue.run()
    if any(event["type"] in MATCH_END_EVENTS for event in events):
        for listener in _MATCH_END_LISTENERS:
            listener(match)
    if turn is not None:
        assert match is not None and match.turn_deadline is not None
        if turn.player.bot_strategy:  # the server plays it (others play over the API)
            schedule_bot_turn(match_id=match.pk, version=match.version)
        schedule_turn_timeout(
            match_id=match.pk, version=match.version, deadline=match.turn_deadline
        )


def _numbered(match: Match, events: Sequence[dict[str, Any]]) -> list[MatchEvent]:
    rows = []
    for event in events:
        kind = event["type"]
        if kind not in MATCH_EVENTS:
            raise ValueError(f"Unregistered match event type {kind!r} (games.events).")
        match.event_seq += 1
        rows.append(MatchEvent(match=match, seq=match.event_seq, type=kind, data=event))
    return rows


def _notify(notices: Sequence[Notice], queue: Writes) -> None:
    """Each notice on both channels with the same payload: the account event (its
    stream adds `id`, `type` and `created_at`) and a webhook delivery per active webhook
    (the body adds `event` and `created_at`, the same instant), sent after the commit."""
    now = timezone.now()
    sent_at = timestamp(now)
    entries, bodies = [], []
    for notice in notices:
        kind = notice.payload.type
        if ACCOUNT_EVENTS.get(kind) is not type(notice.payload):
            raise ValueError(f"Unregistered account event {kind!r} (games.events).")
        data = payload_json(notice.payload)
        entries.append((notice.user_id, kind, data))
        if notice.has_webhook is not False:
            bodies.append((notice.user_id, {"event": kind, "created_at": sent_at, **data}))
    if bodies:
        deliveries_record(bodies)
    account_events_append(entries, queue, created_at=now)


def match_end_listen(listener: Callable[[Match], None]) -> None:
    """Calls `listener(match)` in the transaction of every change that ends a match
    (an app above games registers it when it is ready)."""
    if listener not in _MATCH_END_LISTENERS:
        _MATCH_END_LISTENERS.append(listener)


# --- follow-ups, after the commit ----------------------------------------------------


def schedule_bot_turn(*, match_id: int, version: int) -> None:
    """Enqueues the bot's move after a short thinking delay, once the transaction commits."""
    transaction.on_commit(
        lambda: current_app.send_task(
            PLAY_BOT_TURN, args=(match_id, version), countdown=settings.BOT_THINK_SECONDS
        ),
        robust=True,
    )


def schedule_turn_timeout(*, match_id: int, version: int, deadline: datetime) -> None:
    """A task at the deadline, when it is near enough: Redis redelivers a task whose ETA
    exceeds the visibility timeout again and again, so later deadlines are left to the
    periodic sweep."""
    if (deadline - timezone.now()).total_seconds() > settings.TIMEOUT_TASK_MAX_ETA_SECONDS:
        return
    transaction.on_commit(
        lambda: current_app.send_task(APPLY_TURN_TIMEOUT, args=(match_id, version), eta=deadline),
        robust=True,
    )
