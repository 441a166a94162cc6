"""The house's bankroll (RULES.md 1.8): finite, never minted into, funded by staff
adjustments; `ledger_check` proves it and reads it out."""

import pytest

from ledger import services
from ledger.errors import HouseBankrollInsufficient
from ledger.models import Account, Transfer, TransferKind
from ledger.selectors import circulation, house_balance, house_flows
from tests.factories import UserFactory, fund_house
from tests.ledger.conftest import (
    assert_ledger_clean,
    funded_user,
    ledger_check_failures,
    ledger_check_output,
)

pytestmark = pytest.mark.django_db


def _snapshot() -> tuple:
    return (
        Transfer.objects.count(),
        sorted(Account.objects.values_list("id", "balance")),
    )


def _stack() -> Account:
    return services.scoped_account(
        kind="stack", scope="table:1", ref="seat:1", user_id=UserFactory().pk
    )


def test_an_empty_bankroll_pays_nothing_and_mints_nothing():
    target = _stack()
    services.house_account()  # opened at zero
    before = _snapshot()
    with pytest.raises(HouseBankrollInsufficient) as refused:
        services.pay_from_house(target, 500, kind=TransferKind.BUY_IN, key="stake:1")
    assert refused.value.code == "house_bankroll_insufficient"
    assert refused.value.status == 409
    assert _snapshot() == before  # not a chip moved, not a row written
    assert circulation() == 0 and house_balance() == 0
    assert_ledger_clean()


def test_the_bankroll_pays_what_it_holds_and_refuses_a_chip_more():
    fund_house(700)
    target = _stack()
    paid = services.pay_from_house(target, 500, kind=TransferKind.BUY_IN, key="stake:1")
    assert paid.transfer.debit.kind == "house" and not paid.replayed
    assert house_balance() == 200
    before = _snapshot()
    with pytest.raises(HouseBankrollInsufficient):
        services.pay_from_house(target, 201, kind=TransferKind.BUY_IN, key="stake:2")
    assert _snapshot() == before
    # A replay of a payment made finds it, whatever the bankroll holds now.
    again = services.pay_from_house(target, 500, kind=TransferKind.BUY_IN, key="stake:1")
    assert again.replayed and again.transfer.pk == paid.transfer.pk
    assert circulation() == 700  # only the staff adjustment minted
    assert not Transfer.objects.filter(kind=TransferKind.HOUSE_FUNDING).exists()
    assert_ledger_clean()


def test_a_bot_wallet_is_funded_from_the_bankroll_only():
    bot = UserFactory()
    with pytest.raises(HouseBankrollInsufficient):
        services.bot_funding(user=bot, amount=10)
    fund_house(10)
    services.bot_funding(user=bot, amount=10)
    assert house_balance() == 0 and circulation() == 10


def test_a_staff_adjustment_funds_the_house_on_the_record():
    staff = fund_house(5000)
    [funding] = Transfer.objects.filter(credit__kind="house")
    assert funding.kind == TransferKind.ADJUSTMENT
    assert funding.debit.kind == "issuer"
    assert funding.actor_id == staff.pk and funding.reason == "bankroll"
    assert house_flows() == {"in": {"adjustment": 5000}, "out": {}}


def _minted(capsys, *, debit: Account, credit: Account, amount: int, kind: str) -> str:
    """A transfer the services never make now, written past them; what ledger_check says."""
    services.transfer(
        debit=debit, credit=credit, amount=amount, kind=kind, idempotency_key=f"past:{kind}"
    )
    return ledger_check_failures(capsys)


def test_ledger_check_reads_out_the_bankroll():
    fund_house(900)
    services.pay_from_house(_stack(), 400, kind=TransferKind.BUY_IN, key="stake:1")
    funded_user(300)
    report = ledger_check_output()
    assert "House bankroll: 500 chips." in report
    assert "in: adjustment 900" in report and "out: buy_in 400" in report
    assert "Ledger OK: 1200 chips in circulation" in report


@pytest.mark.parametrize(
    "kind",
    # What `pay_from_house` used to do for a bot's stake; and a mint of an allowed kind
    # that goes anywhere but a wallet.
    [TransferKind.HOUSE_FUNDING, TransferKind.SIGNUP_GRANT],
)
def test_ledger_check_catches_chips_minted_for_the_house(capsys, kind):
    err = _minted(
        capsys,
        debit=services.issuer_account(),
        credit=services.house_account(),
        amount=500,
        kind=kind,
    )
    assert "chips are minted only as signup grants to a wallet and staff adjustments" in err
    assert f"kind={kind}" in err and "amount=500" in err and "credit_kind=house" in err


def test_ledger_check_catches_a_signup_grant_paid_from_the_bankroll(capsys):
    fund_house(100)
    err = _minted(
        capsys,
        debit=services.house_account(),
        credit=services.wallet_for(UserFactory()),
        amount=100,
        kind=TransferKind.SIGNUP_GRANT,
    )
    assert "signup grants come from the issuer, never from the house's bankroll" in err
    assert "debit_kind=house" in err
