from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from accounts.models import User, Webhook, WebhookDelivery


def player_get(*, username: str) -> User:
    return get_object_or_404(User, username__iexact=username, is_active=True)


def webhooks_of(*, user: User) -> QuerySet[Webhook]:
    return Webhook.objects.filter(user=user, active=True).order_by("id")


def webhook_deliveries(*, user: User, webhook_id: int, limit: int = 50) -> list[WebhookDelivery]:
    hook = get_object_or_404(Webhook, pk=webhook_id, user=user)
    return list(hook.deliveries.order_by("-id")[:limit])
