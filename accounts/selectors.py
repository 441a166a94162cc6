import re

from django.contrib.auth.validators import UnicodeUsernameValidator
from django.db.models import Case, QuerySet, When
from django.db.models.functions import Length, Lower
from django.shortcuts import get_object_or_404

from accounts.models import ApiToken, User, Webhook, WebhookDelivery
from core.errors import NotFoundError

_USERNAME = re.compile(UnicodeUsernameValidator.regex)
_USERNAME_MAX_LENGTH = User._meta.get_field("username").max_length


def player_get(*, username: str) -> User:
    # Anything that cannot be a username (a NUL, a slash, 10 kB) never reaches the query.
    if len(username) > _USERNAME_MAX_LENGTH or not _USERNAME.match(username):
        raise NotFoundError("No such player.")
    return get_object_or_404(User, username__iexact=username, is_active=True)


def player_search(*, prefix: str, limit: int) -> list[User]:
    """Up to `limit` active players whose username starts with `prefix` (any case), an
    exact match first, then the shortest names, then alphabetically."""
    players = User.objects.filter(username__istartswith=prefix, is_active=True)
    exact = Case(When(username__iexact=prefix, then=0), default=1)
    return list(players.order_by(exact, Length("username"), Lower("username"))[:limit])


def webhooks_of(*, user: User) -> QuerySet[Webhook]:
    return Webhook.objects.filter(user=user, active=True).order_by("id")


def webhook_deliveries(*, user: User, webhook_id: int, limit: int = 50) -> list[WebhookDelivery]:
    hook = get_object_or_404(Webhook, pk=webhook_id, user=user)
    return list(hook.deliveries.order_by("-id")[:limit])


def tokens_of(*, user: User) -> QuerySet[ApiToken]:
    """The user's tokens not revoked (expired ones included, marked by `expires_at`)."""
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True)
