"""Quick play: compatible seeks pair into a started match, nearest rating first; many
seekers at once (real threads, real PostgreSQL) are each paired at most once and no
seek is lost."""

import threading
from collections import Counter
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from accounts.events import account_events_after
from accounts.models import Rating, User, Webhook, WebhookDelivery
from accounts.secret_box import seal
from games.models import Match, Seat, Seek
from games.services import seeks
from tests.games.helpers import seated_players
from tests.ledger.conftest import funded_user
from tests.problems import assert_problem

SEEKS = "/api/v1/seeks/"


def _seek(client, **body):
    body = {"ruleset": "classic", "players": 2, "turn_seconds": 60, **body}
    return client.post(SEEKS, body, format="json")


@pytest.mark.django_db
def test_two_compatible_seeks_start_a_match_and_both_hear_of_it():
    (alice, a), (bob, b) = seated_players(2)
    Webhook.objects.create(
        user=alice, url="http://127.0.0.1:9/hook", encrypted_secret=seal("s" * 20)
    )
    first = _seek(a, buy_in=20, ante=1)
    assert first.status_code == 201 and first.json()["status"] == "waiting"
    assert _seek(b, buy_in=20, ante=2).json()["status"] == "waiting"  # another pool
    assert_problem(_seek(b, buy_in=20, ante=1), 409, "already_seeking")
    b.delete(f"{SEEKS}{Seek.objects.get(user=bob).pk}/")
    second = _seek(b, buy_in=20, ante=1).json()
    assert second["status"] == "matched"
    match = Match.objects.get(pk=second["match_id"])
    assert match.status == "active" and match.buy_in == 20
    assert {s.player_id: s.seat for s in match.seats.all()} == {alice.pk: 0, bob.pk: 1}
    mine = a.get(f"{SEEKS}{first.json()['id']}/").json()
    assert mine["status"] == "matched" and mine["match_id"] == match.pk
    event = WebhookDelivery.objects.get(webhook__user=alice, event="seek_matched")
    assert event.payload == {
        "event": "seek_matched",
        "created_at": event.payload["created_at"],
        "seek_id": mine["id"],
        "match_id": match.pk,
        "ruleset": "classic",
    }
    for user in (alice, bob):
        heard = {e["type"]: e for e in account_events_after(user_id=user.pk, after=0)}
        assert heard["seek_matched"]["match_id"] == match.pk
    assert_problem(a.delete(f"{SEEKS}{mine['id']}/"), 409, "seek_closed")


@pytest.mark.django_db
def test_the_nearest_rating_is_paired_first():
    players = seated_players(5)
    ratings = [10.0, 30.0, 2.0, 28.0, 5.0]
    for (user, _), rating in zip(players, ratings, strict=True):
        Rating.objects.create(user=user, ruleset="classic", mu=rating + 3.0, sigma=1.0)
    # Three seeks already waiting (as seekers arriving together leave them).
    for user, _ in players[:3]:
        Seek.objects.create(
            user=user,
            ruleset="classic",
            players=2,
            turn_seconds=60,
            rating=seeks.rating_in(user, "classic"),
            expires_at=timezone.now() + timedelta(minutes=5),
        )
    near_30 = _seek(players[3][1]).json()  # rated 28
    match = Match.objects.get(pk=near_30["match_id"])
    assert {s.player_id for s in match.seats.all()} == {players[1][0].pk, players[3][0].pk}
    near_2 = _seek(players[4][1]).json()  # rated 5: 2 is nearer than 10
    match = Match.objects.get(pk=near_2["match_id"])
    assert {s.player_id for s in match.seats.all()} == {players[2][0].pk, players[4][0].pk}
    assert Seek.objects.get(user=players[0][0]).status == "waiting"


@pytest.mark.django_db
def test_refusals_change_nothing_and_seeks_expire():
    (_alice, a), (_bob, b) = seated_players(2)
    assert_problem(_seek(a, players=9), 400, "validation_error")
    assert_problem(_seek(a, ruleset="chess"), 400, "validation_error")
    assert_problem(_seek(a, buy_in=10**6), 409, "insufficient_chips")
    assert_problem(_seek(a, ante=5), 400, "validation_error")
    assert not Seek.objects.exists()
    seek = _seek(a).json()
    assert_problem(b.delete(f"{SEEKS}{seek['id']}/"), 404, "not_found")
    Seek.objects.filter(pk=seek["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert _seek(b).json()["status"] == "waiting"  # an expired seek is never paired
    assert seeks.seeks_expire() == 1
    assert Seek.objects.get(pk=seek["id"]).status == "expired"
    assert [s["id"] for s in a.get(f"{SEEKS}?status=expired").json()["results"]] == [seek["id"]]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("seekers", "table"), [(24, 2), (21, 3)])
def test_many_seekers_at_once_are_each_paired_at_most_once(seekers, table):
    users = [funded_user(100) for _ in range(seekers)]
    barrier = threading.Barrier(seekers)
    errors: list[Exception] = []

    def seek(user):
        try:
            barrier.wait()
            seeks.seek_create(
                user=user, ruleset="classic", players=table, turn_seconds=60, buy_in=10
            )
        except Exception as exc:  # collected: the assertion below names it
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=seek, args=(u,)) for u in users]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert errors == []
    all_seeks = list(Seek.objects.filter(user__in=users))
    assert len(all_seeks) == seekers  # no seek lost
    matched = [s for s in all_seeks if s.status == "matched"]
    # Every full table formed: fewer than a table's worth are left waiting.
    assert len(matched) == seekers - seekers % table
    assert Counter(s.match_id for s in matched) == {m: table for m in {s.match_id for s in matched}}
    seated = Counter(Seat.objects.filter(player__in=users).values_list("player_id", flat=True))
    assert max(seated.values()) == 1  # nobody in two matches
    assert set(seated) == {s.user_id for s in matched}
    assert Match.objects.filter(status="active").count() == seekers // table


def _bots(*users):
    User.objects.filter(pk__in=[u.pk for u in users]).update(is_bot=True)


@pytest.mark.django_db
def test_quick_play_keeps_bots_from_people_unless_a_bot_asks():
    (person, p), (bot, b), (other_bot, o), (keen_bot, k) = seated_players(4)
    _bots(bot, other_bot, keen_bot)
    assert _seek(p).json()["status"] == "waiting"
    waiting = _seek(b).json()  # a bot that did not ask is not paired with the person
    assert waiting["status"] == "waiting" and waiting["against_people"] is False
    paired = _seek(o).json()  # ... but with another bot
    assert paired["status"] == "matched"
    seated = set(
        Seat.objects.filter(match_id=paired["match_id"]).values_list("player_id", flat=True)
    )
    assert seated == {bot.pk, other_bot.pk}
    keen = _seek(k, against_people=True).json()  # a bot that asks meets the person
    assert keen["status"] == "matched" and keen["against_people"] is True
    seated = set(Seat.objects.filter(match_id=keen["match_id"]).values_list("player_id", flat=True))
    assert seated == {person.pk, keen_bot.pk}


@pytest.mark.django_db
def test_a_persons_seek_passes_over_bots_that_did_not_ask_at_any_table_size():
    (person, p), (keen_bot, k), (bot, b), (other, o) = seated_players(4)
    _bots(keen_bot, bot)
    assert _seek(b, players=3).json()["status"] == "waiting"
    assert _seek(k, players=3, against_people=True).json()["status"] == "waiting"
    assert _seek(p, players=3).json()["status"] == "waiting"  # the bot that did not ask: no
    third = _seek(o, players=3).json()
    assert third["status"] == "matched"
    seated = set(
        Seat.objects.filter(match_id=third["match_id"]).values_list("player_id", flat=True)
    )
    assert seated == {person.pk, keen_bot.pk, other.pk}
    assert Seek.objects.get(user=bot).status == Seek.Status.WAITING
    # The flag is a strict boolean, as every input's.
    assert_problem(_seek(p, against_people="yes"), 400, "validation_error")


@pytest.mark.django_db
def test_a_banned_players_waiting_seek_is_never_paired():
    (alice, a), (bob, b) = seated_players(2)
    assert _seek(a).json()["status"] == "waiting"
    User.objects.filter(pk=alice.pk).update(is_active=False)  # banned while waiting
    assert _seek(b).json()["status"] == "waiting"
    assert not Match.objects.filter(seats__player=bob).exists()
