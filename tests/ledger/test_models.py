"""What the database itself guarantees, whatever the application code does."""

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

from ledger import services
from ledger.errors import InsufficientChips, LedgerImmutable
from ledger.models import Account, AccountKind, Transfer, TransferKind
from tests.factories import UserFactory
from tests.ledger.conftest import assert_ledger_clean, balance, funded_user

pytestmark = pytest.mark.django_db

INSERT = (
    "INSERT INTO ledger_transfer (debit_id, credit_id, amount, kind, idempotency_key, reason,"
    " created_at) VALUES (%s, %s, %s, %s, %s, '', now())"
)


def _raw(sql: str, params=None) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


@pytest.fixture
def grant() -> Transfer:
    user = UserFactory()
    return services.signup_grant(user=user).transfer


def test_raw_sql_update_of_a_transfer_is_refused_by_the_trigger(grant):
    with pytest.raises(IntegrityError, match="append-only: UPDATE refused"):
        _raw("UPDATE ledger_transfer SET amount = 999999 WHERE id = %s", [grant.pk])
    with pytest.raises(IntegrityError, match="append-only"):
        _raw("UPDATE ledger_transfer SET reason = 'edited' WHERE id = %s", [grant.pk])
    assert Transfer.objects.get(pk=grant.pk).amount == grant.amount


def test_raw_sql_delete_of_a_transfer_is_refused_by_the_trigger(grant):
    with pytest.raises(IntegrityError, match="append-only: DELETE refused"):
        _raw("DELETE FROM ledger_transfer WHERE id = %s", [grant.pk])
    with pytest.raises(IntegrityError, match="append-only"):
        _raw("DELETE FROM ledger_transfer")
    assert Transfer.objects.filter(pk=grant.pk).exists()


def test_orm_update_and_delete_of_transfers_are_refused(grant):
    stored = Transfer.objects.get(pk=grant.pk)
    with pytest.raises(LedgerImmutable):
        Transfer.objects.filter(pk=grant.pk).update(amount=1)
    with pytest.raises(LedgerImmutable):
        Transfer.objects.all().delete()
    with pytest.raises(LedgerImmutable):
        stored.delete()
    stored.amount = 1
    with pytest.raises(LedgerImmutable):
        stored.save()
    with pytest.raises(LedgerImmutable), transaction.atomic():
        Transfer.objects.bulk_update([stored], ["amount"])
    assert Transfer.objects.get(pk=grant.pk).amount == grant.amount
    assert LedgerImmutable.code == "ledger_immutable"


def test_balances_cannot_be_edited_directly_at_the_database_or_in_django(grant):
    wallet = Account.objects.get(pk=grant.credit_id)
    with pytest.raises(IntegrityError, match="moves only through transfers"):
        _raw("UPDATE ledger_account SET balance = balance + 1 WHERE id = %s", [wallet.pk])
    with pytest.raises(IntegrityError, match="identity is immutable"):
        _raw("UPDATE ledger_account SET kind = 'house' WHERE id = %s", [wallet.pk])
    with pytest.raises(IntegrityError, match="zero balance"):
        _raw("INSERT INTO ledger_account (kind, balance, created_at) VALUES ('house', 5, now())")
    with pytest.raises(LedgerImmutable):
        Account.objects.filter(pk=wallet.pk).update(balance=5)
    with pytest.raises(LedgerImmutable):
        wallet.save()
    with pytest.raises(LedgerImmutable):
        wallet.delete()
    assert balance(wallet) == 1000


def test_raw_insert_moves_balances_through_the_trigger():
    a, b = funded_user(100), UserFactory()
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    _raw(INSERT, [wa.pk, wb.pk, 30, TransferKind.REFUND, "raw-1"])
    assert (balance(wa), balance(wb)) == (70, 30)
    assert_ledger_clean()


def test_overdraft_fails_at_the_database_without_the_service():
    a, b = funded_user(10), UserFactory()
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    with pytest.raises(IntegrityError) as info:
        _raw(INSERT, [wa.pk, wb.pk, 11, TransferKind.REFUND, "raw-overdraft"])
    assert info.value.__cause__.diag.constraint_name == "ledger_account_balance_non_negative"
    assert (balance(wa), balance(wb)) == (10, 0)
    assert not Transfer.objects.filter(idempotency_key="raw-overdraft").exists()


def test_overdraft_fails_at_the_database_when_the_service_check_is_bypassed(monkeypatch):
    a, b = funded_user(10), UserFactory()
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    # The service now believes every account holds a million more chips than it does.
    monkeypatch.setattr(
        services,
        "_LOCK_PAIR_SQL",
        "SELECT id, kind, balance + 1000000 FROM ledger_account WHERE id IN (%s, %s)"
        " ORDER BY id FOR UPDATE",
    )
    monkeypatch.setattr(services, "_validate", lambda **kwargs: None)
    with pytest.raises(InsufficientChips) as info, transaction.atomic():
        services.transfer(
            debit=wa, credit=wb, amount=500, kind=TransferKind.REFUND, idempotency_key="bypass"
        )
    assert isinstance(info.value.__cause__, IntegrityError)
    assert (balance(wa), balance(wb)) == (10, 0)
    assert not Transfer.objects.filter(idempotency_key="bypass").exists()


def test_a_wrong_balance_after_is_refused_by_the_trigger():
    a, b = funded_user(100), UserFactory()
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    with pytest.raises(IntegrityError, match="stated balances"):
        _raw(
            "INSERT INTO ledger_transfer (debit_id, credit_id, amount, kind, idempotency_key,"
            " reason, created_at, debit_balance_after, credit_balance_after)"
            " VALUES (%s, %s, 5, 'refund', 'lie', '', now(), 95, 6)",
            [wa.pk, wb.pk],
        )
    assert balance(wa) == 100


@pytest.mark.parametrize(
    ("amount", "same", "kind", "reason", "constraint"),
    [
        (0, False, "refund", "", "ledger_transfer_amount_positive"),
        (-5, False, "refund", "", "ledger_transfer_amount_positive"),
        (5, True, "refund", "", "ledger_transfer_distinct_accounts"),
        (5, False, "adjustment", "", "ledger_transfer_adjustment_has_reason_and_actor"),
        (5, False, "free_money", "", "ledger_transfer_kind_valid"),
    ],
)
def test_transfer_check_constraints(amount, same, kind, reason, constraint):
    a, b = funded_user(100), UserFactory()
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    with pytest.raises(IntegrityError) as info:
        _raw(
            "INSERT INTO ledger_transfer (debit_id, credit_id, amount, kind, idempotency_key,"
            " reason, created_at) VALUES (%s, %s, %s, %s, 'k', %s, now())",
            [wa.pk, wa.pk if same else wb.pk, amount, kind, reason],
        )
    assert info.value.__cause__.diag.constraint_name == constraint


def test_idempotency_key_is_unique_at_the_database(grant):
    with pytest.raises(IntegrityError):
        _raw(INSERT, [grant.debit_id, grant.credit_id, 1, "refund", grant.idempotency_key])


def test_one_wallet_per_user_one_house_one_issuer():
    user = UserFactory()
    services.wallet_for(user)
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(kind=AccountKind.WALLET, user=user)
    services.house_account()
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(kind=AccountKind.HOUSE)
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(kind=AccountKind.WALLET)  # a wallet needs its owner


def test_issuer_is_the_only_account_allowed_below_zero():
    services.signup_grant(user=UserFactory(), amount=700)
    issuer = services.issuer_account()
    assert balance(issuer) == -700
    assert balance(services.house_account()) == 0


def test_transfer_model_save_inserts_and_the_trigger_applies_it():
    a, b = funded_user(100), UserFactory()
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    Transfer(
        debit=wa,
        credit=wb,
        amount=7,
        kind="refund",
        idempotency_key="orm",
        created_at=timezone.now(),
    ).save()
    assert (balance(wa), balance(wb)) == (93, 7)
    with pytest.raises(DatabaseError), transaction.atomic():
        Transfer(debit=wb, credit=wa, amount=8, kind="refund", idempotency_key="orm2").save()
    assert (balance(wa), balance(wb)) == (93, 7)


def test_a_trigger_on_another_table_cannot_move_a_balance(grant):
    """Only the transfer trigger may move a balance, not any trigger running nested."""
    with (
        pytest.raises(IntegrityError, match="moves only through transfers"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("CREATE TEMPORARY TABLE sneak (account_id bigint)")
        cursor.execute(
            "CREATE FUNCTION pg_temp.sneak() RETURNS trigger LANGUAGE plpgsql AS $$"
            " BEGIN UPDATE ledger_account SET balance = balance + 1000"
            " WHERE id = NEW.account_id; RETURN NEW; END; $$"
        )
        cursor.execute(
            "CREATE TRIGGER sneak AFTER INSERT ON sneak"
            " FOR EACH ROW EXECUTE FUNCTION pg_temp.sneak()"
        )
        cursor.execute("INSERT INTO sneak VALUES (%s)", [grant.credit_id])
    assert balance(Account.objects.get(pk=grant.credit_id)) == 1000


def test_a_transfer_does_not_leave_balances_open_to_direct_updates():
    a, b = funded_user(100), UserFactory()
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    with (
        pytest.raises(IntegrityError, match="moves only through transfers"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(INSERT, [wa.pk, wb.pk, 30, TransferKind.REFUND, "then-edit"])
        cursor.execute("UPDATE ledger_account SET balance = 0 WHERE id = %s", [wa.pk])
    assert (balance(wa), balance(wb)) == (100, 0)


@pytest.mark.parametrize(
    "sql",
    [
        "TRUNCATE ledger_transfer",
        "TRUNCATE ledger_transfer, ledger_account",
        "TRUNCATE ledger_account CASCADE",
        "TRUNCATE accounts_user CASCADE",
    ],
)
def test_truncate_of_transfers_is_refused_by_the_trigger(grant, sql):
    with (
        pytest.raises(IntegrityError, match="append-only: TRUNCATE refused"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        # The test settings let test teardown flush tables; production never does.
        cursor.execute("SET LOCAL ledger.allow_truncate = 'off'")
        # TRUNCATE refuses tables with pending deferred FK checks (from the fixture).
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(sql)
    assert Transfer.objects.filter(pk=grant.pk).exists()
    assert balance(Account.objects.get(pk=grant.credit_id)) == 1000
