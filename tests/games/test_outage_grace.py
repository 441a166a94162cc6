"""Deadlines that fell inside an outage get a grace period instead of timing out (and,
with on_timeout=forfeit, forfeiting the player) the moment the stack returns."""

from datetime import timedelta

import pytest
from django.db import transaction
from django.test import override_settings
from django.utils import timezone

from core import heartbeat
from core.models import Heartbeat
from games import services
from games.models import Match, MatchEvent, Seat
from games.services.bot_players import server_bot
from games.services.turns import SWEEP_HEARTBEAT
from tests.factories import ActiveMatchFactory

pytestmark = pytest.mark.django_db


def _forfeit_match() -> Match:
    return ActiveMatchFactory(on_timeout="forfeit")


def _set_deadline(match: Match, deadline) -> None:
    Match.objects.filter(pk=match.pk).update(turn_deadline=deadline)


def _last_sweep(at) -> None:
    Heartbeat.objects.update_or_create(name=SWEEP_HEARTBEAT, defaults={"beat_at": at})


def _timed_out(match: Match) -> bool:
    return MatchEvent.objects.filter(match=match, type="turn_timed_out").exists()


@override_settings(OUTAGE_GAP_SECONDS=30, OUTAGE_GRACE_SECONDS=30)
def test_deadlines_inside_an_outage_get_their_time_back_not_a_forfeit():
    now = timezone.now()
    _last_sweep(now - timedelta(seconds=120))  # the stack was down for two minutes
    had_50s = _forfeit_match()
    _set_deadline(had_50s, now - timedelta(seconds=70))  # 50 s after the last sweep
    had_5s = _forfeit_match()
    _set_deadline(had_5s, now - timedelta(seconds=115))
    overdue_before = _forfeit_match()
    _set_deadline(overdue_before, now - timedelta(seconds=125))  # due before the outage
    later = _forfeit_match()
    _set_deadline(later, now + timedelta(seconds=300))

    assert services.sweep_due_turns() == 1  # only the turn already overdue before it

    assert _timed_out(overdue_before)
    for match in (had_50s, had_5s, later):
        assert not _timed_out(match)
        assert Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE
        assert not Seat.objects.filter(match=match).exclude(status=Seat.Status.PLAYING).exists()
    after = timezone.now()
    # The time left when the outage began, from now; at least the grace.
    assert abs((Match.objects.get(pk=had_50s.pk).turn_deadline - after).total_seconds() - 50) < 5
    assert abs((Match.objects.get(pk=had_5s.pk).turn_deadline - after).total_seconds() - 30) < 5
    assert Match.objects.get(pk=later.pk).turn_deadline == now + timedelta(seconds=300)

    # The next sweep sees no gap and leaves the new deadlines alone.
    deadline = Match.objects.get(pk=had_50s.pk).turn_deadline
    assert services.sweep_due_turns() == 0
    assert Match.objects.get(pk=had_50s.pk).turn_deadline == deadline


@override_settings(OUTAGE_GAP_SECONDS=30, OUTAGE_GRACE_SECONDS=30)
def test_a_server_bot_whose_task_was_lost_in_an_outage_plays_at_once():
    """Its task failed with the database down: the sweep plays its turn as soon as the
    stack is back, instead of holding every bot table for the people's grace."""
    now = timezone.now()
    _last_sweep(now - timedelta(seconds=120))
    match = services.match_create(
        user=server_bot("expert"),
        ruleset="classic",
        max_players=3,
        turn_seconds=60,
        bots=["cautious", "random"],
    ).match  # every seat a server bot
    _set_deadline(match, now - timedelta(seconds=60))
    version = Match.objects.get(pk=match.pk).version
    assert services.sweep_due_turns() == 1
    assert Match.objects.get(pk=match.pk).version > version
    assert not _timed_out(match)


@override_settings(OUTAGE_GAP_SECONDS=30)
def test_without_an_outage_a_due_deadline_times_out_at_once():
    now = timezone.now()
    _last_sweep(now - timedelta(seconds=2))
    match = _forfeit_match()
    _set_deadline(match, now - timedelta(seconds=1))
    assert services.sweep_due_turns() == 1
    assert _timed_out(match)


@override_settings(OUTAGE_GAP_SECONDS=30)
def test_a_deadline_task_after_an_outage_leaves_the_turn_to_the_sweep():
    now = timezone.now()
    _last_sweep(now - timedelta(seconds=120))
    match = _forfeit_match()
    _set_deadline(match, now - timedelta(seconds=60))
    # A task restored by the broker runs before the first sweep after the outage.
    assert services.turn_timeout(match_id=match.pk, version=match.version) is False
    assert not _timed_out(match)


def test_heartbeat_returns_the_previous_beat():
    first = timezone.now()
    with transaction.atomic():
        assert heartbeat.beat("job", now=first) is None
    with transaction.atomic():
        assert heartbeat.beat("job", now=first + timedelta(seconds=5)) == first
    assert heartbeat.silent_for("job", now=first + timedelta(seconds=9)) == timedelta(seconds=4)
    assert heartbeat.silent_for("never", now=first) is None
