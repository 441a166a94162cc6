"""Table talk: seated players post; muted players cannot."""

from datetime import UTC

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games.errors import MessageHidden, Muted, NotSeated
from games.models import ChatMessage, MatchEvent
from games.services.locks import chat_messages_lock, visible_match_lock
from games.services.publish import publish
from games.services.table import player_ref


@transaction.atomic
def message_post(*, match_id: int, user: User, text: str) -> ChatMessage:
    """Posts a message and logs it as a `chat` event, which wakes the match's followers
    (the match row is locked for the event's sequence number; `version` is unchanged, as
    chat changes nothing a player acts on). A private match where `user` has no seat is
    reported missing, as reads report it."""
    match = visible_match_lock(match_id, user)
    if not match.seats.filter(player=user).exists():
        raise NotSeated("Only seated players can talk at this table.")
    if user.is_muted():
        until = user.chat_muted_until.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
        raise Muted(f"You are muted in chat until {until}.")
    message = ChatMessage.objects.create(match=match, author=user, text=text)
    publish(
        match=match,
        events=[
            {"type": "chat", "message_id": message.pk, "author": player_ref(user), "text": text}
        ],
    )
    match.save(update_fields=["event_seq"])
    return message


@transaction.atomic
def message_hide(*, message_id: int, reason: str) -> ChatMessage:
    """Hides a chat message from the API (`selectors.messages_visible` leaves it out);
    kept for the record, with the reason. `MessageHidden` if it is hidden already."""
    message = chat_messages_lock(ChatMessage.objects.select_related("author")).get(pk=message_id)
    if message.hidden_at is not None:
        raise MessageHidden(f"Message {message.pk} is already hidden.")
    message.hidden_at = timezone.now()
    message.hidden_reason = reason[:200]
    message.save(update_fields=["hidden_at", "hidden_reason"])
    # Its event keeps its place in the log, without the text.
    MatchEvent.objects.filter(
        match_id=message.match_id, type="chat", data__message_id=message.pk
    ).update(data={"type": "chat", "message_id": message.pk, "hidden": True})
    return message
