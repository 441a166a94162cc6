"""Fixtures for the ledger tests: matches with seats, funded players, the audit."""

from collections.abc import Callable

import pytest

from games.models import Match, Seat
from ledger import services
from ledger.models import Account
from ledger.selectors import ledger_problems
from tests.factories import UserFactory


def make_match(players, *, buy_in: int = 50, ante: int = 1, status: str = "active"):
    """A match with one seat per player (seat numbers in order); returns (match, seats)."""
    match = Match.objects.create(
        status=status,
        ruleset="sheet_000",
        family="common_pool",
        rules={},
        created_by=players[0],
        max_players=max(2, len(players)),
        turn_seconds=60,
        buy_in=buy_in,
        ante=ante,
    )
    seats = [Seat.objects.create(match=match, seat=i, player=p) for i, p in enumerate(players)]
    return match, seats


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


@pytest.fixture
def table(players) -> Callable:
    return lambda **kw: make_match(players, **kw)
