"""Celery tasks for matches. Thin: they call services, and every one is safe to run twice
(services check the match version and the deadline under the row lock). Services queue
them by name (`games.services.publish`), so this module is the only one importing the
other way."""

from celery import shared_task

from games.services import challenges, seeks, turns


@shared_task(acks_late=True)
def play_bot_turn(match_id: int, version: int) -> bool:
    return turns.bot_play(match_id=match_id, version=version)


@shared_task(acks_late=True)
def apply_turn_timeout(match_id: int, version: int) -> bool:
    return turns.turn_timeout(match_id=match_id, version=version)


@shared_task(acks_late=True)
def sweep_due_turns() -> int:
    return turns.sweep_due_turns()


@shared_task
def expire_challenges_and_seeks() -> int:
    return challenges.challenges_expire() + seeks.seeks_expire()
