"""Row locks for writes to matches, and the one order every transaction takes them in.

Lock order (a transaction that needs several kinds takes them in this order, each kind
by ascending id, so two transactions never wait on each other in a cycle):

0. matchmaking: a quick-play pool's advisory lock, then seek rows (`seeks`), or a
   challenge row (`challenges`); they then open and start a match as the lobby does;
1. match rows: `match_lock`, or `matches_lock` for several (ascending id);
2. ledger accounts, by ascending id: the ledger's `accounts_lock`, taken inside the
   `stakes.*` calls (buy-ins, antes, pots, refunds);
3. user rows, by ascending id: `users_lock` (ratings at a match's end, a ban);
4. account event counters, by ascending user id, taken by `accounts.events`
   (`services.publish`), with a change's last writes.

Play locks its match, moves chips, then locks the players to rate them; a ban locks the
banned player's matches, then the player. A service never locks a match after an account
or a user in the same transaction.
"""

import secrets
from collections.abc import Iterable

from accounts.models import User
from core.prebuilt import PrebuiltSelect
from games.errors import MatchNotFound
from games.models import Match

# Every move takes it: its SQL is built once (core.prebuilt).
MATCH_FOR_UPDATE = PrebuiltSelect(Match, "WHERE m.id = %s FOR UPDATE OF m", related="created_by")


def match_lock(match_id: int) -> Match:
    """Locks a match row (with its creator, not locked) or raises `MatchNotFound`."""
    match = MATCH_FOR_UPDATE.one([match_id])
    if match is None:
        raise MatchNotFound(f"No match {match_id}.")
    return match


def visible_match_lock(match_id: int, user: User, *, invite_code: str | None = None) -> Match:
    """`match_lock` for a request by `user`: a private match where `user` has no seat
    (and whose invite code they do not give) is reported missing, as reads report it
    (`selectors.match_get`), so no operation tells a stranger that it exists."""
    match = match_lock(match_id)
    if (
        match.private
        and not (invite_code and secrets.compare_digest(invite_code, match.invite_code))
        and not match.seats.filter(player_id=user.pk).exists()
    ):
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
    # NO KEY UPDATE, as the ledger locks its accounts: rows that reference a user (an
    # account event, its counter) check the user with KEY SHARE, which FOR UPDATE would
    # block, deadlocking a finished match against another match's `your_turn`.
    users = User.objects.select_for_update(no_key=True).filter(pk__in=list(user_ids)).order_by("pk")
    return {user.pk: user for user in users}
