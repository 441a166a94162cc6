from celery import shared_task
from django.conf import settings

from accounts.events import account_events_purge
from accounts.webhooks import deliver

# A retry waits in Redis as a task with an ETA; one held longer than the visibility
# timeout is delivered again, so the longest wait stays a margin below it.
MAX_BACKOFF_SECONDS = max(
    1, min(300, settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] - 60)
)


class DeliveryPending(Exception):
    """Raised to make Celery retry a delivery with backoff."""


@shared_task(
    acks_late=True,
    autoretry_for=(DeliveryPending,),
    retry_backoff=2,
    retry_backoff_max=MAX_BACKOFF_SECONDS,
    retry_jitter=True,
    max_retries=10,
)
def deliver_webhook(delivery_id: int) -> None:
    if not deliver(delivery_id):
        raise DeliveryPending(delivery_id)


@shared_task(acks_late=True)
def purge_account_events() -> int:
    return account_events_purge()
