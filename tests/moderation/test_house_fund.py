"""`manage.py house_fund`: how a moderator funds the house's bankroll from the command
line, with the same record as the admin's "Adjust chips" on the house."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from ledger.models import Transfer, TransferKind
from ledger.selectors import circulation, house_balance
from moderation.models import AuditAction, AuditRecord
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_a_moderator_funds_the_house_on_the_record():
    staff = UserFactory(username="mod", is_staff=True)
    out = StringIO()
    call_command("house_fund", "25000", by="mod", reason="opening bankroll", stdout=out)
    assert "its bankroll holds 25000" in out.getvalue()
    assert house_balance() == 25000 and circulation() == 25000
    funding = Transfer.objects.get()
    assert funding.kind == TransferKind.ADJUSTMENT and funding.debit.kind == "issuer"
    assert funding.actor_id == staff.pk and funding.reason == "opening bankroll"
    record = AuditRecord.objects.get()
    assert record.action == AuditAction.CHIPS_ADJUST and record.actor_id == staff.pk
    assert record.details["transfer_id"] == funding.pk and record.details["amount"] == 25000
    call_command("house_fund", "-5000", by="mod", reason="too much", stdout=StringIO())
    assert house_balance() == 20000
    assert AuditRecord.objects.get(details__transfer_id__gt=funding.pk).details["amount"] == -5000
    call_command("ledger_check", stdout=StringIO())


def test_only_staff_fund_the_house_and_never_below_zero():
    PlayerFactory(username="player")
    with pytest.raises(CommandError, match="No active staff member"):
        call_command("house_fund", "100", by="player", reason="please")
    UserFactory(username="mod", is_staff=True)
    with pytest.raises(CommandError, match="holds 0 chips"):
        call_command("house_fund", "-1", by="mod", reason="overdraw")
    assert house_balance() == 0 and not Transfer.objects.filter(kind="adjustment").exists()
    assert not AuditRecord.objects.exists()
