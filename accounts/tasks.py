from celery import shared_task
from django.utils import timezone

from accounts.events import account_events_purge
from accounts.models import WebhookDelivery
from accounts.webhooks import MAX_ATTEMPTS, deliver, resend_stuck


@shared_task(bind=True, acks_late=True, max_retries=MAX_ATTEMPTS)
def deliver_webhook(self, delivery_id: int, attempts: int | None = None) -> None:
    """One attempt; a failed one is retried at the delivery's `next_attempt_at`, with the
    new count of attempts (so a duplicate of this task finds its count out of date)."""
    if deliver(delivery_id, attempts):
        return
    due = (
        WebhookDelivery.objects.filter(pk=delivery_id)
        .values_list("attempts", "next_attempt_at")
        .first()
    )
    if due is None:  # deleted meanwhile
        return
    attempts, at = due
    countdown = max(0.0, (at - timezone.now()).total_seconds())
    raise self.retry(args=(delivery_id, attempts), countdown=countdown)


@shared_task(acks_late=True)
def resend_stuck_webhook_deliveries() -> int:
    return resend_stuck()


@shared_task(acks_late=True)
def purge_account_events() -> int:
    return account_events_purge()
