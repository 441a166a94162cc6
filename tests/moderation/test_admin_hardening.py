"""The admin against probing and bad input, bans that cannot deadlock or leave a lobby
without a creator, superusers kept to the audited actions, and aborts that reveal the
round in play."""

import threading
import time
from collections import Counter

import pytest
from django.db import connection, transaction
from django.urls import reverse

from accounts.models import User
from games import engine, stakes
from games import services as games
from games.fairness import commitment
from games.models import Match, MatchEvent, RoundRecord, Seat
from ledger import services as ledger
from ledger.models import Transfer, TransferKind
from ledger.selectors import wallet_balance
from moderation import services as moderation
from moderation.errors import NothingToDo
from moderation.models import AuditAction, AuditRecord
from tests.conftest import client_for
from tests.factories import ActiveMatchFactory, PlayerFactory, people_at
from tests.moderation.conftest import (
    assert_ledger_clean,
    grant,
    make_moderator,
    run_action,
)

pytestmark = pytest.mark.django_db


def _messages(response) -> list[str]:
    return [str(m) for m in response.wsgi_request._messages]


# --- 1. no probing of hidden data through changelist lookups ---------------------------


def test_changelist_lookups_on_hidden_fields_are_refused(mod_client):
    match = ActiveMatchFactory(ruleset="milton_bradley")
    players = people_at(match)
    state = engine.state_from_json(match.state)
    face = engine.held_dice(state)["1"]["cup"][0]
    salt = match.secrets["salts"]["1"]
    changelist = reverse("admin:games_match_changelist")
    # Each probe rides on an allowed filter, which alone would list the match.
    allowed = "status__exact=active&"
    probes = {
        changelist: [
            f"{allowed}state__round__dice__1__0={face}",
            f"{allowed}state__round__dice__1__0__startswith={face}",
            f"{allowed}secrets__salts__1__startswith={salt[0]}",
            f"{allowed}invite_code__startswith=a",
            f"{allowed}id={match.pk}",
            "status__startswith=act",  # a filtered field, but not a filter's own lookup
        ],
        reverse("admin:games_chatmessage_changelist"): [f"match__state__round__number={1}"],
        reverse("admin:accounts_user_changelist"): [
            "password__startswith=pbkdf2",
            "seats__match__secrets__salts__1__startswith=a",
        ],
        reverse("admin:accounts_apitoken_changelist"): ["key_hash__startswith=a"],
        reverse("admin:ledger_transfer_changelist"): ["match__state__round__number=1"],
        reverse("admin:moderation_auditrecord_changelist"): ["details__round=1"],
    }
    for url, queries in probes.items():
        for query in queries:
            response = mod_client.get(f"{url}?{query}")
            assert response.status_code == 400, (url, query)
            assert "cl" not in (response.context or {}), (url, query)

    # The list filters, date hierarchy and search still work.
    for query, expected in {
        "status__exact=active": 1,
        "status__exact=finished": 0,
        "has_bots=no": 1,
        "private__exact=0": 1,
        f"created_at__year={match.created_at.year}": 1,
        f"q={players[0].username}": 1,
    }.items():
        response = mod_client.get(f"{changelist}?{query}")
        assert response.status_code == 200, query
        assert response.context["cl"].result_count == expected, query
    users = reverse("admin:accounts_user_changelist")
    assert mod_client.get(users + "?is_bot__exact=0&banned=no").status_code == 200


def test_the_suspicion_report_has_no_match_pages(mod_client):
    """It is a proxy of Match: its object pages would show the state and the salts."""
    match = ActiveMatchFactory(ruleset="milton_bradley")
    base = reverse("admin:moderation_suspicionreport_changelist")
    assert mod_client.get(base).status_code == 200
    for suffix in (f"{match.pk}/change/", f"{match.pk}/history/", f"{match.pk}/"):
        response = mod_client.get(base + suffix)
        assert response.status_code == 404, suffix
        assert match.secrets["salts"]["0"].encode() not in response.content


# --- 2. bad ids and report parameters --------------------------------------------------


def test_malformed_or_missing_match_ids_never_fail(mod_client):
    for object_id in ("abc", "1.5", "99999999999999999999999"):
        response = mod_client.get(f"/admin/games/match/{object_id}/change/")
        assert response.status_code == 302, object_id
        assert response["Location"] == reverse("admin:index")
    huge = "/admin/games/match/99999999999999999999999/hidden-dice/"
    mod_client.force_login(grant(mod_client.user, "view_hidden_dice"))
    assert mod_client.get(huge).status_code == 404


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ("days=99999999999999999999", 'name="days" value="3650"'),
        ("days=-5", 'name="days" value="1"'),
        ("days=abc", 'name="days" value="90"'),
        ("min_one_way=nan&min_matches=1e9", 'name="min_one_way" value="0.8"'),
        ("min_one_way=7", 'name="min_one_way" value="1.0"'),
    ],
)
def test_suspicion_report_parameters_are_clamped(mod_client, query, shown):
    response = mod_client.get(reverse("admin:moderation_suspicionreport_changelist") + "?" + query)
    assert response.status_code == 200
    assert shown in response.content.decode()


# --- 3. bans: one record, and the lock order of play ------------------------------------


def test_banning_twice_writes_one_record(mod_client):
    players = people_at(ActiveMatchFactory(ruleset="milton_bradley", buy_in=50, ante=1))
    target = players[0]
    first = run_action(mod_client, "user", "ban_players", [target.pk], reason="cheating")
    assert first.status_code == 302
    second = run_action(mod_client, "user", "ban_players", [target.pk], reason="again")
    assert second.status_code == 302
    assert any("already banned" in m for m in _messages(second))
    [record] = AuditRecord.objects.filter(action=AuditAction.PLAYER_BAN)
    assert record.reason == "cheating" and record.target_user == target
    assert not User.objects.get(pk=target.pk).is_active


def _in_thread(call, errors: list) -> threading.Thread:
    def run():
        try:
            call()
        except BaseException as exc:  # reported to the test below
            errors.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_ban_waits_for_play_instead_of_deadlocking():
    """Play holds the match and then locks its players (`games.services.play`, at its end); a
    ban of one of them at that moment must wait for the match, not hold the player and
    deadlock."""
    match = ActiveMatchFactory(ruleset="milton_bradley", buy_in=50, ante=1)
    players = people_at(match)
    moderator = make_moderator(username="mod")
    target = players[0]
    match_locked, errors = threading.Event(), []

    def play():
        with transaction.atomic():
            games.match_lock(match.pk)
            match_locked.set()
            time.sleep(0.5)  # the ban starts meanwhile
            list(
                User.objects.select_for_update()
                .filter(pk__in=[p.pk for p in players])
                .order_by("pk")
            )

    def ban():
        match_locked.wait(5)
        moderation.player_ban(user_id=target.pk, moderator=moderator, reason="collusion")

    threads = [_in_thread(play, errors), _in_thread(ban, errors)]
    for thread in threads:
        thread.join(30)
    assert errors == []
    assert not User.objects.get(pk=target.pk).is_active
    assert AuditRecord.objects.filter(action=AuditAction.PLAYER_BAN).count() == 1


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_two_bans_at_once_write_one_record():
    players = people_at(ActiveMatchFactory(ruleset="milton_bradley", buy_in=50, ante=1))
    moderators = [make_moderator(username=f"mod{i}") for i in range(2)]
    barrier, errors = threading.Barrier(2), []
    outcomes: list[str] = []

    def ban(moderator):
        barrier.wait(5)
        try:
            moderation.player_ban(user_id=players[1].pk, moderator=moderator, reason="spam")
            outcomes.append("banned")
        except NothingToDo:
            outcomes.append("already")

    threads = [_in_thread(lambda m=m: ban(m), errors) for m in moderators]
    for thread in threads:
        thread.join(30)
    assert errors == []
    assert sorted(outcomes) == ["already", "banned"]
    assert AuditRecord.objects.filter(action=AuditAction.PLAYER_BAN).count() == 1


# --- 4. a banned creator hands the lobby on ---------------------------------------------


def test_banning_a_lobby_creator_hands_the_lobby_to_the_next_player(mod_client):
    creator, second, third = PlayerFactory(), PlayerFactory(), PlayerFactory()
    lobby = games.match_create(
        user=creator, ruleset="classic", max_players=5, turn_seconds=30, bots=["cautious"]
    ).match
    games.match_join(match_id=lobby.pk, user=second)
    games.match_join(match_id=lobby.pk, user=third)

    response = run_action(mod_client, "user", "ban_players", [creator.pk], reason="abuse")
    assert response.status_code == 302
    lobby.refresh_from_db()
    assert lobby.status == Match.Status.OPEN
    heir = Seat.objects.filter(match=lobby, player__bot_strategy="").order_by("seat").first()
    assert heir.player == lobby.created_by != creator
    event = MatchEvent.objects.filter(match=lobby).order_by("-seq").first()
    assert event.type == "creator_changed" and event.data["player"]["id"] == heir.player_id
    record = AuditRecord.objects.get(action=AuditAction.PLAYER_BAN)
    assert record.details["lobbies_left"] == [lobby.pk]

    # The new creator can start it, and nobody else can.
    other = next(p for p in (second, third) if p != heir.player)
    url = f"/api/v1/matches/{lobby.pk}/start/"
    assert client_for(other).post(url, {}, format="json").status_code == 403
    assert client_for(heir.player).post(url, {}, format="json").status_code == 200
    assert Match.objects.get(pk=lobby.pk).status == Match.Status.ACTIVE
    assert_ledger_clean()


def test_banning_a_creator_left_with_bots_only_ends_the_lobby(mod_client):
    creator = PlayerFactory()
    lobby = games.match_create(
        user=creator, ruleset="classic", max_players=3, turn_seconds=30, bots=["cautious"]
    ).match
    run_action(mod_client, "user", "ban_players", [creator.pk], reason="abuse")
    lobby.refresh_from_db()
    assert lobby.status == Match.Status.ABORTED and lobby.created_by == creator
    assert not MatchEvent.objects.filter(match=lobby, type="creator_changed").exists()


# --- 5. superusers change moderated fields only through the audited actions -------------


def test_superusers_cannot_edit_moderated_fields_on_the_user_form(client):
    boss = PlayerFactory(is_staff=True, is_superuser=True)
    client.force_login(boss)
    player = PlayerFactory(username="target")
    before = User.objects.get(pk=player.pk)
    change = reverse("admin:accounts_user_change", args=[player.pk])
    page = client.get(change).content.decode()
    for field in ("is_active", "chat_muted_until_0", "rating_mu", "games_won", "bot_strategy"):
        assert f'name="{field}"' not in page, field
    assert 'name="email"' in page  # the rest stays editable

    response = client.post(
        change,
        {
            "username": "target",
            "email": "t@example.com",
            "date_joined_0": "2024-01-01",
            "date_joined_1": "00:00:00",
            # Dropped: read-only fields are not taken from the form.
            "is_active": "",
            "chat_muted_until_0": "2999-01-01",
            "chat_muted_until_1": "00:00:00",
            "rating_mu": "99",
            "rating_sigma": "0.1",
            "games_played": "500",
            "games_won": "500",
            "is_bot": "on",
            "bot_strategy": "expert",
        },
    )
    assert response.status_code == 302
    after = User.objects.get(pk=player.pk)
    assert after.email == "t@example.com"
    for field in (
        "is_active",
        "chat_muted_until",
        "rating_mu",
        "rating_sigma",
        "games_played",
        "games_won",
        "is_bot",
        "bot_strategy",
    ):
        assert getattr(after, field) == getattr(before, field), field
    assert not AuditRecord.objects.exists()

    # The ban goes through the audited action instead.
    run_action(client, "user", "ban_players", [player.pk], reason="fraud")
    assert not User.objects.get(pk=player.pk).is_active
    assert AuditRecord.objects.get(action=AuditAction.PLAYER_BAN).actor == boss


# --- 6. abort refunds count antes only ---------------------------------------------------


def test_abort_refunds_after_an_old_pot_adjustment(mod_client, moderator):
    """A pot adjusted by hand (before the admin refused it) no longer matches its antes:
    the abort still refunds, never more than the pot holds, and the ledger stays sound."""
    match = ActiveMatchFactory(ruleset="milton_bradley", buy_in=50, ante=2)
    players = people_at(match)
    pot = stakes.pots_for(match).round
    ledger.adjustment(account=pot, amount=-1, reason="old fix", actor=moderator)

    response = run_action(mod_client, "match", "abort_matches", [match.pk], reason="x")
    assert response.status_code == 302
    assert Match.objects.get(pk=match.pk).status == Match.Status.ABORTED
    assert sorted(wallet_balance(user=p) for p in players) == [999, 1000]
    assert_ledger_clean()


def test_abort_after_a_voided_round_refunds_exactly_the_unsettled_antes(mod_client):
    match = ActiveMatchFactory(ruleset="milton_bradley", players=3, buy_in=50, ante=2)
    players = people_at(match)
    leaver = Seat.objects.get(match=match, seat=match.turn_seat).player
    # A forfeit is the server's (the timeout policy, a ban), never an action a player sends.
    Match.objects.filter(pk=match.pk).update(on_timeout=Match.TimeoutPolicy.FORFEIT)
    games.turn_force_timeout(match_id=match.pk)
    assert MatchEvent.objects.filter(match=match, type="round_voided").exists()
    # The voided round's round-pot antes went back to the stacks; its game-pot antes and
    # the next round's antes (the two players left) are unsettled.
    run_action(mod_client, "match", "abort_matches", [match.pk], reason="x")
    back = Counter()
    for user_id, amount in Transfer.objects.filter(
        scope=stakes.match_scope(match.pk), kind=TransferKind.REFUND, credit__kind="wallet"
    ).values_list("credit__user_id", "amount"):
        back[user_id] += amount
    assert back[leaver.pk] == 2
    assert all(back[p.pk] == 2 + 4 for p in players if p != leaver)
    assert [wallet_balance(user=p) for p in players] == [1000, 1000, 1000]
    assert_ledger_clean()


# --- 7. an abort reveals the round in play -----------------------------------------------


@pytest.mark.parametrize("ruleset", ["milton_bradley", "poker_dice"])
def test_abort_reveals_the_round_in_play(mod_client, moderator, ruleset):
    match = ActiveMatchFactory(ruleset=ruleset, players=3, buy_in=50, ante=2)
    players = people_at(match)
    state = engine.state_from_json(match.state)
    number = state.round.number
    committed = dict(match.secrets["commitments"])
    assert committed

    response = run_action(mod_client, "match", "abort_matches", [match.pk], reason="stuck")
    assert response.status_code == 302

    record = RoundRecord.objects.get(match=match, number=number).record
    assert record["aborted"] is True and record["result"] is None
    assert record["dice_commitments"] == committed
    assert set(record["salts"]) == set(committed)
    for seat, digest in committed.items():
        assert commitment(record["salts"][seat], record["dice"][seat]) == digest
    if ruleset != "poker_dice":
        for seat in range(3):
            held = engine.held_dice(state)[str(seat)]
            assert record["dice"][str(seat)] == held["cup"] + held["shown"]
    assert [c["kind"] for c in record["chips"]] == ["ante_round", "ante_game"] * 3
    aborted = MatchEvent.objects.get(match=match, type="match_aborted")
    assert aborted.data["round"] == record
    assert AuditRecord.objects.get(action=AuditAction.MATCH_ABORT).actor == moderator
    assert [wallet_balance(user=p) for p in players] == [1000, 1000, 1000]
    assert (
        Transfer.objects.filter(
            scope=stakes.match_scope(match.pk), kind=TransferKind.REFUND
        ).count()
        == 2 * 3
    )
    assert_ledger_clean()

    # Public: every client of the match sees the revealed round.
    rounds = client_for(players[1]).get(f"/api/v1/matches/{match.pk}/rounds/").json()
    assert record in rounds["rounds"]


def test_aborting_a_lobby_records_no_round(mod_client):
    lobby = games.match_create(
        user=PlayerFactory(), ruleset="classic", max_players=3, turn_seconds=30
    ).match
    run_action(mod_client, "match", "abort_matches", [lobby.pk], reason="spam lobby")
    assert Match.objects.get(pk=lobby.pk).status == Match.Status.ABORTED
    assert not RoundRecord.objects.filter(match=lobby).exists()
    assert "round" not in MatchEvent.objects.get(match=lobby, type="match_aborted").data
