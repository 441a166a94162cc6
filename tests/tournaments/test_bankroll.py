"""A tournament's money never needs a mint (RULES.md, "Tournaments"): fees wait in the
tournament's escrow until it is played out, so a refund never draws on the house's
bankroll; the house stakes its bots' entries from the bankroll."""

import random

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction

from ledger import services as ledger
from ledger.errors import HouseBankrollInsufficient
from ledger.models import AccountKind, Transfer, TransferKind
from ledger.selectors import circulation, house_balance, wallet_balance
from tests.factories import PlayerFactory, fund_house, play_match_out
from tournaments import money
from tournaments.models import Table, Tournament
from tournaments.services import (
    tournament_add_bot,
    tournament_advance,
    tournament_cancel,
    tournament_create,
    tournament_register,
    tournament_start,
    tournament_unregister,
)

pytestmark = pytest.mark.django_db


def _sit_and_go(creator, **fields) -> Tournament:
    return tournament_create(
        user=creator,
        name="Fees",
        format=Tournament.Format.SIT_AND_GO,
        ruleset="perudo",
        options={"dice_per_player": 2},
        turn_seconds=30,
        table_size=3,
        buy_in=100,
        fee=10,
        **fields,
    )


def _escrow(tournament: Tournament) -> int:
    return money.escrow_account(tournament).balance


def test_fees_are_held_for_the_house_and_refunded_from_the_escrow():
    """An empty bankroll: the house could refund nothing, yet every fee comes back."""
    staff = PlayerFactory(is_staff=True)
    tournament = _sit_and_go(staff)
    ann, bob = PlayerFactory(), PlayerFactory()
    for person in (ann, bob):
        tournament_register(tournament_id=tournament.pk, user=person)
    assert wallet_balance(user=ann) == 1000 - 110
    assert _escrow(tournament) == 20 and house_balance() == 0
    tournament_unregister(tournament_id=tournament.pk, user=ann)
    assert wallet_balance(user=ann) == 1000 and _escrow(tournament) == 10
    tournament_cancel(tournament_id=tournament.pk, actor=staff, reason="test")
    assert wallet_balance(user=bob) == 1000 and _escrow(tournament) == 0
    assert house_balance() == 0
    assert not Transfer.objects.filter(debit__kind=AccountKind.HOUSE).exists()
    assert circulation() == 3000  # the signup grants, nothing minted since
    call_command("ledger_check")


def test_the_house_earns_the_fees_when_the_tournament_is_played_out():
    staff = PlayerFactory(is_staff=True)
    tournament = _sit_and_go(staff, bots_allowed=True)
    people = [PlayerFactory(), PlayerFactory()]
    for person in people:
        tournament_register(tournament_id=tournament.pk, user=person)
    fund_house(100)  # the bot's buy-in, from the bankroll (a bot pays no fee)
    tournament_add_bot(tournament_id=tournament.pk, user=staff, strategy="hard")
    assert house_balance() == 0 and _escrow(tournament) == 20
    assert tournament_start(tournament_id=tournament.pk)
    assert _escrow(tournament) == 20  # still held while it runs
    (table,) = Table.objects.filter(stage__tournament=tournament).select_related("match")
    play_match_out(table.match, random.Random(5))
    assert tournament_advance(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert _escrow(tournament) == 0
    earned = Transfer.objects.get(kind=TransferKind.ENTRY_FEE, credit__kind=AccountKind.HOUSE)
    assert earned.amount == 20 and earned.debit.kind == AccountKind.ESCROW
    bot_prize = sum(
        Transfer.objects.filter(
            kind=TransferKind.PRIZE, credit__kind=AccountKind.HOUSE
        ).values_list("amount", flat=True)
    )
    assert house_balance() == 20 + bot_prize
    call_command("ledger_check")


def test_ledger_check_catches_fees_left_in_a_closed_tournaments_escrow(capsys):
    staff = PlayerFactory(is_staff=True)
    tournament = _sit_and_go(staff)
    tournament_register(tournament_id=tournament.pk, user=PlayerFactory())
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.CANCELLED)
    with pytest.raises(CommandError):
        call_command("ledger_check")
    err = capsys.readouterr().err
    assert "every finished or cancelled tournament has an empty prize pool and fee escrow" in err
    assert "kind=escrow" in err


def test_a_fee_paid_to_the_house_before_the_escrow_is_refunded_from_the_bankroll():
    """A tournament registering when the bankroll rule came: its fees went to the house,
    which refunds them from its bankroll, never minting (and refuses when it cannot)."""
    tournament = _sit_and_go(PlayerFactory(is_staff=True))
    ann, bob = PlayerFactory(), PlayerFactory()
    entries = [tournament.entries.create(user=person) for person in (ann, bob)]
    for entry in entries:  # as the old code paid a fee: wallet -> house
        ledger.move(
            ledger.wallet_for(entry.user),
            ledger.house_account(),
            10,
            TransferKind.ENTRY_FEE,
            f"tournament_fee:entry:{entry.pk}",
            scope=money.pool_scope(tournament.pk),
        )
    assert money.entries_refund(tournament=tournament, entries=entries[:1]) == {entries[0].pk: 10}
    assert wallet_balance(user=ann) == 1000 and house_balance() == 10
    ledger.bot_funding(user=PlayerFactory(chips=0), amount=10)  # the bankroll spent since
    with pytest.raises(HouseBankrollInsufficient), transaction.atomic():
        money.entries_refund(tournament=tournament, entries=entries[1:])
    assert wallet_balance(user=bob) == 990 and circulation() == 3000
