"""Races on the real PostgreSQL: registrations for the last places, stages ending at
once, a cancel among registrations."""

import random
import threading
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from ledger.models import Account, AccountKind, Transfer
from ledger.selectors import wallet_balance
from tests.factories import PlayerFactory, play_match_out
from tests.tournaments.helpers import fill, knockout
from tournaments import money
from tournaments.errors import RegistrationClosed, TournamentFull
from tournaments.models import Entry, Stage, Table, Tournament
from tournaments.services import (
    tournament_advance,
    tournament_cancel,
    tournament_register,
    tournament_start,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _race(calls) -> list:
    """Runs the calls at once, each in its own thread and connection: each result or
    the exception it raised."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait()
            results[i] = call()
        except Exception as exc:
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def _later():
    return timezone.now() + timedelta(hours=1)


def _pool(tournament) -> int:
    return Account.objects.get(
        kind=AccountKind.PRIZE_POOL, scope=money.pool_scope(tournament.pk)
    ).balance


def test_fifty_registrations_for_sixteen_places_let_sixteen_in():
    tournament = knockout(PlayerFactory(), min_entrants=4, max_entrants=16, starts_at=_later())
    players = [PlayerFactory() for _ in range(50)]
    results = _race(
        [lambda p=p: tournament_register(tournament_id=tournament.pk, user=p) for p in players]
    )
    entered = [p for p, r in zip(players, results, strict=True) if isinstance(r, Entry)]
    refused = [p for p, r in zip(players, results, strict=True) if isinstance(r, TournamentFull)]
    assert (len(entered), len(refused)) == (16, 34)
    assert Entry.objects.filter(tournament=tournament, status="registered").count() == 16
    assert _pool(tournament) == 16 * 100
    assert all(wallet_balance(user=p) == 900 for p in entered)
    assert all(wallet_balance(user=p) == 1000 for p in refused)
    assert not Transfer.objects.filter(debit__user__in=[p.pk for p in refused]).exists()
    call_command("ledger_check")


def test_a_stages_last_tables_ending_at_once_build_the_next_stage_once():
    tournament = knockout(PlayerFactory(), min_entrants=8, max_entrants=8)
    fill(tournament, bots=8)
    assert tournament_start(tournament_id=tournament.pk)
    for table in Table.objects.filter(stage__tournament=tournament):
        play_match_out(table.match, random.Random(table.pk))
    results = _race([lambda: tournament_advance(tournament_id=tournament.pk)] * 4)
    assert sorted(results) == [False, False, False, True]
    stages = Stage.objects.filter(tournament=tournament).order_by("number")
    assert [(s.number, s.final, s.tables.count()) for s in stages] == [(1, False, 2), (2, True, 1)]
    assert set(
        Entry.objects.filter(tournament=tournament, place__isnull=False).values_list(
            "place", flat=True
        )
    ) == {5, 6, 7, 8}


def test_a_cancel_among_registrations_refunds_every_entry_exactly():
    staff = PlayerFactory(is_staff=True)
    tournament = knockout(staff, min_entrants=4, max_entrants=64, starts_at=_later(), fee=7)
    early = [PlayerFactory() for _ in range(5)]
    fill(tournament, people=early, bots=3)
    racing = [PlayerFactory() for _ in range(20)]
    results = _race(
        [lambda p=p: tournament_register(tournament_id=tournament.pk, user=p) for p in racing]
        + [
            lambda: tournament_cancel(
                tournament_id=tournament.pk, actor=staff, reason="test", as_moderator=True
            )
        ]
    )
    assert all(isinstance(r, Entry | RegistrationClosed) for r in results[:-1])
    assert results[-1].tournament.status == Tournament.Status.CANCELLED
    for player in early + racing:
        assert wallet_balance(user=player) == 1000
    assert _pool(tournament) == 0
    # Every account (wallets, the house for bots and fees, the pool) is back where it was.
    net: dict[int, int] = {}
    for t in Transfer.objects.filter(scope=money.pool_scope(tournament.pk)):
        net[t.debit_id] = net.get(t.debit_id, 0) - t.amount
        net[t.credit_id] = net.get(t.credit_id, 0) + t.amount
    assert net and set(net.values()) == {0}
    assert not Entry.objects.filter(tournament=tournament, status="registered").exists()
    call_command("ledger_check")
