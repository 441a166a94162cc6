"""The transfer service and the game's helpers (RULES.md 1.8)."""

import pytest
from django.db import connection, transaction

from accounts.models import User
from accounts.services import user_register
from ledger import services
from ledger.errors import IdempotencyKeyReused, InsufficientChips, InvalidTransfer
from ledger.models import Account, AccountKind, Transfer, TransferKind
from ledger.selectors import circulation, wallet_balance
from tests.factories import UserFactory
from tests.ledger.conftest import assert_ledger_clean, balance, funded_user

pytestmark = pytest.mark.django_db


def _move(debit, credit, amount, key, kind=TransferKind.REFUND, **kw):
    return services.transfer(
        debit=debit, credit=credit, amount=amount, kind=kind, idempotency_key=key, **kw
    )


# --------------------------------------------------------------------------- sign-up


def test_register_grants_signup_chips_naming_the_new_user_as_actor():
    user, _, _ = user_register(username="newcomer", password="a-long-pass-phrase-42")
    assert wallet_balance(user=user) == 1000
    grant = Transfer.objects.get(kind=TransferKind.SIGNUP_GRANT)
    assert grant.credit.user_id == user.pk and grant.debit.kind == AccountKind.ISSUER
    assert grant.actor_id == user.pk and grant.scope == ""
    assert circulation() == 1000
    assert_ledger_clean()


def test_register_grants_signup_chips_in_the_same_transaction():
    """A grant that fails undoes the registration: no user without their chips."""
    someone = funded_user(10)
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence('accounts_user', 'id'))")
        next_user_id = cursor.fetchone()[0] + 1
    # The key the new user's grant will use, already taken by another movement.
    taken = _move(
        services.wallet_for(someone),
        services.house_account(),
        1,
        f"signup_grant:user:{next_user_id}",
    )
    users, transfers = User.objects.count(), Transfer.objects.count()
    accounts = Account.objects.count()
    with pytest.raises(IdempotencyKeyReused):
        user_register(username="unlucky", password="a-long-pass-phrase-42")
    assert not User.objects.filter(username="unlucky").exists()
    assert not User.objects.filter(pk=next_user_id).exists()
    assert (User.objects.count(), Transfer.objects.count()) == (users, transfers)
    assert Account.objects.count() == accounts  # not even the wallet was kept
    assert Transfer.objects.get(pk=taken.pk).debit_id == services.wallet_for(someone).pk
    assert_ledger_clean()


def test_signup_chips_setting_is_honoured(settings):
    settings.SIGNUP_CHIPS = 250
    user, _, _ = user_register(username="frugal", password="a-long-pass-phrase-42")
    assert wallet_balance(user=user) == 250


def test_signup_grant_replay_moves_nothing():
    user = UserFactory()
    first = services.signup_grant(user=user)
    again = services.signup_grant(user=user)
    assert not first.replayed and again.replayed
    assert again.transfer.pk == first.transfer.pk
    assert wallet_balance(user=user) == 1000
    assert Transfer.objects.filter(kind=TransferKind.SIGNUP_GRANT).count() == 1


def test_signup_grants_are_minted_for_wallets_and_never_touch_the_bankroll():
    services.adjustment(
        account=services.house_account(), amount=500, reason="float", actor=UserFactory()
    )
    services.signup_grant(user=UserFactory(), amount=200)  # the house could pay: it does not
    grant = Transfer.objects.get(kind=TransferKind.SIGNUP_GRANT)
    assert grant.debit.kind == AccountKind.ISSUER
    assert balance(services.house_account()) == 500
    assert circulation() == 700
    assert not Transfer.objects.filter(kind=TransferKind.HOUSE_FUNDING).exists()
    assert_ledger_clean()


def test_wallet_balance_is_zero_without_a_wallet():
    assert wallet_balance(user=UserFactory()) == 0


# --------------------------------------------------------------------------- transfer


def test_transfer_moves_chips_and_records_balances_after():
    a, b = funded_user(100), funded_user(5)
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    done = _move(wa, wb, 40, "t1", scope="", round_number=None)
    assert not done.replayed
    assert (wa.balance, wb.balance) == (60, 45)  # updated in place
    assert (balance(wa), balance(wb)) == (60, 45)
    stored = Transfer.objects.get(pk=done.pk)
    assert (stored.debit_balance_after, stored.credit_balance_after) == (60, 45)
    assert_ledger_clean()


def test_replay_with_the_same_payload_returns_the_first_transfer_and_moves_nothing():
    a, b = funded_user(100), UserFactory()
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    first = _move(wa, wb, 40, "same")
    again = _move(wa, wb, 40, "same")
    assert again.replayed and again.pk == first.pk
    assert (balance(wa), balance(wb)) == (60, 40)
    assert Transfer.objects.filter(idempotency_key="same").count() == 1


def test_replay_is_honoured_even_when_the_debit_can_no_longer_pay():
    a, b = funded_user(100), UserFactory()
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    first = _move(wa, wb, 100, "all-in")
    assert _move(wa, wb, 100, "all-in").pk == first.pk


@pytest.mark.parametrize(
    "change",
    [{"amount": 41}, {"kind": TransferKind.BUY_IN}, {"round_number": 3}, {"swap": True}],
)
def test_same_key_with_a_different_payload_is_a_conflict(change):
    a, b = funded_user(100), funded_user(100)
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    _move(wa, wb, 40, "k")
    debit, credit = (wb, wa) if change.pop("swap", False) else (wa, wb)
    kwargs = {"amount": 40, "kind": TransferKind.REFUND, **change}
    with transaction.atomic():
        with pytest.raises(IdempotencyKeyReused) as info:
            _move(debit, credit, kwargs.pop("amount"), "k", **kwargs)
        # Nothing was written, so the caller's transaction is still usable.
        assert Transfer.objects.filter(idempotency_key="k").count() == 1
    assert info.value.code == "idempotency_key_reused" and info.value.status == 422
    assert (balance(wa), balance(wb)) == (60, 140)


def test_insufficient_chips_moves_nothing_and_leaves_the_transaction_usable():
    a, b = funded_user(30), UserFactory()
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    with transaction.atomic():
        with pytest.raises(InsufficientChips) as info:
            _move(wa, wb, 31, "too-much")
        assert not connection.needs_rollback
        _move(wa, wb, 30, "just-enough")
    assert info.value.code == "insufficient_chips" and info.value.status == 409
    assert (balance(wa), balance(wb)) == (0, 30)


@pytest.mark.parametrize("amount", [0, -1, 1.5, True])
def test_invalid_amounts_are_refused(amount):
    a, b = funded_user(30), UserFactory()
    with pytest.raises(InvalidTransfer):
        _move(services.wallet_for(a), services.wallet_for(b), amount, "bad")


def test_same_account_and_missing_key_are_refused():
    wallet = services.wallet_for(funded_user(30))
    with pytest.raises(InvalidTransfer):
        _move(wallet, wallet, 1, "self")
    with pytest.raises(InvalidTransfer):
        _move(wallet, services.house_account(), 1, "")


# --------------------------------------------------------------------------- adjustments


def test_adjustment_needs_a_reason_and_records_its_author():
    admin, player = UserFactory(), funded_user(100)
    wallet = services.wallet_for(player)
    with pytest.raises(InvalidTransfer):
        services.adjustment(account=wallet, amount=10, reason="  ", actor=admin)
    up = services.adjustment(account=wallet, amount=25, reason="lost in outage", actor=admin)
    down = services.adjustment(account=wallet, amount=-5, reason="double payout", actor=admin)
    assert balance(wallet) == 120
    assert up.transfer.actor_id == admin.pk and up.transfer.reason == "lost in outage"
    assert down.transfer.debit_id == wallet.pk
    assert down.transfer.credit_id == services.issuer_account().pk
    with pytest.raises(InsufficientChips):
        services.adjustment(account=wallet, amount=-121, reason="too much", actor=admin)
    assert_ledger_clean()
