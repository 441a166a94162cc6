from celery import shared_task

from core.idempotency import purge_expired


@shared_task(acks_late=True)
def purge_idempotency_records() -> int:
    return purge_expired()
