"""Quick play: a player seeks a table (preset, players, turn time, stakes); seeks that
want the same table are paired, nearest rating first, into a match that starts at once.

Concurrency: seeks of one pool (the same table settings) are paired one at a time,
under a transaction-level advisory lock on the pool, so two seekers arriving together
cannot each miss the other (the second waits, then sees the first committed). Within
it, candidates are locked `FOR UPDATE SKIP LOCKED`: a seek being cancelled or expired
right now is passed over, never waited on. A player has at most one waiting seek (a
unique constraint), and a seek leaves `waiting` once, under its row lock: so a seek is
in at most one match and no player is seated twice from one seek.

Where these locks fall among the others: `locks`, which writes the one order."""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Func, Q
from django.utils import timezone

from accounts.models import Rating, User
from games import engine
from games.errors import AlreadySeeking, SeekClosed, SeekNotFound, rules_error
from games.events import SeekMatched
from games.models import Match, Seek
from games.services.lobby import check_wallet, match_open_full
from games.services.locks import seek_pool_lock, seeks_lock
from games.services.publish import Notice, publish
from ledger.selectors import wallet_balance

DEFAULT_RATING = Rating(mu=25.0, sigma=25.0 / 3.0).rating


def rating_in(user: User, ruleset: str) -> float:
    """`user`'s rating in the preset, the starting one when unrated."""
    row = Rating.objects.filter(user=user, ruleset=ruleset).first()
    return row.rating if row is not None else DEFAULT_RATING


@transaction.atomic
def seek_create(
    *,
    user: User,
    ruleset: str,
    players: int,
    turn_seconds: int,
    buy_in: int = 0,
    ante: int = 0,
    rated: bool = True,
    against_people: bool = False,
) -> Seek:
    """Enters the pool and pairs at once when enough compatible seeks wait: the seek
    comes back `matched` with its match, or `waiting`. A bot's seek meets people only
    when `against_people` (`_company`)."""
    try:
        engine.rules_from_preset(ruleset, {})
    except engine.EngineError as exc:
        raise rules_error(exc) from exc
    check_wallet(user, buy_in)
    now = timezone.now()
    seek = Seek(
        user=user,
        ruleset=ruleset,
        players=players,
        turn_seconds=turn_seconds,
        buy_in=buy_in,
        ante=ante,
        rated=rated,
        against_people=against_people,
        rating=rating_in(user, ruleset),
        created_at=now,
        expires_at=now + timedelta(seconds=settings.SEEK_TTL_SECONDS),
    )
    seek_pool_lock(seek)
    try:
        with transaction.atomic():
            seek.save()
    except IntegrityError as exc:
        raise AlreadySeeking("You have a waiting seek already; cancel it first.") from exc
    _pair(seek)
    return seek


def _company(seek: Seek) -> Q:
    """The seeks `seek` may share a table with. People, and bots that asked for people,
    play together; bots that did not ask play among themselves: so no bot sits with a
    person unless it asked, at a table of any size."""
    with_people = Q(user__is_bot=False) | Q(against_people=True)
    if not seek.user.is_bot or seek.against_people:
        return with_people
    return ~with_people


def _pair(seek: Seek) -> None:
    """Under the pool lock: the `players - 1` waiting seeks nearest in rating, if there
    are that many whose players can still cover the buy-in, join `seek` in a match."""
    candidates = seeks_lock(
        Seek.objects.select_related("user")
        .filter(
            status=Seek.Status.WAITING,
            ruleset=seek.ruleset,
            players=seek.players,
            turn_seconds=seek.turn_seconds,
            buy_in=seek.buy_in,
            ante=seek.ante,
            rated=seek.rated,
            expires_at__gt=timezone.now(),
            user__is_active=True,  # a banned player's seek waits for nobody
        )
        .filter(_company(seek))
        .exclude(pk=seek.pk)
        .annotate(distance=Func(F("rating") - seek.rating, function="ABS"))
        .order_by("distance", "created_at", "id"),
        skip_locked=True,
    )
    chosen: list[Seek] = []
    for candidate in candidates[: 4 * seek.players]:
        if not seek.buy_in or wallet_balance(user=candidate.user) >= seek.buy_in:
            chosen.append(candidate)
        if len(chosen) == seek.players - 1:
            break
    else:
        return
    table = sorted([*chosen, seek], key=lambda s: (s.created_at, s.pk))
    match = _start_match(table)
    for s in table:
        s.status, s.match = Seek.Status.MATCHED, match
    Seek.objects.bulk_update(table, ["status", "match"])
    publish(
        notices=[
            Notice(s.user_id, SeekMatched(seek_id=s.pk, match_id=match.pk, ruleset=match.ruleset))
            for s in table
        ]
    )


def _start_match(table: list[Seek]) -> Match:
    """The longest-waiting seeker opens the table; the rest join; it starts once full."""
    first = table[0]
    return match_open_full(
        players=[s.user for s in table],
        refusal="A paired player can no longer cover the buy-in; try again.",
        ruleset=first.ruleset,
        turn_seconds=first.turn_seconds,
        buy_in=first.buy_in,
        ante=first.ante,
        rated=first.rated,
    )


@transaction.atomic
def seek_cancel(*, seek_id: int, user: User) -> Seek:
    """Withdraws a waiting seek (`seek_closed` once it is matched, cancelled or expired)."""
    seek = seeks_lock(Seek.objects.filter(pk=seek_id, user=user)).first()
    if seek is None:
        raise SeekNotFound(f"No seek {seek_id}.")
    if seek.status != Seek.Status.WAITING:
        raise SeekClosed(f"This seek is {seek.status}.")
    seek.status = Seek.Status.CANCELLED
    seek.save(update_fields=["status"])
    return seek


def seeks_expire(*, now: datetime | None = None, limit: int = 500) -> int:
    """Marks waiting seeks past their time expired (SKIP LOCKED: one being paired or
    cancelled right now is left to that). Returns how many expired."""
    now = now or timezone.now()
    with transaction.atomic():
        due = list(
            seeks_lock(
                Seek.objects.filter(status=Seek.Status.WAITING, expires_at__lte=now),
                skip_locked=True,
            )
            .order_by("id")
            .values_list("pk", flat=True)[:limit]
        )
        return Seek.objects.filter(pk__in=due).update(status=Seek.Status.EXPIRED)
