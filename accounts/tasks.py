from celery import shared_task

from accounts.webhooks import deliver


class DeliveryPending(Exception):
    """Raised to make Celery retry a delivery with backoff."""


@shared_task(
    acks_late=True,
    autoretry_for=(DeliveryPending,),
    retry_backoff=2,
    retry_backoff_max=300,
    retry_jitter=True,
    max_retries=10,
)
def deliver_webhook(delivery_id: int) -> None:
    if not deliver(delivery_id):
        raise DeliveryPending(delivery_id)
