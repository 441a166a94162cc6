"""Timeouts and bot moves as services, the way tasks run them: twice, late, or never."""

import random
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from games import services
from games.models import Match, MatchEvent, Seat
from ledger.models import Account
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _seeded_dice(monkeypatch):
    monkeypatch.setattr("games.services.SECURE_DICE", random.Random(8))


def _two_humans(**kwargs) -> Match:
    alice, bob = PlayerFactory(), PlayerFactory()
    match = services.match_create(
        user=alice, ruleset="classic", max_players=2, turn_seconds=30, **kwargs
    )
    return services.match_join(match_id=match.pk, user=bob)


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
            legal = services.engine.legal_actions(
                services.engine.State.from_json(match.state), seat.seat
            )
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
    assert not Account.objects.filter(match=match).exclude(balance=0).exists()
    assert MatchEvent.objects.filter(match=match, type="round_voided").exists()
    call_command("ledger_check")


def test_bot_task_runs_once_and_only_at_its_version():
    human = PlayerFactory()
    match = services.match_create(
        user=human, ruleset="classic", max_players=2, turn_seconds=30, bots=["cautious"]
    )
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
    match = services.match_create(user=human, ruleset="classic", max_players=2, turn_seconds=30)
    match = services.match_join(match_id=match.pk, user=program)
    if match.turn_seat == 0:
        services.action_submit(
            match_id=match.pk, user=human, action={"type": "bid", "quantity": 1, "face": 2}
        )
        match.refresh_from_db()
    assert Seat.objects.get(match=match, seat=match.turn_seat).player == program
    assert services.bot_play(match_id=match.pk, version=match.version) is False
    assert Match.objects.get(pk=match.pk).version == match.version
