"""The pure simulation behind `manage.py simulate`."""

from __future__ import annotations

import pytest

from games.engine import PRESETS, InvalidRules
from games.engine.bots.simulation import simulate


@pytest.mark.parametrize("preset", list(PRESETS))
def test_simulate_every_preset(preset):
    ticks = []
    summary = simulate(preset, 3, 20, seed=7, progress=ticks.append)
    assert ticks == [1] * 20
    assert summary["games"] == 20 and summary["players"] == 3
    assert summary["rounds_per_game"] >= 1
    assert summary["actions_per_game"] >= 2 * summary["rounds_per_game"] - 1e-9
    assert sum(summary["win_rate_by_seat"].values()) == pytest.approx(1.0)
    unit = "lives" if preset == "poker_dice" else "dice"
    assert summary[f"{unit}_lost_per_challenge"] > 0


def test_simulate_is_reproducible_with_a_seed():
    a = simulate(
        "wild_ones", 4, 15, seed=3, options={"loss": "one", "exact_outcome": "challenger_loses_one"}
    )
    b = simulate(
        "wild_ones", 4, 15, seed=3, options={"loss": "one", "exact_outcome": "challenger_loses_one"}
    )
    assert a == b and a["options"]["loss"] == "one"
    assert a["dice_lost_per_challenge"] == 1.0


def test_simulate_rejects_bad_options():
    with pytest.raises(InvalidRules) as err:
        simulate("milton_bradley", 3, 1, options={"ones_bids": "face"})
    assert err.value.option == "ones_bids"  # the option the caller changed
