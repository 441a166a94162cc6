"""Work queued for after the commit, by task name: services never import `games.tasks`
(the tasks import the services), and a rolled-back change queues nothing.

`robust`: with the broker down the send fails after the commit; the change stands, so
the request must not fail. The error is logged, and the turn's deadline brings the work
back (the beat's sweep plays a due turn whose task was lost)."""

from datetime import datetime

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

PLAY_BOT_TURN = "games.tasks.play_bot_turn"
APPLY_TURN_TIMEOUT = "games.tasks.apply_turn_timeout"


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
