"""A knockout run in this process through the services (no worker): stages, places,
prizes and the ledger."""

import random

import pytest

from ledger.selectors import wallet_balance
from tests.factories import PlayerFactory, play_match_out
from tests.tournaments.helpers import assert_finished_and_paid, fill, knockout
from tournaments.models import Stage, Table, Tournament
from tournaments.services import (
    table_sizes,
    tournament_advance,
    tournament_start,
    tournaments_sweep,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _play_stage(tournament: Tournament, rng: random.Random) -> None:
    stage = Stage.objects.filter(tournament=tournament).order_by("-number").first()
    for table in Table.objects.filter(stage=stage).select_related("match"):
        play_match_out(table.match, rng)
    assert tournament_advance(tournament_id=tournament.pk)
    assert not tournament_advance(tournament_id=tournament.pk)  # done once


def test_a_16_entrant_knockout_runs_to_its_final_and_pays_the_table():
    creator = PlayerFactory()
    people = [PlayerFactory() for _ in range(6)]
    tournament = knockout(creator, min_entrants=16, max_entrants=16)
    fill(tournament, people=people, bots=10)
    assert tournament_start(tournament_id=tournament.pk)
    rng = random.Random(3)
    for _ in range(3):
        _play_stage(tournament, rng)
    assert Stage.objects.filter(tournament=tournament).count() == 3
    assert_finished_and_paid(tournament)
    tournament.refresh_from_db()
    for person in people:
        entry = tournament.entries.get(user=person)
        assert wallet_balance(user=person) == 1000 - 100 + entry.prize


def test_table_sizes_seat_everyone_evenly():
    assert table_sizes(16, 4) == [4, 4, 4, 4]
    assert table_sizes(10, 4) == [4, 3, 3]
    assert table_sizes(65, 8) == [8, 8, 7, 7, 7, 7, 7, 7, 7]
    assert table_sizes(4, 3) == [2, 2]


def test_the_sweep_starts_and_advances_what_a_lost_task_left_undone():
    """A worker killed mid-advance rolls its transaction back, as if its task were
    lost: the beat's sweep does it, once."""
    tournament = knockout(PlayerFactory(), min_entrants=8, max_entrants=8)
    fill(tournament, bots=8)  # the start task queued by the last entry goes to no worker
    assert tournaments_sweep() == 1
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    rng = random.Random(5)
    for table in Table.objects.filter(stage__tournament=tournament).select_related("match"):
        play_match_out(table.match, rng)
    assert tournaments_sweep() == 1
    assert tournaments_sweep() == 0
    assert Stage.objects.filter(tournament=tournament).count() == 2
