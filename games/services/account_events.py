"""Events addressed to a player's account rather than to one match (a challenge
received, a seek matched): one public entry, `announce`, so every channel that carries
them (the player's webhooks and account stream) gets the same event with the same
payload."""

from collections.abc import Iterable
from typing import Any

from accounts.events import account_events_push
from accounts.webhooks import notify_players


def announce(*, user_ids: Iterable[int], type: str, data: dict[str, Any]) -> None:
    """Tells these players' accounts about `type` with `data`. Call inside the writing
    transaction: webhook deliveries are recorded with it and sent after its commit."""
    ids = sorted(set(user_ids))
    if not ids:
        return
    notify_players(user_ids=ids, event=type, payload=data)
    account_events_push((user_id, type, data) for user_id in ids)
