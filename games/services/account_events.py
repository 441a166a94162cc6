"""Events addressed to a player's account rather than to one match (a challenge
received, a seek matched): one public entry, `announce`, so every channel that carries
them (the player's webhooks and account stream) gets the same event with the same
payload."""

from collections.abc import Callable, Iterable
from typing import Any

from accounts.events import account_events_push
from accounts.webhooks import notify_players

# Extra channels: each is called with the same arguments
# inside the announcing transaction, and is itself responsible for acting on commit.
_channels: list[Callable[[list[int], str, dict[str, Any]], None]] = []


def add_channel(channel: Callable[[list[int], str, dict[str, Any]], None]) -> None:
    """Registers another carrier of account events (idempotent)."""
    if channel not in _channels:
        _channels.append(channel)


def announce(*, user_ids: Iterable[int], type: str, data: dict[str, Any]) -> None:
    """Tells these players' accounts about `type` with `data`. Call inside the writing
    transaction: webhook deliveries are recorded with it and sent after its commit."""
    ids = sorted(set(user_ids))
    if not ids:
        return
    notify_players(user_ids=ids, event=type, payload=data)
    account_events_push((user_id, type, data) for user_id in ids)
    for channel in _channels:
        channel(ids, type, data)
