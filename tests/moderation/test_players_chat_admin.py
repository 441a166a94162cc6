"""Players and chat in the admin: ban, unban, mute, unmute, hide a message."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import ApiToken, User
from games import services as games
from games import stakes
from games.models import ChatMessage, Match, MatchEvent, Seat
from games.services.play import turn_deadline
from ledger import services as ledger
from ledger.models import Account, AccountKind, TransferKind
from moderation.models import AuditAction, AuditRecord
from tests.conftest import client_for
from tests.factories import ActiveMatchFactory, PlayerFactory, people_at
from tests.moderation.conftest import (
    assert_ledger_clean,
    make_moderator,
    run_action,
)

pytestmark = pytest.mark.django_db
MATCHES = "/api/v1/matches/"


def test_ban_stops_tokens_leaves_lobbies_and_hands_turns_to_the_policy(mod_client, moderator):
    match = ActiveMatchFactory(ruleset="milton_bradley", buy_in=50, ante=1)
    players = people_at(match)
    banned = players[match.turn_seat]
    api = client_for(banned)
    assert api.get("/api/v1/me/").status_code == 200
    lobby = games.match_create(
        user=PlayerFactory(), ruleset="classic", max_players=3, turn_seconds=30
    ).match
    games.match_join(match_id=lobby.pk, user=banned)
    own_lobby = games.match_create(
        user=banned, ruleset="classic", max_players=3, turn_seconds=30
    ).match

    response = run_action(mod_client, "user", "ban_players", [banned.pk], reason="chip dumping")
    assert response.status_code == 302

    banned.refresh_from_db()
    assert not banned.is_active
    assert api.get("/api/v1/me/").status_code == 401
    assert not ApiToken.objects.filter(user=banned, revoked_at__isnull=True).exists()
    assert not Seat.objects.filter(match=lobby, player=banned).exists()
    assert Match.objects.get(pk=own_lobby.pk).status == Match.Status.ABORTED
    match.refresh_from_db()
    assert match.turn_deadline <= timezone.now()
    # The beat sweep applies the timeout policy to the banned player's turn.
    assert games.sweep_due_turns() >= 1
    assert MatchEvent.objects.filter(match=match, type="turn_timed_out").exists()
    record = AuditRecord.objects.get(action=AuditAction.PLAYER_BAN)
    assert record.actor == moderator and record.target_user == banned
    assert record.reason == "chip dumping"
    assert record.details["lobbies_left"] == sorted([lobby.pk, own_lobby.pk])
    assert record.details["turns_timed_out"] == [match.pk]
    assert_ledger_clean()

    response = run_action(mod_client, "user", "unban_players", [banned.pk], reason="appeal ok")
    assert response.status_code == 302
    assert User.objects.get(pk=banned.pk).is_active
    assert client_for(banned).get("/api/v1/me/").status_code == 200
    assert AuditRecord.objects.filter(action=AuditAction.PLAYER_UNBAN, target_user=banned).exists()


def test_a_banned_players_later_turns_are_due_at_once():
    match = ActiveMatchFactory(ruleset="milton_bradley", buy_in=50, ante=1)
    players = people_at(match)
    other = next(p for i, p in enumerate(players) if i != match.turn_seat)
    User.objects.filter(pk=other.pk).update(is_active=False)
    seat = Seat.objects.select_related("player").get(match=match, player=other)
    assert turn_deadline(match, seat) <= timezone.now()


def test_moderators_cannot_ban_staff_or_themselves(mod_client, moderator):
    colleague = make_moderator(username="colleague")
    for target in (colleague, moderator):
        response = run_action(mod_client, "user", "ban_players", [target.pk], reason="x")
        assert response.status_code == 302
        assert User.objects.get(pk=target.pk).is_active
    assert not AuditRecord.objects.exists()
    # ...and cannot edit staff accounts, groups or permissions at all.
    change = reverse("admin:accounts_user_change", args=[colleague.pk])
    mod_client.post(change, {"username": "renamed", "is_superuser": "on"})
    colleague.refresh_from_db()
    assert colleague.username == "colleague" and not colleague.is_superuser
    assert mod_client.get(reverse("admin:auth_group_changelist")).status_code == 403


def test_superusers_manage_staff(client):
    boss = PlayerFactory(is_staff=True, is_superuser=True)
    client.force_login(boss)
    colleague = make_moderator(username="colleague")
    response = run_action(client, "user", "ban_players", [colleague.pk], reason="left the team")
    assert response.status_code == 302
    assert not User.objects.get(pk=colleague.pk).is_active


def test_mute_and_unmute(mod_client, moderator):
    match = ActiveMatchFactory(ruleset="milton_bradley")
    players = people_at(match)
    loud = players[0]
    api = client_for(loud)
    url = f"{MATCHES}{match.pk}/messages/"
    response = run_action(mod_client, "user", "mute_players", [loud.pk], reason="spam", hours="24")
    assert response.status_code == 302
    refused = api.post(url, {"text": "hello?"}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "muted"
    until = User.objects.get(pk=loud.pk).chat_muted_until
    # Readable, in UTC to the minute: not an ISO timestamp with microseconds.
    assert until.strftime("until %Y-%m-%d %H:%M UTC.") in refused.json()["detail"]
    record = AuditRecord.objects.get(action=AuditAction.PLAYER_MUTE)
    assert record.target_user == loud and record.reason == "spam"
    assert record.details["until"] == User.objects.get(pk=loud.pk).chat_muted_until.isoformat()

    run_action(mod_client, "user", "unmute_players", [loud.pk], reason="served")
    assert api.post(url, {"text": "sorry"}, format="json").status_code == 201
    assert AuditRecord.objects.filter(action=AuditAction.PLAYER_UNMUTE).count() == 1


def test_player_page_shows_stats_balance_and_recent_transfers(mod_client):
    players = people_at(ActiveMatchFactory(ruleset="milton_bradley", buy_in=50, ante=1))
    page = mod_client.get(reverse("admin:accounts_user_change", args=[players[0].pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="recent-transfers"' in html and "buy_in" in html and "signup_grant" in html
    assert "950" in html  # the wallet after the buy-in
    listing = mod_client.get(
        reverse("admin:accounts_user_changelist") + f"?q={players[0].username}"
    )
    assert listing.context["cl"].result_count == 1


def _recent_transfer_rows(html: str) -> list[tuple[str, int, int]]:
    """(kind, signed chips, wallet after) of each row of the player page's table."""
    table = re.search(r'<table id="recent-transfers">(.*?)</table>', html, re.S).group(1)
    rows = re.findall(r"<tr><td>(.*?)</tr>", table, re.S)
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", "<td>" + row) for row in rows]
    return [(c[1], int(c[2]), int(c[3])) for c in cells]


def test_player_page_signs_each_transfer_as_the_api_does(mod_client):
    """Signup grant, buy-in, then cash-outs after winning and after losing: the wallet's
    side of each, whatever account of the user (wallet or a seat's stack) comes first."""
    won = ActiveMatchFactory(ruleset="milton_bradley", buy_in=20)
    players = people_at(won)
    stack = {
        s.player_id: Account.objects.get(kind=AccountKind.STACK, ref=stakes.seat_ref(s.pk))
        for s in won.seats.all()
    }
    winner, loser = players
    ledger.move(stack[loser.pk], stack[winner.pk], 8, TransferKind.ROUND_POT_WIN, "test:pot")
    stakes.match_cash_out(match=won)

    html = mod_client.get(reverse("admin:accounts_user_change", args=[winner.pk])).content
    shown = _recent_transfer_rows(html.decode())
    # Read-only, the password field showed its hash: a moderator never sees it.
    assert User.objects.get(pk=winner.pk).password.split("$")[2] not in html.decode()
    api = client_for(winner).get("/api/v1/me/transactions/").json()["results"]
    assert shown == [(t["kind"], t["amount"], t["balance_after"]) for t in api]
    assert shown == [
        ("cash_out", 28, 1008),
        ("buy_in", -20, 980),
        ("signup_grant", 1000, 1000),
    ]
    loser_html = mod_client.get(reverse("admin:accounts_user_change", args=[loser.pk])).content
    assert _recent_transfer_rows(loser_html.decode()) == [
        ("cash_out", 12, 992),
        ("buy_in", -20, 980),
        ("signup_grant", 1000, 1000),
    ]


def test_hide_message_removes_it_from_the_api(mod_client, moderator):
    match = ActiveMatchFactory(ruleset="milton_bradley")
    players = people_at(match)
    api = client_for(players[1])
    url = f"{MATCHES}{match.pk}/messages/"
    api.post(url, {"text": "gl hf"}, format="json")
    rude = api.post(url, {"text": "rude words"}, format="json").json()
    search = mod_client.get(reverse("admin:games_chatmessage_changelist") + "?q=rude")
    assert search.context["cl"].result_count == 1

    response = run_action(mod_client, "message", "hide_messages", [rude["id"]], reason="insult")
    assert response.status_code == 302
    texts = [m["text"] for m in api.get(url).json()["results"]]
    assert texts == ["gl hf"]
    message = ChatMessage.objects.get(pk=rude["id"])
    assert message.hidden_at is not None and message.hidden_reason == "insult"
    record = AuditRecord.objects.get(action=AuditAction.MESSAGE_HIDE)
    assert record.actor == moderator and record.target_user == players[1]
    assert record.details["text"] == "rude words" and record.match_id == match.pk
    hidden = mod_client.get(reverse("admin:games_chatmessage_changelist") + "?hidden=yes")
    assert hidden.context["cl"].result_count == 1
