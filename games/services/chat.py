"""Table talk: seated players post; muted players cannot."""

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from core.errors import DomainError
from games.errors import MatchNotFound, MessageHidden, NotSeated
from games.models import ChatMessage, Match


@transaction.atomic
def message_post(*, match_id: int, user: User, text: str) -> ChatMessage:
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        raise MatchNotFound(f"No match {match_id}.")
    if not match.seats.filter(player=user).exists():
        raise NotSeated("Only seated players can talk at this table.")
    if user.is_muted():
        raise DomainError(
            f"You are muted in chat until {user.chat_muted_until.isoformat()}.",
            code="muted",
            status=403,
        )
    return ChatMessage.objects.create(match=match, author=user, text=text)


@transaction.atomic
def message_hide(*, message_id: int, reason: str) -> ChatMessage:
    """Hides a chat message from the API (`selectors.messages_visible` leaves it out);
    kept for the record, with the reason. `MessageHidden` if it is hidden already."""
    message = ChatMessage.objects.select_for_update().select_related("author").get(pk=message_id)
    if message.hidden_at is not None:
        raise MessageHidden(f"Message {message.pk} is already hidden.")
    message.hidden_at = timezone.now()
    message.hidden_reason = reason[:200]
    message.save(update_fields=["hidden_at", "hidden_reason"])
    return message
