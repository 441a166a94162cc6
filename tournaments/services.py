"""Tournaments' changes: create, register and unregister, enter a server bot, start,
advance a stage, finish, cancel (docs/RULES.md, "Tournaments").

Every change locks the tournament's row first (`tournament_lock`); the lock order
(`games.services.locks`) puts it before any match, so a stage's tables open under it,
then the ledger's accounts. A match's end never takes it: the end queues
`tournaments.tasks.advance` for after its commit (`table_ended`), and the advance,
under the tournament's lock, builds the next stage only when every table of the
current one has ended and the stage is not built yet (a unique stage number backs
that), so two tables ending at once, a task run twice or a worker killed mid-advance
(its transaction rolled back, the beat's sweep runs it again) build each stage once.
"""

import logging
import math
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from accounts.models import Rating, User
from core import notifications
from core.errors import InvalidInput
from games import engine
from games.errors import rules_error
from games.events import (
    TournamentCancelled,
    TournamentFinished,
    TournamentStarting,
    TournamentTable,
)
from games.models import Match
from games.selectors import match_places
from games.services.bot_players import STRATEGIES, server_bot
from games.services.interventions import abort_locked
from games.services.lobby import match_open_full
from games.services.locks import matches_lock
from games.services.publish import Notice, publish
from games.stakes import house_stake_check
from tournaments import money, payouts
from tournaments.errors import (
    AlreadyRegistered,
    BotsNotAllowed,
    NotRegistered,
    NotTournamentCreator,
    RegistrationClosed,
    TournamentFull,
    TournamentNotFound,
    TournamentOver,
)
from tournaments.models import Entry, Stage, Table, Tournament
from tournaments.notify import CHANNEL

ADVANCE_TASK = "tournaments.tasks.advance"
START_TASK = "tournaments.tasks.start"
MAX_ENTRANTS = 256
# The smallest knockout table: a table of 2 among more entrants could leave a table of 1.
MIN_KNOCKOUT_TABLE = 3
LONGEST_WAIT = timedelta(days=30)
ENDED = (Match.Status.FINISHED, Match.Status.ABORTED)

logger = logging.getLogger(__name__)


def tournament_lock(tournament_id: int, *, skip_locked: bool = False) -> Tournament | None:
    """Locks a tournament's row (first of a tournament change's locks); None when there
    is none or, with `skip_locked`, when another change holds it."""
    return (
        Tournament.objects.select_for_update(skip_locked=skip_locked)
        .filter(pk=tournament_id)
        .first()
    )


def _locked(tournament_id: int) -> Tournament:
    tournament = tournament_lock(tournament_id)
    if tournament is None:
        raise TournamentNotFound(f"No tournament {tournament_id}.")
    return tournament


def _after_commit(task: str, tournament_id: int) -> None:
    transaction.on_commit(lambda: current_app.send_task(task, args=(tournament_id,)), robust=True)


def _changed(tournament: Tournament, fields: list[str]) -> None:
    """Saves `fields` with a new version and wakes the tournament's spectators when
    the transaction commits."""
    tournament.version += 1
    tournament.save(update_fields=[*fields, "version"])
    notifications.notify(CHANNEL, tournament.pk)


# --------------------------------------------------------------------------- create


def _invalid(field: str, message: str) -> InvalidInput:
    return InvalidInput({field: [message]})


@transaction.atomic
def tournament_create(
    *,
    user: User,
    name: str,
    format: str,
    ruleset: str,
    options: dict[str, Any] | None = None,
    turn_seconds: int,
    table_size: int,
    advance: int | None = None,
    seeding: str = Tournament.Seeding.RATING,
    min_entrants: int | None = None,
    max_entrants: int | None = None,
    starts_at: datetime | None = None,
    buy_in: int = 0,
    fee: int = 0,
    bots_allowed: bool = False,
    rated: bool = False,
    on_timeout: str = Match.TimeoutPolicy.AUTO,
    max_timeouts: int = 3,
) -> Tournament:
    """A tournament open for registration. Any player may create one; only staff may
    set a fee (held for the house until the tournament is played out). A sit-and-go
    seats `table_size` entrants and starts when full; a knockout takes `min_entrants` to
    `max_entrants`."""
    try:
        # Only checked: each table is made from the preset and the options again.
        engine.rules_from_preset(ruleset, options or {})
    except engine.EngineError as exc:
        raise rules_error(exc) from exc
    if fee and not user.is_staff:
        raise _invalid("fee", "Only staff may set a fee.")
    if format == Tournament.Format.SIT_AND_GO:
        if starts_at is not None:
            raise _invalid("starts_at", "A sit-and-go starts when its table is full.")
        given = {"advance": advance, "min_entrants": min_entrants, "max_entrants": max_entrants}
        for field, value in given.items():
            if value is not None:
                raise _invalid(field, f"A sit-and-go is one table of table_size: no {field}.")
        min_entrants = max_entrants = table_size
        advance = 1
    else:
        advance = 1 if advance is None else advance
        if table_size < MIN_KNOCKOUT_TABLE:
            raise _invalid("table_size", f"A knockout's tables seat {MIN_KNOCKOUT_TABLE} to 8.")
        if not 1 <= advance < table_size:
            raise _invalid("advance", "From 1 to one less than the table size advance.")
        max_entrants = max_entrants or MAX_ENTRANTS
        min_entrants = min_entrants or 2
        if not 2 <= min_entrants <= max_entrants <= MAX_ENTRANTS:
            raise _invalid("min_entrants", f"2 <= min_entrants <= max_entrants <= {MAX_ENTRANTS}.")
        now = timezone.now()
        if starts_at is not None and not now < starts_at <= now + LONGEST_WAIT:
            raise _invalid("starts_at", "A start time within the next 30 days.")
    return Tournament.objects.create(
        name=name,
        format=format,
        created_by=user,
        ruleset=ruleset,
        options=options or {},
        turn_seconds=turn_seconds,
        on_timeout=on_timeout,
        max_timeouts=max_timeouts,
        rated=rated,
        table_size=table_size,
        advance=advance,
        seeding=seeding,
        min_entrants=min_entrants,
        max_entrants=max_entrants,
        starts_at=starts_at,
        buy_in=buy_in,
        fee=fee,
        bots_allowed=bots_allowed,
    )


# --------------------------------------------------------------------------- entries


def _registered(tournament: Tournament):
    return tournament.entries.filter(status=Entry.Status.REGISTERED)


def _enter(tournament: Tournament, user: User) -> Entry:
    """Adds `user` under the tournament's lock and takes their buy-in (nothing stays
    when their wallet cannot cover it: the caller's transaction rolls back)."""
    if tournament.status != Tournament.Status.REGISTERING:
        raise RegistrationClosed(f"Tournament {tournament.pk} is {tournament.status}.")
    entrants = _registered(tournament)
    if entrants.filter(user=user).exists():
        raise AlreadyRegistered("You are registered already.")
    if entrants.count() >= tournament.max_entrants:
        raise TournamentFull(f"All {tournament.max_entrants} places are taken.")
    entry = Entry.objects.create(tournament=tournament, user=user)
    money.entry_pay(tournament=tournament, entry=entry)
    _changed(tournament, [])
    if _ready(tournament, entrants.count()):
        _after_commit(START_TASK, tournament.pk)
    return entry


@transaction.atomic
def tournament_register(*, tournament_id: int, user: User) -> Entry:
    """`user` enters, paying the buy-in (and fee) into the pool; a bot account only
    where the creator allows bots. The entry that fills a sit-and-go (or reaches a
    knockout's minimum, without a start time) queues the start."""
    tournament = _locked(tournament_id)
    if user.is_bot and not tournament.bots_allowed:
        raise BotsNotAllowed("This tournament admits no bots.")
    return _enter(tournament, user)


@transaction.atomic
def tournament_add_bot(*, tournament_id: int, user: User, strategy: str) -> Entry:
    """The creator enters one of the server's bots: the house pays its buy-in from its
    bankroll, for a bot it stakes (`games.stakes.house_stake_check`)."""
    tournament = _locked(tournament_id)
    if tournament.created_by_id != user.pk:
        raise NotTournamentCreator("Only the tournament's creator can enter bots.")
    if not tournament.bots_allowed:
        raise BotsNotAllowed("This tournament admits no bots.")
    if strategy not in STRATEGIES:
        raise _invalid("strategy", f"One of {', '.join(STRATEGIES)}.")
    house_stake_check(strategy=strategy, amount=tournament.buy_in)
    bot = server_bot(strategy, excluding=_registered(tournament).values("user_id"))
    return _enter(tournament, bot)


@transaction.atomic
def tournament_unregister(*, tournament_id: int, user: User) -> Entry:
    """`user` withdraws before the start and gets back exactly what they paid."""
    tournament = _locked(tournament_id)
    if tournament.status != Tournament.Status.REGISTERING:
        raise RegistrationClosed(f"Tournament {tournament.pk} is {tournament.status}.")
    entry = _registered(tournament).filter(user=user).select_related("user").first()
    if entry is None:
        raise NotRegistered("You are not registered.")
    entry.status = Entry.Status.WITHDRAWN
    entry.save(update_fields=["status"])
    money.entries_refund(tournament=tournament, entries=[entry], actor=user)
    _changed(tournament, [])
    return entry


# --------------------------------------------------------------------------- start


def _ready(tournament: Tournament, entrants: int) -> bool:
    """Whether registration is over: full, the minimum reached without a start time,
    or the start time come."""
    if entrants >= tournament.max_entrants:
        return True
    if tournament.starts_at is None:
        return tournament.format == Tournament.Format.KNOCKOUT and (
            entrants >= tournament.min_entrants
        )
    return tournament.starts_at <= timezone.now()


@transaction.atomic
def tournament_start(*, tournament_id: int, skip_locked: bool = False) -> bool:
    """Starts a tournament whose registration is over (`_ready`): seeds the entrants,
    fixes the pool and its payout table, and opens stage 1. At its start time short of
    `min_entrants` it is cancelled with refunds instead. False when there is nothing to
    do (not ready, started already, or, with `skip_locked`, another change holds it:
    the sweep comes back)."""
    tournament = tournament_lock(tournament_id, skip_locked=skip_locked)
    if tournament is None or tournament.status != Tournament.Status.REGISTERING:
        return False
    entries = list(_registered(tournament).select_related("user"))
    if not _ready(tournament, len(entries)):
        return False
    if len(entries) < tournament.min_entrants:
        _cancel_locked(tournament, actor=None, reason="too few entrants")
        return True
    for number, entry in enumerate(_seeded(tournament, entries), start=1):
        entry.seed = number
    Entry.objects.bulk_update(entries, ["seed"])
    entries.sort(key=lambda e: e.seed)
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = timezone.now()
    tournament.pool = money.pool_balance(tournament)
    tournament.payout = payouts.payout_table(len(entries))
    _changed(tournament, ["status", "started_at", "pool", "payout"])
    publish(
        notices=[
            Notice(
                e.user_id,
                TournamentStarting(
                    tournament_id=tournament.pk,
                    name=tournament.name,
                    entrants=len(entries),
                    pool=tournament.pool,
                ),
            )
            for e in entries
            if not e.user.bot_strategy
        ]
    )
    _stage_build(tournament, 1, entries)
    return True


def _seeded(tournament: Tournament, entries: list[Entry]) -> list[Entry]:
    """The entries strongest first (their rating in the tournament's preset, else over
    every preset; earlier registration breaks ties), or in a random draw."""
    if tournament.seeding == Tournament.Seeding.RANDOM:
        drawn = list(entries)
        secrets.SystemRandom().shuffle(drawn)
        return drawn
    in_preset = {
        r.user_id: r.mu - 3 * r.sigma
        for r in Rating.objects.filter(
            ruleset=tournament.ruleset, user__in=[e.user_id for e in entries]
        )
    }
    return sorted(entries, key=lambda e: (-in_preset.get(e.user_id, e.user.rating), e.pk))


# --------------------------------------------------------------------------- stages


def table_sizes(entrants: int, table_size: int) -> list[int]:
    """How many sit at each table of a stage of `entrants`: as few tables as seat them
    all at `table_size` at most, their sizes differing by one at most."""
    tables = math.ceil(entrants / table_size)
    base, extra = divmod(entrants, tables)
    return [base + 1 if i < extra else base for i in range(tables)]


def _stage_build(tournament: Tournament, number: int, entries: list[Entry]) -> None:
    """Stage `number` for `entries` (in seed order): one final table when they fit at
    one, else tables dealt in a snake by seed (1 2 3 3 2 1 ...), each opened and
    started. A banned entrant sits at no table: out at this stage, below the rest."""
    playing = [e for e in entries if e.user.is_active]
    left_out = [e for e in entries if not e.user.is_active]
    if len(playing) < 2:
        _finish(tournament, number, ranked=[[e] for e in playing + left_out])
        return
    final = len(playing) <= tournament.table_size
    stage = Stage.objects.create(tournament=tournament, number=number, final=final)
    sizes = [len(playing)] if final else table_sizes(len(playing), tournament.table_size)
    seated: list[list[Entry]] = [[] for _ in sizes]
    order = _snake(sizes)
    for entry, table_index in zip(playing, order, strict=True):
        seated[table_index].append(entry)
    notices = []
    for index, table_entries in enumerate(seated, start=1):
        match = match_open_full(
            players=[e.user for e in table_entries],
            refusal="A tournament table did not open.",
            ruleset=tournament.ruleset,
            options=tournament.options,
            turn_seconds=tournament.turn_seconds,
            rated=tournament.rated,
            on_timeout=tournament.on_timeout,
            max_timeouts=tournament.max_timeouts,
        )
        advance = 0 if final else min(tournament.advance, len(table_entries) - 1)
        Table.objects.create(stage=stage, number=index, match=match, advance=advance)
        notices += [
            Notice(
                seat.player_id,
                TournamentTable(
                    tournament_id=tournament.pk,
                    stage=number,
                    final=final,
                    match_id=match.pk,
                    seat=seat.seat,
                ),
            )
            for seat in match.seats.select_related("player")
            if not seat.player.bot_strategy
        ]
    publish(notices=notices)
    if left_out:
        _place(left_out, first=len(entries) - len(left_out) + 1, stage=number)


def _snake(sizes: list[int]) -> list[int]:
    """The table of each seed in turn: across the tables, then back, skipping full ones."""
    order: list[int] = []
    left = list(sizes)
    forward = True
    while any(left):
        indexes = range(len(sizes)) if forward else range(len(sizes) - 1, -1, -1)
        for i in indexes:
            if left[i]:
                order.append(i)
                left[i] -= 1
        forward = not forward
    return order


def _place(entries: list[Entry], *, first: int, stage: int) -> None:
    for place, entry in enumerate(entries, start=first):
        entry.place, entry.last_stage = place, stage
    Entry.objects.bulk_update(entries, ["place", "last_stage"])


def _table_ranking(table: Table, by_user: dict[int, Entry]) -> list[Entry]:
    """The table's entrants best first: by their place in its match, then by seed (an
    aborted table, which placed nobody, by seed alone)."""
    places = match_places(table.match)
    seats = list(table.match.seats.all())
    worst = len(seats) + 1
    return [
        by_user[seat.player_id]
        for seat in sorted(
            seats, key=lambda s: (places.get(s.seat, worst), by_user[s.player_id].seed)
        )
    ]


@transaction.atomic
def tournament_advance(*, tournament_id: int, skip_locked: bool = False) -> bool:
    """When every table of the current stage has ended: places who went out, and builds
    the next stage, or, after the final, places everyone and pays the prizes. False
    when there is nothing to do now (a table still plays, the stage is done already,
    or, with `skip_locked`, another change holds the tournament: the sweep comes back).
    Without it, the advance queued by one table's end waits for the one queued by
    another's, then sees both tables ended."""
    tournament = tournament_lock(tournament_id, skip_locked=skip_locked)
    if tournament is None or tournament.status != Tournament.Status.RUNNING:
        return False
    stage = tournament.stages.order_by("-number").first()
    if stage is None or stage.finished_at is not None:
        return False
    tables = list(stage.tables.select_related("match").order_by("number"))
    if any(t.match.status not in ENDED for t in tables):
        return False
    by_user = {
        e.user_id: e
        for e in _registered(tournament).filter(place__isnull=True).select_related("user")
    }
    rankings = [(t, _table_ranking(t, by_user)) for t in tables]
    stage.finished_at = timezone.now()
    stage.save(update_fields=["finished_at"])
    if stage.final:
        _finish(tournament, stage.number, ranked=[[e] for e in rankings[0][1]])
        return True
    going_on = sorted(
        (e for table, ranking in rankings for e in ranking[: table.advance]),
        key=lambda e: e.seed,
    )
    out = sorted(
        (
            (position, e.seed, e)
            for table, ranking in rankings
            for position, e in enumerate(ranking)
            if position >= table.advance
        ),
        key=lambda item: item[:2],
    )
    _place([e for *_, e in out], first=len(by_user) - len(out) + 1, stage=stage.number)
    _changed(tournament, [])
    _stage_build(tournament, stage.number + 1, going_on)
    return True


def _finish(tournament: Tournament, stage_number: int, *, ranked: list[list[Entry]]) -> None:
    """Places the last entrants 1, 2, ... and pays the pool by the payout table; the
    house earns the entries' fees now that the tournament was played out."""
    last = [group[0] for group in ranked]
    _place(last, first=1, stage=stage_number)
    entries = list(_registered(tournament).select_related("user").order_by("place"))
    amounts = payouts.prizes(money.pool_balance(tournament), tournament.payout)
    for entry in entries:
        entry.prize = amounts[entry.place - 1] if entry.place <= len(amounts) else 0
    Entry.objects.bulk_update(entries, ["prize"])
    money.prizes_pay(tournament=tournament, winners=[(e, e.prize) for e in entries])
    money.fees_collect(tournament=tournament)
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = timezone.now()
    _changed(tournament, ["status", "finished_at"])
    publish(
        notices=[
            Notice(
                e.user_id,
                TournamentFinished(tournament_id=tournament.pk, place=e.place, prize=e.prize),
            )
            for e in entries
            if not e.user.bot_strategy
        ]
    )


# --------------------------------------------------------------------------- cancel


@dataclass(frozen=True)
class TournamentCancelledResult:
    tournament: Tournament
    status_before: str
    refunded: int
    matches_aborted: list[int]


@transaction.atomic
def tournament_cancel(
    *, tournament_id: int, actor: User, reason: str, as_moderator: bool = False
) -> TournamentCancelledResult:
    """Cancels a tournament that is not over, refunding every entry exactly (its tables
    still playing aborted). The creator may cancel theirs before the start; a moderator
    (`as_moderator`, moderation checks and audits it) at any time before the end."""
    tournament = _locked(tournament_id)
    if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        raise TournamentOver(f"Tournament {tournament.pk} is {tournament.status}.")
    if not as_moderator:
        if tournament.created_by_id != actor.pk:
            raise NotTournamentCreator("Only the tournament's creator can cancel it.")
        if tournament.status != Tournament.Status.REGISTERING:
            raise RegistrationClosed("A running tournament is cancelled by a moderator only.")
    was = tournament.status
    refunded, aborted = _cancel_locked(tournament, actor=actor, reason=reason)
    return TournamentCancelledResult(tournament, was, refunded, aborted)


def _cancel_locked(
    tournament: Tournament, *, actor: User | None, reason: str
) -> tuple[int, list[int]]:
    playing = Match.objects.filter(
        tournament_table__stage__tournament=tournament,
        status__in=(Match.Status.OPEN, Match.Status.ACTIVE),
    ).values_list("pk", flat=True)
    aborted = []
    for match in matches_lock(playing):
        if match.status in (Match.Status.OPEN, Match.Status.ACTIVE):
            abort_locked(match, actor=actor, reason="the tournament was cancelled")
            aborted.append(match.pk)
    entries = list(_registered(tournament).select_related("user"))
    refunds = money.entries_refund(tournament=tournament, entries=entries, actor=actor)
    for entry in entries:
        entry.status = Entry.Status.REFUNDED
    Entry.objects.bulk_update(entries, ["status"])
    tournament.status = Tournament.Status.CANCELLED
    tournament.finished_at = timezone.now()
    tournament.cancel_reason = reason[:200]
    _changed(tournament, ["status", "finished_at", "cancel_reason"])
    publish(
        notices=[
            Notice(
                e.user_id,
                TournamentCancelled(
                    tournament_id=tournament.pk,
                    reason=tournament.cancel_reason,
                    refund=refunds[e.pk],
                ),
            )
            for e in entries
            if not e.user.bot_strategy
        ]
    )
    return sum(refunds.values()), aborted


# --------------------------------------------------------------------------- follow-ups


def table_abort_veto(match: Match) -> str | None:
    """`games.services.endings` asks this before an abort by agreement: a tournament's
    table is played for its places and prizes (an aborted one places its players by
    seed), so only a moderator aborts it."""
    if Table.objects.filter(match_id=match.pk).exists():
        return "A tournament's table is played out: only a moderator can abort it."
    return None


def table_ended(match: Match) -> None:
    """`games.services.publish` calls this in the transaction that ends any match: for
    a tournament's table, the advance is queued for after its commit."""
    tournament_id = (
        Table.objects.filter(match_id=match.pk)
        .values_list("stage__tournament_id", flat=True)
        .first()
    )
    if tournament_id is not None:
        _after_commit(ADVANCE_TASK, tournament_id)


def tournaments_sweep() -> int:
    """The beat's round: starts what is ready (or cancels it, short of entrants at its
    time) and advances running tournaments whose stage has ended (a lost or killed
    advance is done here). Returns how many changed."""
    now = timezone.now()
    registering = (
        Tournament.objects.filter(status=Tournament.Status.REGISTERING)
        .annotate(entrants=Count("entries", filter=Q(entries__status=Entry.Status.REGISTERED)))
        .filter(
            Q(starts_at__lte=now)
            | Q(entrants__gte=F("max_entrants"))
            | Q(
                starts_at__isnull=True,
                format=Tournament.Format.KNOCKOUT,
                entrants__gte=F("min_entrants"),
            )
        )
        .values_list("pk", flat=True)
    )
    changed = _each(tournament_start, list(registering))
    ended_stages = (
        Stage.objects.filter(tournament__status=Tournament.Status.RUNNING, finished_at__isnull=True)
        .exclude(tables__match__status__in=(Match.Status.OPEN, Match.Status.ACTIVE))
        .values_list("tournament_id", flat=True)
    )
    changed += _each(tournament_advance, list(ended_stages))
    return changed


def _each(step: Any, tournament_ids: list[int]) -> int:
    """Runs `step` (its own transaction) on each tournament; one that fails is logged and
    left for the next sweep, never holding up the others."""
    changed = 0
    for pk in tournament_ids:
        try:
            changed += step(tournament_id=pk, skip_locked=True)
        except Exception:
            logger.exception("tournament %s: %s failed; the next sweep retries", pk, step.__name__)
    return changed
