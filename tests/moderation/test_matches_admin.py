"""Matches in the admin: the list, the detail page, abort and forced timeouts."""

import pytest
from django.db.models import Q, Sum
from django.urls import reverse
from django.utils import timezone

from games import services as games
from games import stakes
from games.models import Match, MatchEvent, Seat
from ledger.models import Account, AccountKind, Transfer, TransferKind
from ledger.selectors import wallet_balance
from moderation.models import AuditAction, AuditRecord
from tests.factories import ActiveMatchFactory, people_at
from tests.moderation.conftest import assert_ledger_clean, run_action

pytestmark = pytest.mark.django_db


def _play_one_round(match: Match) -> None:
    """Opening bid, then a challenge: one round is settled, the next has its antes in."""
    match = Match.objects.get(pk=match.pk)
    seat = Seat.objects.get(match=match, seat=match.turn_seat)
    games.action_submit(
        match_id=match.pk, user=seat.player, action={"type": "bid", "quantity": 1, "face": 2}
    )
    match = Match.objects.get(pk=match.pk)
    seat = Seat.objects.get(match=match, seat=match.turn_seat)
    games.action_submit(match_id=match.pk, user=seat.player, action={"type": "challenge"})


def _unsettled(seat: Seat) -> int:
    """What this seat's stack has put into the pots since each pot last paid out."""
    stack = Account.objects.get(kind=AccountKind.STACK, ref=stakes.seat_ref(seat.pk))
    total = 0
    for pot in Account.objects.filter(
        scope=stakes.match_scope(seat.match_id), kind__in=["round_pot", "game_pot"]
    ):
        last_out = (
            Transfer.objects.filter(debit=pot).order_by("-id").values_list("id", flat=True).first()
            or 0
        )
        total += (
            Transfer.objects.filter(debit=stack, credit=pot, id__gt=last_out).aggregate(
                s=Sum("amount")
            )["s"]
            or 0
        )
    return total


def test_abort_refunds_exactly_as_rules_1_8_say(mod_client, moderator):
    match = ActiveMatchFactory(ruleset="milton_bradley", players=3, buy_in=50, ante=2)
    _play_one_round(match)
    seats = list(Seat.objects.filter(match=match).select_related("player"))
    before = {
        s.player_id: (
            wallet_balance(user=s.player),
            Account.objects.get(kind=AccountKind.STACK, ref=stakes.seat_ref(s.pk)).balance,
            _unsettled(s),
        )
        for s in seats
    }
    assert any(unsettled for _, _, unsettled in before.values())

    response = run_action(
        mod_client, "match", "abort_matches", [match.pk], reason="stuck table, player report"
    )
    assert response.status_code == 302

    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED and match.finished_at is not None
    for s in seats:
        wallet, stack, unsettled = before[s.player_id]
        assert wallet_balance(user=s.player) == wallet + stack + unsettled
    assert not Account.objects.filter(scope=stakes.match_scope(match.pk), balance__gt=0).exists()
    aborted = MatchEvent.objects.get(match=match, type="match_aborted").data
    # Each seat's refund is its stack plus its unsettled antes, whatever wallet it went to.
    assert aborted["refunds"] == {
        str(s.seat): before[s.player_id][1] + before[s.player_id][2] for s in seats
    }
    assert set(Seat.objects.filter(match=match).values_list("status", flat=True)) <= {
        Seat.Status.ABORTED,
        Seat.Status.OUT,
    }
    record = AuditRecord.objects.get(action=AuditAction.MATCH_ABORT)
    assert record.actor == moderator and record.match_id == match.pk
    assert record.reason == "stuck table, player report"
    assert record.details["status_before"] == "active" and record.details["chips"]
    assert_ledger_clean()


def test_abort_at_the_start_gives_every_chip_back(mod_client):
    match = ActiveMatchFactory(ruleset="milton_bradley", buy_in=50, ante=1)
    players = people_at(match)
    run_action(mod_client, "match", "abort_matches", [match.pk], reason="test")
    assert [wallet_balance(user=p) for p in players] == [1000, 1000]
    assert (
        Transfer.objects.filter(
            scope=stakes.match_scope(match.pk), kind=TransferKind.REFUND
        ).count()
        == 2 * 2
    )
    assert_ledger_clean()


def test_abort_needs_a_reason_and_an_open_or_active_match(mod_client):
    match = ActiveMatchFactory(ruleset="milton_bradley", buy_in=50, ante=1)
    response = run_action(mod_client, "match", "abort_matches", [match.pk], reason="   ")
    assert response.status_code == 200 and b"required" in response.content
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    run_action(mod_client, "match", "abort_matches", [match.pk], reason="first")
    response = run_action(mod_client, "match", "abort_matches", [match.pk], reason="again")
    assert response.status_code == 302
    messages = [str(m) for m in response.wsgi_request._messages]
    assert any("only open or active" in m for m in messages)
    assert AuditRecord.objects.filter(action=AuditAction.MATCH_ABORT).count() == 1
    assert_ledger_clean()


def test_force_timeout_applies_the_policy_now(mod_client, moderator):
    match = ActiveMatchFactory(ruleset="milton_bradley", buy_in=50, ante=1)
    players = people_at(match)
    seat_number, version = match.turn_seat, match.version
    response = run_action(
        mod_client, "match", "force_turn_timeouts", [match.pk], reason="player disconnected"
    )
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.version > version
    timed_out = MatchEvent.objects.get(match=match, type="turn_timed_out")
    assert timed_out.data["seat"] == seat_number and timed_out.data["policy"] == "auto"
    assert Seat.objects.get(match=match, seat=seat_number).consecutive_timeouts == 1
    record = AuditRecord.objects.get(action=AuditAction.TURN_FORCE_TIMEOUT)
    assert record.actor == moderator and record.match_id == match.pk
    assert record.target_user_id == players[seat_number].pk
    assert record.reason == "player disconnected"
    assert_ledger_clean()


def test_force_timeout_refused_on_a_finished_match(mod_client):
    match = ActiveMatchFactory(ruleset="milton_bradley", buy_in=50, ante=1)
    run_action(mod_client, "match", "abort_matches", [match.pk], reason="x")
    response = run_action(mod_client, "match", "force_turn_timeouts", [match.pk], reason="y")
    assert response.status_code == 302
    assert not AuditRecord.objects.filter(action=AuditAction.TURN_FORCE_TIMEOUT).exists()


def test_list_filters_search_and_detail_page(mod_client):
    # One die lost per challenge: the round played below can never end the match.
    match = ActiveMatchFactory(ruleset="milton_bradley", buy_in=50, ante=1, options={"loss": "one"})
    players = people_at(match)
    _play_one_round(match)
    games.message_post(match_id=match.pk, user=players[0], text="nice bid")
    friendly = games.match_create(
        user=players[1], ruleset="classic", max_players=3, turn_seconds=30, bots=["cautious"]
    ).match
    url = reverse("admin:games_match_changelist")
    counts = {
        "": 2,
        "?status__exact=active": 1,
        "?status__exact=open": 1,
        "?ruleset__exact=classic": 1,
        "?has_bots=yes": 1,
        "?has_bots=no": 1,
        f"?q={players[0].username}": 1,
        f"?q={players[1].username}": 2,
        f"?created_at__year={timezone.now().year}": 2,
    }
    for query, expected in counts.items():
        response = mod_client.get(url + query)
        assert response.status_code == 200, query
        assert response.context["cl"].result_count == expected, query

    by_id = mod_client.get(url + f"?q={friendly.pk}").context["cl"].result_list
    assert friendly.pk in [m.pk for m in by_id]

    page = mod_client.get(reverse("admin:games_match_change", args=[match.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    for section in (
        "match-result",
        "match-rounds",
        "match-events",
        "match-chat",
        "match-transfers",
    ):
        assert f'id="{section}"' in html
    assert "nice bid" in html and "challenge" in html and "ante_round" in html
    assert 'id="abort-match"' in html and 'id="force-timeout"' in html
    assert "Hidden dice" not in html  # not without the permission
    # Read-only for moderators: no save button, and a POST changes nothing.
    assert 'name="_save"' not in html
    mod_client.post(reverse("admin:games_match_change", args=[match.pk]), {"status": "finished"})
    assert Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE
    assert (
        mod_client.post(reverse("admin:games_match_delete", args=[match.pk]), {"post": "yes"})
    ).status_code == 403
    assert Transfer.objects.filter(Q(scope=stakes.match_scope(match.pk))).exists()


def test_the_list_shows_the_last_move_and_filters_stuck_matches(mod_client):
    stuck, moving = (ActiveMatchFactory(ruleset="milton_bradley") for _ in range(2))
    _play_one_round(moving)
    last_event = MatchEvent.objects.filter(match=moving).order_by("-seq").first()
    Match.objects.filter(pk=stuck.pk).update(
        turn_deadline=timezone.now() - timezone.timedelta(minutes=2)
    )
    url = reverse("admin:games_match_changelist")

    listed = mod_client.get(url).context["cl"].result_list
    last_moves = {m.pk: m.last_move_at for m in listed}
    assert last_moves[moving.pk] == last_event.created_at
    assert ">Last move<" in mod_client.get(url).content.decode()  # the column

    stuck_only = mod_client.get(url + "?turn=stuck").context["cl"].result_list
    assert [m.pk for m in stuck_only] == [stuck.pk]
