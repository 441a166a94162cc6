"""`manage.py ledger_check` passes on a sound ledger and reports each broken invariant."""

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from games import stakes
from games.models import Match
from ledger import services
from tests.factories import ActiveMatchFactory
from tests.ledger.conftest import funded_user, ledger_check_output

pytestmark = pytest.mark.django_db


def test_clean_ledger_passes():
    funded_user(300)
    assert "Ledger OK: 300 chips in circulation" in ledger_check_output()


def test_a_drifted_cached_balance_is_reported():
    wallet = services.wallet_for(funded_user(300))
    with connection.cursor() as cursor:  # simulate corruption behind the guards' back
        cursor.execute("SET LOCAL session_replication_role = replica")  # triggers off
        cursor.execute("UPDATE ledger_account SET balance = 301 WHERE id = %s", [wallet.pk])
        cursor.execute("SET LOCAL session_replication_role = origin")
    with pytest.raises(CommandError) as info:
        ledger_check_output()
    assert info.value.returncode == 1
    message = str(info.value)
    assert "invariant" in message


def test_report_names_the_failed_invariants(capsys):
    wallet = services.wallet_for(funded_user(300))
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")  # triggers off
        cursor.execute("UPDATE ledger_account SET balance = 299 WHERE id = %s", [wallet.pk])
        cursor.execute("SET LOCAL session_replication_role = origin")
    with pytest.raises(CommandError):
        call_command("ledger_check")
    err = capsys.readouterr().err
    assert "sum to zero" in err
    assert "every cached balance equals the sum of its transfers" in err
    assert f"id={wallet.pk}" in err and "cached=299" in err and "from_transfers=300" in err


def test_finished_match_with_chips_on_the_table_is_reported(capsys):
    players = [funded_user(100) for _ in range(2)]
    match = ActiveMatchFactory(players=players, buy_in=20)  # the buy-ins are taken
    assert "Ledger OK" in ledger_check_output()  # a match in play holds chips
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    with pytest.raises(CommandError):
        call_command("ledger_check")
    assert "every finished or aborted match has empty pots and stacks" in capsys.readouterr().err
    stakes.match_cash_out(match=match)
    assert "Ledger OK" in ledger_check_output()
