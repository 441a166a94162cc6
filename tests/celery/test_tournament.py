"""Issue 26's acceptance: a 16-entrant knockout of bots and absent people (tables of 4,
the top 2 advance) runs to its end by itself, with a real worker and beat: the beat
starts it at its time, each table's end queues the next stage, the timeout policy plays
the absent."""

from datetime import timedelta

import pytest
from django.utils import timezone

from ledger.selectors import wallet_balance
from tests.celery.conftest import wait_until
from tests.factories import PlayerFactory
from tests.tournaments.helpers import assert_finished_and_paid, fill, knockout
from tournaments.models import Stage, Table, Tournament

pytestmark = pytest.mark.slow


def _status(tournament: Tournament) -> str:
    tournament.refresh_from_db()
    return tournament.status


def test_a_16_entrant_knockout_of_bots_and_absent_people_plays_itself_out(celery_processes):
    celery_processes.env["TOURNAMENT_SWEEP_SECONDS"] = "0.5"
    creator = PlayerFactory()
    absent = [PlayerFactory() for _ in range(6)]
    tournament = knockout(
        creator,
        min_entrants=16,
        max_entrants=20,  # so it waits for its time: the beat starts it
        starts_at=timezone.now() + timedelta(seconds=6),
        turn_seconds=1,
        max_timeouts=2,
    )
    fill(tournament, people=absent, bots=10)
    celery_processes.start_worker()
    celery_processes.start_beat()
    wait_until(lambda: _status(tournament) != Tournament.Status.REGISTERING, timeout=60)
    wait_until(lambda: _status(tournament) == Tournament.Status.FINISHED, timeout=600, interval=1)

    assert_finished_and_paid(tournament)
    stages = Stage.objects.filter(tournament=tournament).order_by("number")
    assert [(s.number, s.tables.count(), s.final) for s in stages] == [
        (1, 4, False),
        (2, 2, False),
        (3, 1, True),
    ]
    seated = [
        sorted(t.match.seats.values_list("player_id", flat=True))
        for t in Table.objects.filter(stage__tournament=tournament)
    ]
    assert [len(s) for s in seated] == [4, 4, 4, 4, 4, 4, 4]
    for person in absent:
        entry = tournament.entries.get(user=person)
        assert wallet_balance(user=person) == 1000 - tournament.buy_in + entry.prize
