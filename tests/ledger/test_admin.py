"""The admin: read-only ledger, and "Adjust chips" with a mandatory reason."""

import pytest
from django.urls import reverse

from games import stakes
from ledger import services
from ledger.models import Account, Transfer, TransferKind
from tests.factories import LobbyFactory, UserFactory
from tests.ledger.conftest import assert_ledger_clean, balance, funded_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    admin = UserFactory(username="boss", is_staff=True, is_superuser=True)
    client.force_login(admin)
    client.admin = admin
    return client


@pytest.fixture
def wallet():
    return services.wallet_for(funded_user(100, username="alice"))


def test_changelists_load_and_search(admin_client, wallet):
    for url in ("admin:ledger_account_changelist", "admin:ledger_transfer_changelist"):
        for query in ("", "?q=alice", "?q=signup_grant", f"?q={wallet.pk}"):
            response = admin_client.get(reverse(url) + query)
            assert response.status_code == 200, (url, query)
    changelist = reverse("admin:ledger_transfer_changelist")
    assert admin_client.get(changelist + "?q=alice").context["cl"].result_count == 1
    assert admin_client.get(changelist + "?q=zed").context["cl"].result_count == 0
    assert admin_client.get(changelist + "?q=signup_grant").context["cl"].result_count == 1
    assert admin_client.get(changelist + "?q=house_funding").context["cl"].result_count == 0


def test_no_admin_path_edits_or_deletes_a_transfer(admin_client, wallet):
    transfer = Transfer.objects.get(credit=wallet)
    change = reverse("admin:ledger_transfer_change", args=[transfer.pk])
    assert admin_client.get(change).status_code == 200  # view only
    admin_client.post(change, {"amount": 1, "kind": "refund"})
    assert admin_client.get(reverse("admin:ledger_transfer_add")).status_code == 403
    delete = reverse("admin:ledger_transfer_delete", args=[transfer.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    admin_client.post(
        reverse("admin:ledger_transfer_changelist"),
        {"action": "delete_selected", "_selected_action": [transfer.pk], "post": "yes"},
    )
    assert Transfer.objects.get(pk=transfer.pk).amount == 100
    page = admin_client.get(reverse("admin:ledger_transfer_changelist")).content
    assert b"delete_selected" not in page


def test_adjust_chips_requires_a_reason(admin_client, wallet):
    url = reverse("admin:ledger_account_adjust", args=[wallet.pk])
    assert admin_client.get(url).status_code == 200
    response = admin_client.post(url, {"amount": 25, "reason": "   ", "idempotency_key": "a1"})
    assert response.status_code == 200 and b"required" in response.content
    assert not Transfer.objects.filter(kind=TransferKind.ADJUSTMENT).exists()
    assert balance(wallet) == 100


def test_adjust_chips_records_a_compensating_transfer(admin_client, wallet):
    url = reverse("admin:ledger_account_adjust", args=[wallet.pk])
    data = {"amount": -30, "reason": "refund chargeback", "idempotency_key": "a2"}
    response = admin_client.post(url, data)
    assert response.status_code == 302
    admin_client.post(url, data)  # a double submit moves nothing more
    adjustment = Transfer.objects.get(kind=TransferKind.ADJUSTMENT)
    assert adjustment.actor == admin_client.admin
    assert adjustment.reason == "refund chargeback"
    assert adjustment.debit_id == wallet.pk and adjustment.amount == 30
    assert balance(wallet) == 70
    assert_ledger_clean()


def test_adjust_below_zero_is_refused_in_the_form(admin_client, wallet):
    url = reverse("admin:ledger_account_adjust", args=[wallet.pk])
    response = admin_client.post(url, {"amount": -101, "reason": "x", "idempotency_key": "a3"})
    assert response.status_code == 200 and b"holds 100 chips" in response.content
    assert balance(wallet) == 100


def test_the_action_leads_to_the_adjust_form(admin_client, wallet):
    response = admin_client.post(
        reverse("admin:ledger_account_changelist"),
        {"action": "adjust_chips", "_selected_action": [wallet.pk]},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:ledger_account_adjust", args=[wallet.pk])


def test_staff_without_permission_cannot_adjust(client, wallet):
    client.force_login(UserFactory(is_staff=True))
    url = reverse("admin:ledger_account_adjust", args=[wallet.pk])
    assert (
        client.post(url, {"amount": 5, "reason": "x", "idempotency_key": "a4"}).status_code == 403
    )
    assert balance(wallet) == 100
    assert Account.objects.count() >= 1


def test_only_wallets_and_the_house_are_adjusted(admin_client, players):
    match = LobbyFactory(players=players, buy_in=50, ante=1)
    seats = list(match.seats.order_by("seat"))
    stakes.buy_ins(seats=seats, amount=50)
    stakes.ante_round(match=match, round_number=1, seats=seats, ante=1)
    stack = stakes.stack_for(seats[0])
    pots = stakes.pots_for(match)
    for account in (stack, pots.round, pots.game, services.issuer_account()):
        url = reverse("admin:ledger_account_adjust", args=[account.pk])
        page = admin_client.get(url)
        assert page.status_code == 400 and b'name="amount"' not in page.content
        response = admin_client.post(
            url, {"amount": -1, "reason": "fix", "idempotency_key": f"k{account.pk}"}
        )
        assert response.status_code == 400
        assert b"Only wallets and the house" in response.content
    assert not Transfer.objects.filter(kind=TransferKind.ADJUSTMENT).exists()
    house = services.house_account()
    before = balance(house)
    url = reverse("admin:ledger_account_adjust", args=[house.pk])
    data = {"amount": 7, "reason": "float", "idempotency_key": "h1"}
    assert admin_client.post(url, data).status_code == 302
    assert balance(house) == before + 7

    listing = admin_client.get(reverse("admin:ledger_account_changelist")).content.decode()
    assert reverse("admin:ledger_account_adjust", args=[stack.pk]) not in listing
    assert reverse("admin:ledger_account_adjust", args=[house.pk]) in listing
    assert_ledger_clean()


@pytest.mark.parametrize("amount", [10**19, -(10**19), 10**12 + 1, "9" * 40])
def test_adjust_amounts_out_of_bounds_are_form_errors(admin_client, wallet, amount):
    url = reverse("admin:ledger_account_adjust", args=[wallet.pk])
    response = admin_client.post(url, {"amount": amount, "reason": "x", "idempotency_key": "b1"})
    assert response.status_code == 200 and b"errorlist" in response.content
    assert balance(wallet) == 100
    assert not Transfer.objects.filter(kind=TransferKind.ADJUSTMENT).exists()


def test_a_reused_key_with_another_reason_or_author_is_a_conflict(admin_client, wallet):
    url = reverse("admin:ledger_account_adjust", args=[wallet.pk])
    data = {"amount": 10, "reason": "goodwill", "idempotency_key": "same"}
    assert admin_client.post(url, data).status_code == 302
    response = admin_client.post(url, {**data, "reason": "another reason"})
    assert response.status_code == 200 and b"already used" in response.content
    other = UserFactory(username="other", is_staff=True, is_superuser=True)
    admin_client.force_login(other)
    response = admin_client.post(url, data)
    assert response.status_code == 200 and b"already used" in response.content
    [adjustment] = Transfer.objects.filter(kind=TransferKind.ADJUSTMENT)
    assert adjustment.reason == "goodwill" and adjustment.actor == admin_client.admin
    assert balance(wallet) == 110
    assert_ledger_clean()
