"""Reads for tournaments: lists, the detail with entrants, stages, tables and standings,
and the payout table. Everything here is public (a tournament has no hidden part): who
entered, where they sit, their places and prizes; never a balance."""

from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet

from accounts.models import User
from games.services.table import player_ref
from tournaments import payouts
from tournaments.errors import TournamentNotFound
from tournaments.models import Entry, Stage, Table, Tournament

_REGISTERED = Q(entries__status=Entry.Status.REGISTERED)


def tournament_list(
    *, user: User, status: str | None = None, format: str | None = None, mine: bool = False
) -> QuerySet[Tournament]:
    """Tournaments newest first, with their entrant counts; `mine` only those `user`
    entered (and has not withdrawn from)."""
    found = (
        Tournament.objects.select_related("created_by")
        .annotate(entrant_count=Count("entries", filter=_REGISTERED))
        .order_by("-id")
    )
    if status:
        found = found.filter(status=status)
    if format:
        found = found.filter(format=format)
    if mine:
        found = found.filter(
            pk__in=Entry.objects.filter(user=user, status=Entry.Status.REGISTERED).values(
                "tournament_id"
            )
        )
    return found


def tournament_get(*, tournament_id: int) -> Tournament:
    found = (
        Tournament.objects.select_related("created_by")
        .annotate(entrant_count=Count("entries", filter=_REGISTERED))
        .filter(pk=tournament_id)
        .first()
    )
    if found is None:
        raise TournamentNotFound(f"No tournament {tournament_id}.")
    return found


def payout_for(tournament: Tournament) -> dict[str, Any]:
    """The payout table: fixed at the start (with the pool's chips per place); before,
    the table for the entrants so far (at least the minimum), as it stands."""
    entrants = tournament.entrant_count
    if tournament.status == Tournament.Status.REGISTERING:
        shares = payouts.payout_table(max(entrants, tournament.min_entrants))
        pool = entrants * tournament.buy_in
        fixed = False
    else:
        shares, pool, fixed = tournament.payout, tournament.pool, True
    amounts = payouts.prizes(pool, shares) if shares else []
    return {
        "fixed": fixed,
        "entrants": entrants,
        "pool": pool,
        "places": [
            {"place": place, "share_bp": share, "prize": prize}
            for place, (share, prize) in enumerate(zip(shares, amounts, strict=True), start=1)
        ],
        "remainder_rule": "Each prize is the pool times its share, rounded down; the "
        "chips left over go to first place.",
    }


def tournament_summary(tournament: Tournament) -> dict[str, Any]:
    return {
        "id": tournament.pk,
        "name": tournament.name,
        "format": tournament.format,
        "status": tournament.status,
        "created_by": player_ref(tournament.created_by),
        "ruleset": tournament.ruleset,
        "options": tournament.options,
        "turn_seconds": tournament.turn_seconds,
        "on_timeout": tournament.on_timeout,
        "max_timeouts": tournament.max_timeouts,
        "rated": tournament.rated,
        "table_size": tournament.table_size,
        "advance": tournament.advance,
        "seeding": tournament.seeding,
        "min_entrants": tournament.min_entrants,
        "max_entrants": tournament.max_entrants,
        "entrant_count": tournament.entrant_count,
        "starts_at": tournament.starts_at,
        "buy_in": tournament.buy_in,
        "fee": tournament.fee,
        "bots_allowed": tournament.bots_allowed,
        "pool": tournament.pool,
        "version": tournament.version,
        "cancel_reason": tournament.cancel_reason,
        "created_at": tournament.created_at,
        "started_at": tournament.started_at,
        "finished_at": tournament.finished_at,
    }


def tournament_detail(tournament: Tournament) -> dict[str, Any]:
    """The summary with its standings (entrants placed first by place, then those still
    playing by seed, then by registration), its stages and tables, and its payout."""
    entries = list(tournament.entries.filter(status=Entry.Status.REGISTERED).select_related("user"))
    entries.sort(key=lambda e: (e.place is None, e.place or 0, e.seed is None, e.seed or 0, e.pk))
    stages = Stage.objects.filter(tournament=tournament).prefetch_related(
        Prefetch(
            "tables",
            Table.objects.select_related("match").prefetch_related("match__seats__player"),
        )
    )
    return {
        **tournament_summary(tournament),
        "standings": [
            {
                "player": player_ref(e.user),
                "seed": e.seed,
                "place": e.place,
                "prize": e.prize,
                "out_in_stage": e.last_stage if e.place is not None else None,
            }
            for e in entries
        ],
        "stages": [
            {
                "number": stage.number,
                "final": stage.final,
                "finished": stage.finished_at is not None,
                "tables": [
                    {
                        "number": table.number,
                        "match_id": table.match_id,
                        "status": table.match.status,
                        "advance": table.advance,
                        "players": [player_ref(s.player) for s in table.match.seats.all()],
                    }
                    for table in stage.tables.all()
                ],
            }
            for stage in stages
        ],
        "payout": payout_for(tournament),
    }
