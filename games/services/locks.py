"""Every lock games takes, and the one order every transaction takes them in.

A transaction that needs several kinds takes them in this order, each kind by ascending
id, so two transactions never wait on each other in a cycle. Games modules lock only
through the functions here; other apps take their own locks, named here by where they
are (tests/games/test_lock_order.py checks both, and that this names every kind).

0. Before the transaction: an `Idempotency-Key`'s owner lock (`core.idempotency`: a
   session advisory lock, only ever tried, never waited for).
1. What a change starts from, at most one of:
   * quick play: a pool's advisory lock (`seek_pool_lock`), then `Seek` rows
     (`seeks_lock`; SKIP LOCKED to pair or expire them);
   * a direct challenge: its `Challenge` row (`challenges_lock`);
   * the sweep's `Heartbeat` row (`core.heartbeat`), then, after an outage, the matches
     whose deadlines it extends, in one UPDATE and so in no set order: the one
     exception (rare; should it meet a ban, PostgreSQL fails one of the two, which can
     run again).
   * a tournament: its `Tournament` row (`tournaments.services.tournament_lock`): it
     opens and starts a stage's tables as the lobby does (2 to 5, the tables one after
     another: each a new match nobody else can lock yet), or aborts its tables still
     playing (by ascending id) at a cancel, then moves its entries' chips (3).
   Challenges and seeks then open and start a match as the lobby does (2 to 5).
2. `Match` rows: `match_lock`, `visible_match_lock`, `match_lock_or_none` (tasks),
   `matches_lock` (several, by ascending id), `MATCH_FOR_UPDATE` (`play.match_for_play`,
   with the seats). Under a lobby's lock, a new server bot's name is reserved by an
   advisory lock that is only tried (`bot_name_try_lock`). A rematch locks its finished
   match, then opens and starts the new one (a higher id) as the lobby does.
3. Ledger `Account` rows, by ascending id: the ledger's `accounts_lock`, inside the
   `stakes.*` calls (buy-ins, antes, pots, refunds; also the ledger's own grants).
4. `User` rows, by ascending id, FOR NO KEY UPDATE: `users_lock` (ratings at a match's
   end), `user_lock` (a ban, after the player's matches). Moderation's mute, unmute
   and unban lock one user (FOR UPDATE) with nothing else; a login locks its user (FOR NO
   KEY UPDATE, `accounts.services.token_obtain`) with nothing else, to replace the token
   of its name.
5. `AccountEventCounter` rows, by ascending user id, taken by `accounts.events` (through
   `services.publish`) with a change's last writes. (At a match's
   start the antes follow; they lock only the match's own accounts, which nothing takes
   without the match's lock.)

Taken with nothing else locked: a `ChatMessage` row (`chat_messages_lock`, to hide it,
then its events), `WebhookDelivery` rows (`accounts.webhooks`, the resend sweep, SKIP
LOCKED), a `Webhook` row (`rotate_webhook_secrets`), a `PlayerReport` row (moderation's
`report_resolve`, then its audit record).

Play locks its match, moves chips, then locks the players to rate them; a ban locks the
banned player's matches, then the player. A service never locks a match after an account
or a user in the same transaction. A lock on rows read with their related rows locks
only its own table (`of=("self",)`): a joined user is read, not locked.
"""

import hashlib
import secrets
from collections.abc import Iterable

from django.db import connection
from django.db.models import QuerySet

from accounts.models import User
from core.prebuilt import PrebuiltSelect
from games.errors import MatchNotFound
from games.models import Challenge, ChatMessage, Match, Seek

# The first key of the advisory locks on bot names, apart from the application's others.
BOT_NAME_LOCK_SPACE = 0xB07

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
    """Locks several matches one by one in ascending id (step 2 of the lock order)."""
    return [match_lock(match_id) for match_id in sorted(set(match_ids))]


def users_lock(user_ids: Iterable[int]) -> dict[int, User]:
    """Locks user rows in ascending id (step 4 of the lock order), by id."""
    # NO KEY UPDATE, as the ledger locks its accounts: rows that reference a user (an
    # account event, its counter) check the user with KEY SHARE, which FOR UPDATE would
    # block, deadlocking a finished match against another match's `your_turn`.
    users = User.objects.select_for_update(no_key=True).filter(pk__in=list(user_ids)).order_by("pk")
    return {user.pk: user for user in users}


def user_lock(user_id: int) -> User:
    """Locks one user row as `users_lock` does (`User.DoesNotExist` if there is none)."""
    return User.objects.select_for_update(no_key=True).get(pk=user_id)


def challenges_lock(
    challenges: QuerySet[Challenge], *, skip_locked: bool = False
) -> QuerySet[Challenge]:
    """`challenges`, their rows locked when read (step 1)."""
    return challenges.select_for_update(skip_locked=skip_locked, of=("self",))


def seek_pool_lock(seek: Seek) -> None:
    """Locks the quick-play pool of `seek` (the same table settings) until the
    transaction ends, so its seeks are paired one at a time (step 1, before any seek)."""
    key = (
        f"seek:{seek.ruleset}:{seek.players}:{seek.turn_seconds}:{seek.buy_in}:{seek.ante}"
        f"{'' if seek.rated else ':casual'}"
    )
    number = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [number])


def seeks_lock(seeks: QuerySet[Seek], *, skip_locked: bool = False) -> QuerySet[Seek]:
    """`seeks`, their rows locked when read (step 1, under the pool's lock to pair)."""
    return seeks.select_for_update(skip_locked=skip_locked, of=("self",))


def chat_messages_lock(messages: QuerySet[ChatMessage]) -> QuerySet[ChatMessage]:
    """`messages`, their rows locked when read (with nothing else locked)."""
    return messages.select_for_update(of=("self",))


def bot_name_try_lock(name: str) -> bool:
    """Whether this transaction now holds `name` (any case) for a new server bot until
    it ends; False at once when another transaction holds it (never waited for)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_try_advisory_xact_lock(%s, hashtext(%s))",
            [BOT_NAME_LOCK_SPACE, name.lower()],
        )
        return cursor.fetchone()[0]
