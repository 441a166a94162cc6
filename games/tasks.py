"""Celery tasks for matches. Thin: they call services, and every one is safe to run twice
(services check the match version and the deadline under the row lock)."""

from datetime import datetime

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import services


def schedule_bot_turn(*, match_id: int, version: int) -> None:
    """Enqueues the bot's move after a short thinking delay, once the transaction commits."""
    transaction.on_commit(
        lambda: play_bot_turn.apply_async((match_id, version), countdown=settings.BOT_THINK_SECONDS)
    )


def schedule_turn_timeout(*, match_id: int, version: int, deadline: datetime) -> None:
    """A task at the deadline, when it is near enough: Redis redelivers a task whose ETA
    exceeds the visibility timeout again and again, so later deadlines are left to the
    periodic sweep."""
    if (deadline - timezone.now()).total_seconds() > settings.TIMEOUT_TASK_MAX_ETA_SECONDS:
        return
    transaction.on_commit(lambda: apply_turn_timeout.apply_async((match_id, version), eta=deadline))


@shared_task(acks_late=True)
def play_bot_turn(match_id: int, version: int) -> bool:
    return services.bot_play(match_id=match_id, version=version)


@shared_task(acks_late=True)
def apply_turn_timeout(match_id: int, version: int) -> bool:
    return services.turn_timeout(match_id=match_id, version=version)


@shared_task(acks_late=True)
def sweep_due_turns() -> int:
    return services.sweep_due_turns()
