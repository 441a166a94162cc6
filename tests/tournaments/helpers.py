"""Tournaments made for tests through the services, and their checks."""

from django.core.management import call_command
from django.db.models import Sum

from games.models import Match
from ledger.models import Account, AccountKind, Transfer, TransferKind
from tests.factories import fund_house
from tournaments import money, payouts
from tournaments.models import Entry, Stage, Tournament
from tournaments.services import tournament_add_bot, tournament_create, tournament_register


def knockout(creator, **settings) -> Tournament:
    fields = {
        "name": "Test knockout",
        "format": Tournament.Format.KNOCKOUT,
        "ruleset": "perudo",
        "options": {"dice_per_player": 2},
        "turn_seconds": 30,
        "table_size": 4,
        "advance": 2,
        "buy_in": 100,
        "bots_allowed": True,
        **settings,
    }
    return tournament_create(user=creator, **fields)


def fill(tournament: Tournament, *, people=(), bots: int = 0) -> None:
    for user in people:
        tournament_register(tournament_id=tournament.pk, user=user)
    # With a buy-in the house stakes only the bots that play for chips, from its bankroll,
    # which a moderator funds first; a free tournament seats any bot.
    strategies = (
        ["hard", "hard", "expert"] if tournament.buy_in else ["cautious", "random", "expert"]
    )
    if tournament.buy_in and bots:
        fund_house(tournament.buy_in * bots)
    for i in range(bots):
        tournament_add_bot(
            tournament_id=tournament.pk,
            user=tournament.created_by,
            strategy=strategies[i % len(strategies)],
        )


def assert_finished_and_paid(tournament: Tournament) -> None:
    """Every stage built once with every match over, places 1..n, prizes = the payout
    table of the pool to the chip, the pool empty, the ledger clean."""
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    entries = list(tournament.entries.filter(status=Entry.Status.REGISTERED).order_by("place"))
    assert [e.place for e in entries] == list(range(1, len(entries) + 1))
    stages = list(Stage.objects.filter(tournament=tournament).order_by("number"))
    assert [s.number for s in stages] == list(range(1, len(stages) + 1))
    assert stages[-1].final and all(s.finished_at for s in stages)
    matches = Match.objects.filter(tournament_table__stage__tournament=tournament)
    assert set(matches.values_list("status", flat=True)) == {Match.Status.FINISHED}
    assert tournament.pool == tournament.buy_in * len(entries)
    assert tournament.payout == payouts.payout_table(len(entries))
    expected = payouts.prizes(tournament.pool, tournament.payout)
    paid = [e.prize for e in entries]
    assert paid == expected + [0] * (len(entries) - len(expected))
    assert sum(paid) == tournament.pool
    prizes = Transfer.objects.filter(
        scope=money.pool_scope(tournament.pk), kind=TransferKind.PRIZE
    ).aggregate(total=Sum("amount"))["total"]
    assert prizes == tournament.pool
    pool = Account.objects.get(kind=AccountKind.PRIZE_POOL, scope=money.pool_scope(tournament.pk))
    assert pool.balance == 0
    call_command("ledger_check")
