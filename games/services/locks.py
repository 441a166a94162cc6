"""Row locks for writes to matches, and the one order every transaction takes them in.

Lock order (a transaction that needs several kinds takes them in this order, each kind
by ascending id, so two transactions never wait on each other in a cycle):

1. match rows: `match_lock`, or `matches_lock` for several (ascending id);
2. ledger accounts, by ascending id: the ledger's `accounts_lock`, taken inside the
   `stakes.*` calls (buy-ins, antes, pots, refunds);
3. user rows, by ascending id: `users_lock` (ratings at a match's end, a ban).

Play locks its match, moves chips, then locks the players to rate them; a ban locks the
banned player's matches, then the player. A service never locks a match after an account
or a user in the same transaction.
"""

from collections.abc import Iterable

from accounts.models import User
from games.errors import MatchNotFound
from games.models import Match


def match_lock(match_id: int) -> Match:
    """Locks a match row (with its creator, not locked) or raises `MatchNotFound`."""
    match = (
        Match.objects.select_for_update(of=("self",))
        .select_related("created_by")
        .filter(pk=match_id)
        .first()
    )
    if match is None:
        raise MatchNotFound(f"No match {match_id}.")
    return match


def match_lock_or_none(match_id: int, *, skip_locked: bool = False) -> Match | None:
    """Locks a match row for a scheduled task: None when it is gone or, with
    `skip_locked`, when someone else holds it (the sweep comes round again)."""
    return Match.objects.select_for_update(skip_locked=skip_locked).filter(pk=match_id).first()


def matches_lock(match_ids: Iterable[int]) -> list[Match]:
    """Locks several matches one by one in ascending id (step 1 of the lock order)."""
    return [match_lock(match_id) for match_id in sorted(set(match_ids))]


def users_lock(user_ids: Iterable[int]) -> dict[int, User]:
    """Locks user rows in ascending id (step 3 of the lock order), by id."""
    users = User.objects.select_for_update().filter(pk__in=list(user_ids)).order_by("pk")
    return {user.pk: user for user in users}
