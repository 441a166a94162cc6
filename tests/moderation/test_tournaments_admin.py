"""Moderators and tournaments: the admin's pages (entrants, stages, the pool's ledger
entries) and the cancel, with refunds and its audit record."""

from django.urls import reverse

from games.models import Match
from ledger.selectors import wallet_balance
from moderation.models import AuditAction, AuditRecord
from tests.factories import PlayerFactory
from tests.moderation.conftest import assert_ledger_clean
from tests.tournaments.helpers import fill, knockout
from tournaments.models import Tournament
from tournaments.services import tournament_start

CHANGELIST = reverse("admin:tournaments_tournament_changelist")


def _cancel(client, pks, reason):
    data = {"action": "cancel_tournaments", "_selected_action": [str(pk) for pk in pks]}
    first = client.post(CHANGELIST, data)
    assert first.status_code == 200 and b'name="reason"' in first.content
    return client.post(CHANGELIST, {**data, "apply": "1", "reason": reason})


def test_a_running_tournament_cancelled_by_a_moderator_refunds_and_is_audited(
    mod_client, moderator
):
    people = [PlayerFactory() for _ in range(4)]
    tournament = knockout(PlayerFactory(), min_entrants=8, max_entrants=8)
    fill(tournament, people=people, bots=4)
    assert tournament_start(tournament_id=tournament.pk)
    page = mod_client.get(reverse("admin:tournaments_tournament_change", args=[tournament.pk]))
    assert page.status_code == 200
    content = page.content.decode()
    assert people[0].username in content and "entry" in content and "prize_pool" in content
    assert mod_client.get(CHANGELIST, {"status__exact": "running"}).status_code == 200

    assert _cancel(mod_client, [tournament.pk], "server trouble").status_code == 302
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert all(wallet_balance(user=p) == 1000 for p in people)
    tables = Match.objects.filter(tournament_table__stage__tournament=tournament)
    assert set(tables.values_list("status", flat=True)) == {Match.Status.ABORTED}
    record = AuditRecord.objects.get(action=AuditAction.TOURNAMENT_CANCEL)
    assert record.actor == moderator and record.reason == "server trouble"
    assert record.details["status_before"] == "running" and record.details["refunded"] == 800
    assert len(record.details["matches_aborted"]) == 2
    # Over: a second cancel is refused and audits nothing.
    _cancel(mod_client, [tournament.pk], "again")
    assert AuditRecord.objects.filter(action=AuditAction.TOURNAMENT_CANCEL).count() == 1
    assert_ledger_clean()
