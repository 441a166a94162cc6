"""The published payout table: shares add up to the whole, prizes to the pool."""

import pytest

from tournaments.payouts import FULL, payout_table, places_paid, prizes


@pytest.mark.parametrize("entrants", range(2, 257))
def test_every_table_adds_up_and_pays_better_places_more(entrants):
    table = payout_table(entrants)
    assert sum(table) == FULL
    assert table == sorted(table, reverse=True) and len(set(table)) == len(table)
    assert 1 <= places_paid(entrants) <= entrants


def test_small_fields_and_the_top_fifteen_percent():
    assert payout_table(2) == [10_000]
    assert payout_table(4) == [6_500, 3_500]
    assert payout_table(8) == [5_000, 3_000, 2_000]
    assert places_paid(16) == 3 and places_paid(64) == 10 and places_paid(256) == 39


@pytest.mark.parametrize("pool", [0, 1, 7, 150, 1600, 6400, 999_999])
def test_prizes_add_up_to_the_pool_the_remainder_to_first(pool):
    for entrants in (2, 5, 9, 16, 64):
        table = payout_table(entrants)
        amounts = prizes(pool, table)
        assert sum(amounts) == pool
        floors = [pool * share // FULL for share in table]
        assert amounts[1:] == floors[1:]
        assert 0 <= amounts[0] - floors[0] < len(table)


def test_prizes_of_a_known_pool():
    assert prizes(150, [6_500, 3_500]) == [98, 52]
    assert prizes(1600, [5_000, 3_000, 2_000]) == [800, 480, 320]
