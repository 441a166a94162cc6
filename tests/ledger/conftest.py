"""Fixtures for the ledger tests: funded players, the audit."""

import pytest

from ledger import services
from ledger.models import Account
from ledger.selectors import ledger_problems
from tests.factories import UserFactory


def funded_user(chips: int = 1000, **kwargs):
    """A user holding `chips`, granted at signup (minted: the house's bankroll untouched)."""
    user = UserFactory(**kwargs)
    if chips:
        services.signup_grant(user=user, amount=chips)
    return user


def fund_house(chips: int, *, by=None) -> None:
    """Funds the house's bankroll as a moderator does: a staff adjustment."""
    staff = by or UserFactory(is_staff=True)
    services.adjustment(
        account=services.house_account(), amount=chips, reason="bankroll", actor=staff
    )


def balance(account: Account) -> int:
    return Account.objects.values_list("balance", flat=True).get(pk=account.pk)


def assert_ledger_clean() -> None:
    problems = ledger_problems()
    assert problems == [], problems


@pytest.fixture
def players(db) -> list:
    return [funded_user(1000) for _ in range(3)]
