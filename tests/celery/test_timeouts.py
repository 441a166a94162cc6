"""Timeouts and bot moves as services, the way tasks run them: twice, late, or never."""

import logging
import random
import threading
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import WebhookDelivery
from accounts.services import webhook_create
from games import engine, services, stakes
from games.models import Match, MatchEvent, Seat
from games.services import publish
from ledger.models import Account
from tests.factories import ActiveMatchFactory, PlayerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _seeded_dice(monkeypatch):
    monkeypatch.setattr("games.fairness.SECURE_DICE", random.Random(8))


def _two_humans(ruleset: str = "classic", **kwargs) -> Match:
    return ActiveMatchFactory(ruleset=ruleset, turn_seconds=30, **kwargs)


def _expire(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))


def test_timeout_before_the_deadline_does_nothing():
    match = _two_humans()
    assert services.turn_timeout(match_id=match.pk, version=match.version) is False
    assert Match.objects.get(pk=match.pk).version == match.version


def test_auto_policy_plays_for_the_absent_player_and_duplicates_do_nothing():
    match = _two_humans()
    _expire(match)
    assert services.turn_timeout(match_id=match.pk, version=match.version) is True
    assert services.turn_timeout(match_id=match.pk, version=match.version) is False  # twice
    after = Match.objects.get(pk=match.pk)
    assert after.version == match.version + 1
    event = MatchEvent.objects.get(match=match, type="turn_timed_out")
    assert event.data["policy"] == "auto" and event.data["seat"] == match.turn_seat


def test_late_task_after_the_turn_moved_on_does_nothing():
    match = _two_humans()
    old_version = match.version
    on_turn = Seat.objects.get(match=match, seat=match.turn_seat).player
    services.action_submit(
        match_id=match.pk, user=on_turn, action={"type": "bid", "quantity": 1, "face": 2}
    )
    _expire(match)
    assert services.turn_timeout(match_id=match.pk, version=old_version) is False
    assert not MatchEvent.objects.filter(match=match, type="turn_timed_out").exists()


def test_lost_task_is_recovered_by_the_sweep():
    match = _two_humans(on_timeout="challenge")
    on_turn = Seat.objects.get(match=match, seat=match.turn_seat).player
    services.action_submit(
        match_id=match.pk, user=on_turn, action={"type": "bid", "quantity": 1, "face": 2}
    )
    match.refresh_from_db()
    _expire(match)
    assert services.sweep_due_turns() == 1
    # The challenge policy challenged the standing bid: the round ended.
    assert MatchEvent.objects.filter(match=match, type="challenge").exists()
    assert MatchEvent.objects.filter(match=match, type="round_finished").exists()
    assert services.sweep_due_turns() == 0


def test_auto_puts_a_player_out_after_max_timeouts_in_a_row():
    match = _two_humans(max_timeouts=2)
    absent_seat = None
    for _ in range(20):
        match.refresh_from_db()
        if match.status != "active":
            break
        seat = Seat.objects.get(match=match, seat=match.turn_seat)
        if absent_seat is None:
            absent_seat = seat.seat
        if seat.seat == absent_seat:
            _expire(match)
            services.turn_timeout(match_id=match.pk, version=match.version)
        else:
            legal = engine.legal_actions(engine.state_from_json(match.state), seat.seat)
            action = (
                {"type": "challenge"}
                if any(a["type"] == "challenge" for a in legal)
                else {"type": "bid", "quantity": 1, "face": 2}
            )
            services.action_submit(match_id=match.pk, user=seat.player, action=action)
    match.refresh_from_db()
    assert match.status == "finished"
    assert absent_seat not in match.winner_seats
    assert MatchEvent.objects.filter(match=match, type="turn_timed_out").count() == 2


def test_forfeit_policy_ends_a_two_player_match():
    match = _two_humans(on_timeout="forfeit", buy_in=20, ante=1)
    absent = match.turn_seat
    _expire(match)
    assert services.turn_timeout(match_id=match.pk) is True
    match.refresh_from_db()
    assert match.status == "finished" and match.winner_seats == [1 - absent]
    # The voided round's antes went back; every pot and stack is settled.
    assert (
        not Account.objects.filter(scope=stakes.match_scope(match.pk)).exclude(balance=0).exists()
    )
    assert MatchEvent.objects.filter(match=match, type="round_voided").exists()
    call_command("ledger_check")


def test_bot_task_runs_once_and_only_at_its_version():
    human = PlayerFactory()
    match = services.match_create(
        user=human, ruleset="classic", max_players=2, turn_seconds=30, bots=["cautious"]
    ).match
    match.refresh_from_db()
    if match.turn_seat == 0:
        services.action_submit(
            match_id=match.pk, user=human, action={"type": "bid", "quantity": 1, "face": 2}
        )
        match.refresh_from_db()
    version = match.version
    assert services.bot_play(match_id=match.pk, version=version) is True
    assert services.bot_play(match_id=match.pk, version=version) is False
    assert Match.objects.get(pk=match.pk).version == version + 1


def test_a_third_party_bot_plays_for_itself_not_through_the_server():
    human, program = PlayerFactory(), PlayerFactory(is_bot=True)
    match = services.match_create(
        user=human, ruleset="classic", max_players=2, turn_seconds=30
    ).match
    match = services.match_join(match_id=match.pk, user=program).match
    if match.turn_seat == 0:
        services.action_submit(
            match_id=match.pk, user=human, action={"type": "bid", "quantity": 1, "face": 2}
        )
        match.refresh_from_db()
    assert Seat.objects.get(match=match, seat=match.turn_seat).player == program
    assert services.bot_play(match_id=match.pk, version=match.version) is False
    assert Match.objects.get(pk=match.pk).version == match.version


# --- a whole turn per timeout; steps inside a turn -----------------------------------


def _poker_after_a_junk_opening(**kwargs) -> Match:
    """Two humans at poker dice; player one opened with junk, so the other must respond."""
    match = _two_humans("poker_dice", **kwargs)
    opener = Seat.objects.get(match=match, seat=match.turn_seat).player
    return services.action_submit(
        match_id=match.pk, user=opener, action={"type": "bid", "hand": ["junk"]}
    ).match


def _events_after(match: Match, seq: int) -> list[dict]:
    return [
        e.data
        for e in MatchEvent.objects.filter(match=match, seq__gt=seq).order_by("seq")
        if e.type != "dice_committed"
    ]


def test_poker_auto_timeout_plays_the_whole_turn_as_one_timeout():
    match = _poker_after_a_junk_opening()
    absent, opener = match.turn_seat, 1 - match.turn_seat
    seq = match.event_seq
    _expire(match)
    assert services.turn_timeout(match_id=match.pk, version=match.version) is True
    played = _events_after(match, seq)
    # Nothing beats junk's challenge odds: the cautious player accepts, rerolls, bids.
    assert [e["type"] for e in played] == ["turn_timed_out", "accept", "reroll", "bid"]
    assert {e["seat"] for e in played} == {absent}
    assert played[0]["consecutive"] == 1
    after = Match.objects.get(pk=match.pk)
    assert after.status == "active" and after.turn_seat == opener
    assert after.version == match.version + 3
    assert after.turn_deadline > timezone.now()  # the opener's own turn, a fresh deadline
    assert Seat.objects.get(match=match, seat=absent).consecutive_timeouts == 1


def test_poker_timeout_after_accepting_finishes_the_turn():
    match = _poker_after_a_junk_opening(on_timeout="challenge")
    absent = Seat.objects.get(match=match, seat=match.turn_seat)
    services.action_submit(match_id=match.pk, user=absent.player, action={"type": "accept"})
    match.refresh_from_db()
    seq = match.event_seq
    _expire(match)
    assert services.turn_timeout(match_id=match.pk, version=match.version) is True
    played = _events_after(match, seq)
    assert [e["type"] for e in played] == ["turn_timed_out", "reroll", "bid"]
    assert Match.objects.get(pk=match.pk).turn_seat != absent.seat


def test_common_pool_timeout_after_show_reroll_makes_the_raise():
    match = _two_humans("milton_bradley")  # show_and_reroll: after_reroll
    opener = Seat.objects.get(match=match, seat=match.turn_seat)
    services.action_submit(
        match_id=match.pk, user=opener.player, action={"type": "bid", "quantity": 1, "face": 2}
    )
    match.refresh_from_db()
    absent = Seat.objects.get(match=match, seat=match.turn_seat)
    deadline = match.turn_deadline
    services.action_submit(
        match_id=match.pk, user=absent.player, action={"type": "show_reroll", "show": [0]}
    )
    match.refresh_from_db()
    assert match.turn_seat == absent.seat and match.turn_deadline == deadline
    seq = match.event_seq
    _expire(match)
    assert services.turn_timeout(match_id=match.pk, version=match.version) is True
    played = _events_after(match, seq)
    assert [e["type"] for e in played] == ["turn_timed_out", "bid"]
    assert played[1]["seat"] == absent.seat
    assert Match.objects.get(pk=match.pk).turn_seat == opener.seat


def _your_turn_deliveries(user) -> int:
    return WebhookDelivery.objects.filter(webhook__user=user, event="your_turn").count()


def test_steps_inside_a_turn_keep_its_deadline_and_notify_once():
    alice, bob = PlayerFactory(), PlayerFactory()
    for player in (alice, bob):
        webhook_create(user=player, url="http://127.0.0.1:9/hook")
    match = services.match_create(
        user=alice, ruleset="poker_dice", max_players=2, turn_seconds=30
    ).match
    match = services.match_join(match_id=match.pk, user=bob).match
    seats = {s.seat: s.player for s in Seat.objects.filter(match=match)}
    opener, responder = seats[match.turn_seat], seats[1 - match.turn_seat]
    services.action_submit(match_id=match.pk, user=opener, action={"type": "bid", "hand": ["junk"]})
    match.refresh_from_db()
    deadline = match.turn_deadline
    assert _your_turn_deliveries(responder) == 1
    for step in ({"type": "accept"}, {"type": "reroll", "hold": []}):
        services.action_submit(match_id=match.pk, user=responder, action=step)
        match.refresh_from_db()
        assert match.turn_deadline == deadline
        assert _your_turn_deliveries(responder) == 1
    before = _your_turn_deliveries(opener)
    services.action_submit(
        match_id=match.pk,
        user=responder,
        action={"type": "bid", "hand": ["9", None, None, None, None]},
    )
    match.refresh_from_db()
    assert match.turn_deadline > deadline  # the opener's turn: a deadline of its own
    assert _your_turn_deliveries(opener) == before + 1


# --- the sweep and far deadlines -----------------------------------------------------


def test_a_match_that_fails_to_time_out_does_not_stop_the_sweep(caplog):
    broken, healthy = _two_humans(), _two_humans()
    Match.objects.filter(pk=broken.pk).update(
        state={"corrupted": True}, turn_deadline=timezone.now() - timedelta(seconds=10)
    )
    _expire(healthy)
    with caplog.at_level(logging.ERROR, logger="games.services"):
        assert services.sweep_due_turns() == 1
    assert MatchEvent.objects.filter(match=healthy, type="turn_timed_out").count() == 1
    assert f"match {broken.pk}" in caplog.text
    after = Match.objects.get(pk=broken.pk)
    assert after.turn_deadline > timezone.now() + timedelta(seconds=50)
    assert after.version == broken.version and after.event_seq == broken.event_seq
    assert not Seat.objects.filter(match=broken, consecutive_timeouts__gt=0).exists()
    assert services.sweep_due_turns() == 0  # pushed back: not retried at once


def test_a_deadline_past_the_max_eta_gets_no_task_and_the_sweep_times_it_out(
    settings, django_capture_on_commit_callbacks
):
    settings.TIMEOUT_TASK_MAX_ETA_SECONDS = 20
    match = _two_humans()  # turn_seconds=30
    with django_capture_on_commit_callbacks() as far:
        publish.schedule_turn_timeout(
            match_id=match.pk, version=match.version, deadline=match.turn_deadline
        )
    with django_capture_on_commit_callbacks() as near:
        publish.schedule_turn_timeout(
            match_id=match.pk, version=match.version, deadline=timezone.now() + timedelta(seconds=5)
        )
    assert (len(far), len(near)) == (0, 1)
    _expire(match)
    assert services.sweep_due_turns() == 1
    assert MatchEvent.objects.filter(match=match, type="turn_timed_out").count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_deadline_task_waits_for_a_locked_match_which_the_sweep_skips():
    match = _two_humans()
    _expire(match)
    locked, release = threading.Event(), threading.Event()

    def hold_the_row() -> None:  # as a player's action does, on its own connection
        try:
            with transaction.atomic():
                Match.objects.select_for_update().get(pk=match.pk)
                locked.set()
                release.wait(10)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_the_row)
    holder.start()
    try:
        assert locked.wait(10)
        assert services.sweep_due_turns() == 0  # SKIP LOCKED: on to the next match
        threading.Timer(0.3, release.set).start()
        # The task waits for the lock, then applies the timeout that is still due.
        assert services.turn_timeout(match_id=match.pk, version=match.version) is True
    finally:
        release.set()
        holder.join()
    assert MatchEvent.objects.filter(match=match, type="turn_timed_out").count() == 1
