"""Fixtures for the ledger tests: funded players, the audit."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

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


def balance(account: Account) -> int:
    return Account.objects.values_list("balance", flat=True).get(pk=account.pk)


def ledger_check_output() -> str:
    """What `manage.py ledger_check` prints on a ledger that passes."""
    out = StringIO()
    call_command("ledger_check", stdout=out, stderr=out)
    return out.getvalue()


def ledger_check_failures(capsys) -> str:
    """What `manage.py ledger_check` reports on a ledger that fails (it must)."""
    with pytest.raises(CommandError):
        call_command("ledger_check")
    return capsys.readouterr().err


def assert_ledger_clean() -> None:
    problems = ledger_problems()
    assert problems == [], problems


@pytest.fixture
def players(db) -> list:
    return [funded_user(1000) for _ in range(3)]
