"""Chips, hidden dice, the audit trail's immutability and the suspicion report."""

import pytest
from django.db import DatabaseError, connection, transaction
from django.urls import reverse
from django.utils import timezone

from games import engine, stakes
from games.models import Match, RoundRecord
from ledger import services as ledger
from ledger.models import Transfer, TransferKind
from ledger.selectors import wallet_balance
from moderation.errors import AuditImmutable
from moderation.models import AuditAction, AuditRecord
from moderation.selectors import suspicion_report
from moderation.services import audit_record
from tests.factories import (
    ActiveMatchFactory,
    FinishedMatchFactory,
    LobbyFactory,
    PlayerFactory,
)
from tests.moderation.conftest import assert_ledger_clean, grant

pytestmark = pytest.mark.django_db


def test_adjust_chips_is_audited_and_history_stays_read_only(mod_client, moderator):
    player = PlayerFactory()
    wallet = ledger.wallet_for(player)
    url = reverse("admin:ledger_account_adjust", args=[wallet.pk])
    data = {"amount": -40, "reason": "chargeback", "idempotency_key": "k1"}
    assert mod_client.post(url, data).status_code == 302
    assert mod_client.post(url, data).status_code == 302  # double submit: nothing more
    assert wallet_balance(user=player) == 960
    adjustment = Transfer.objects.get(kind=TransferKind.ADJUSTMENT)
    record = AuditRecord.objects.get(action=AuditAction.CHIPS_ADJUST)
    assert record.actor == moderator and record.target_user == player
    assert record.reason == "chargeback"
    assert record.details == {"transfer_id": adjustment.pk, "account_id": wallet.pk, "amount": -40}
    assert_ledger_clean()

    # History: viewable, never editable or deletable, not even through the admin.
    change = reverse("admin:ledger_transfer_change", args=[adjustment.pk])
    assert mod_client.get(change).status_code == 200
    mod_client.post(change, {"amount": 1})
    assert mod_client.get(reverse("admin:ledger_transfer_add")).status_code == 403
    delete = reverse("admin:ledger_transfer_delete", args=[adjustment.pk])
    assert mod_client.post(delete, {"post": "yes"}).status_code == 403
    assert Transfer.objects.get(pk=adjustment.pk).amount == 40
    assert moderator.has_perm("ledger.view_transfer")
    assert not moderator.has_perm("ledger.change_transfer")
    assert not moderator.has_perm("ledger.delete_transfer")
    assert not moderator.has_perm("auth.change_group")
    assert not moderator.has_perm("accounts.change_user")


def test_hidden_dice_need_the_permission_and_each_view_is_audited(mod_client, moderator):
    match = ActiveMatchFactory(ruleset="milton_bradley")
    url = reverse("admin:games_match_hidden_dice", args=[match.pk])
    assert mod_client.get(url).status_code == 403
    detail = mod_client.get(reverse("admin:games_match_change", args=[match.pk])).content
    assert b"Hidden dice" not in detail
    assert not AuditRecord.objects.exists()

    mod_client.force_login(grant(moderator, "view_hidden_dice"))
    detail = mod_client.get(reverse("admin:games_match_change", args=[match.pk])).content
    assert b"Hidden dice" in detail
    state = engine.state_from_json(match.state)
    cup = engine.held_dice(state)["1"]["cup"]
    for views in (1, 2):
        page = mod_client.get(url)
        assert page.status_code == 200
        assert str(cup).encode() in page.content
        assert AuditRecord.objects.filter(action=AuditAction.HIDDEN_DICE_VIEW).count() == views
    record = AuditRecord.objects.filter(action=AuditAction.HIDDEN_DICE_VIEW).first()
    assert record.actor == moderator and record.match_id == match.pk
    assert record.details["round"] == state.round.number


def test_audit_records_cannot_be_edited_or_deleted(mod_client, moderator):
    record = audit_record(
        actor=moderator, action=AuditAction.PLAYER_BAN, reason="r", target="someone"
    )
    record.reason = "changed"
    with pytest.raises(AuditImmutable):
        record.save()
    with pytest.raises(AuditImmutable):
        record.delete()
    with pytest.raises(AuditImmutable):
        AuditRecord.objects.filter(pk=record.pk).update(reason="changed")
    with pytest.raises(AuditImmutable):
        AuditRecord.objects.all().delete()
    for sql in (
        "UPDATE moderation_auditrecord SET reason = 'changed'",
        "DELETE FROM moderation_auditrecord",
    ):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            connection.cursor().execute(sql)
    assert AuditRecord.objects.get(pk=record.pk).reason == "r"

    # In the admin: listed and viewable, never changed or deleted (superusers neither).
    changelist = reverse("admin:moderation_auditrecord_changelist")
    assert mod_client.get(changelist + "?q=someone").context["cl"].result_count == 1
    change = reverse("admin:moderation_auditrecord_change", args=[record.pk])
    assert mod_client.get(change).status_code == 200
    mod_client.post(change, {"reason": "changed"})
    delete = reverse("admin:moderation_auditrecord_delete", args=[record.pk])
    assert mod_client.post(delete, {"post": "yes"}).status_code == 403
    boss = PlayerFactory(is_staff=True, is_superuser=True)
    mod_client.force_login(boss)
    assert mod_client.post(delete, {"post": "yes"}).status_code == 403
    assert mod_client.get(reverse("admin:moderation_auditrecord_add")).status_code == 403
    assert AuditRecord.objects.get(pk=record.pk).reason == "r"


def _finished_match(winner, loser, *, rounds_without_challenge: int = 0):
    """A finished heads-up match in which `loser` lost 20 chips to `winner`. Its history
    is written by hand on a real lobby (chips through games.stakes, then the round
    records and the status): play cannot choose who wins a round, nor end rounds between
    two players without a challenge, and the report reads no more than these."""
    match = LobbyFactory(players=[loser, winner], buy_in=50, ante=10)
    seats = list(match.seats.order_by("seat"))
    stakes.buy_ins(seats=seats, amount=50)
    stakes.ante_round(match=match, round_number=1, seats=seats, ante=10)
    stakes.round_pot_payout(match=match, round_number=1, seat=seats[1])
    stakes.game_pot_payout(match=match, winner_seats=[seats[1]])
    stakes.match_cash_out(match=match)
    Match.objects.filter(pk=match.pk).update(status="finished", finished_at=timezone.now())
    for number in range(1, rounds_without_challenge + 1):
        actions = [
            {"seat": 0, "type": "bid"},
            {"seat": 1, "type": "bid"},
            {"seat": 0, "type": "bid"},
        ]
        RoundRecord.objects.create(match=match, number=number, record={"actions": actions})
    return match


def test_suspicion_report_lists_one_way_flows_and_soft_play(mod_client):
    dumper, receiver, honest = PlayerFactory(), PlayerFactory(), PlayerFactory()
    for _ in range(3):
        _finished_match(receiver, dumper, rounds_without_challenge=2)
    _finished_match(honest, dumper)  # only once together: below the threshold

    report = suspicion_report()
    assert report.matches == 4
    [flow] = report.dumping
    assert (flow.a, flow.b) == (dumper, receiver)
    assert (flow.a_to_b, flow.b_to_a, flow.together) == (60, 0, 3)
    assert flow.one_way == 1.0
    [pair] = report.soft_play
    assert {pair.a, pair.b} == {dumper, receiver}
    assert pair.chances == 12 and pair.challenges == 0

    page = mod_client.get(reverse("admin:moderation_suspicionreport_changelist"))
    assert page.status_code == 200
    html = page.content.decode()
    assert dumper.username in html and receiver.username in html
    assert honest.username not in html
    strict = mod_client.get(
        reverse("admin:moderation_suspicionreport_changelist") + "?min_matches=4"
    )
    assert dumper.username not in strict.content.decode()
    assert_ledger_clean()


def test_suspicion_report_sees_win_farming_at_zero_stake(mod_client):
    """No chip moves at a zero-stake table, but ratings and win counts do: a player who
    keeps losing to the same partner shows up all the same."""
    farmer, farmed, rival = PlayerFactory(), PlayerFactory(), PlayerFactory()
    for _ in range(4):
        FinishedMatchFactory(players=[farmer, farmed], resigned=[farmer])
    for loser in (rival, farmer, rival):  # an honest rivalry: wins both ways
        FinishedMatchFactory(players=[farmer, rival], resigned=[loser])

    report = suspicion_report()
    assert report.matches == 7
    assert report.dumping == []  # no chips ever moved
    [pair] = report.win_farming
    assert (pair.a, pair.b) == (farmer, farmed)
    assert (pair.a_to_b, pair.b_to_a, pair.together) == (4, 0, 4)
    page = mod_client.get(reverse("admin:moderation_suspicionreport_changelist"))
    farming = page.content.decode().split('id="win-farming"')[1].split('id="soft-play"')[0]
    assert farmer.username in farming and farmed.username in farming
    assert rival.username not in farming
