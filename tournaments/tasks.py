"""Celery tasks for tournaments. Thin: they call services, and each is safe to run twice
or at once with another (the services check the state under the tournament's lock).
Services queue them by name, so this is the only module importing the other way."""

from celery import shared_task

from tournaments import services


@shared_task(acks_late=True)
def start(tournament_id: int) -> bool:
    return services.tournament_start(tournament_id=tournament_id)


@shared_task(acks_late=True)
def advance(tournament_id: int) -> bool:
    return services.tournament_advance(tournament_id=tournament_id)


@shared_task
def sweep() -> int:
    return services.tournaments_sweep()
