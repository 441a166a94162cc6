"""Fixtures for the ledger tests: funded players, the audit."""

import pytest

from ledger import services
from ledger.models import Account
from ledger.selectors import ledger_problems
from tests.factories import UserFactory


def funded_user(chips: int = 1000, **kwargs):
    user = UserFactory(**kwargs)
    if chips:
        services.bot_funding(user=user, amount=chips, idempotency_key=f"test-fund:{user.pk}")
    return user


def balance(account: Account) -> int:
    return Account.objects.values_list("balance", flat=True).get(pk=account.pk)


def assert_ledger_clean() -> None:
    problems = ledger_problems()
    assert problems == [], problems


@pytest.fixture
def players(db) -> list:
    return [funded_user(1000) for _ in range(3)]
