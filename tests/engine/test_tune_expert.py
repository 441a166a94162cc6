"""The expert's tuner (bench/tune_expert.py): any parameters it can reach play legally, and a
tiny double oracle runs end to end on the same deals every time."""

from __future__ import annotations

import argparse
import random

import pytest

from bench.arena import expert_with, play
from bench.exploit_tuner import Runner
from bench.tune_expert import POKER_SPACE, POOL_SPACE, expert_shares, tune_preset
from games.engine import PRESETS, rules_from_preset
from games.engine.bots import STRATEGIES
from games.engine.bots.poker_expert import TUNED as POKER_TUNED
from games.engine.bots.pool_expert import PARAMS_BY_PRESET
from games.engine.poker_dice.rules import POKER_DICE


def _space(preset: str) -> dict:
    return POKER_SPACE if rules_from_preset(preset).family == POKER_DICE else POOL_SPACE


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_expert_plays_legally_at_every_corner_of_the_search_space(preset):
    """`apply` rejects an illegal action, so whole games are the check."""
    rules = rules_from_preset(preset)
    rng = random.Random(3)
    for end in (0, 1):
        params = {name: bounds[end] for name, bounds in _space(preset).items()}
        for players in (2, 4):
            seats = [STRATEGIES[rng.choice(sorted(STRATEGIES))] for _ in range(players)]
            seats[end % players] = expert_with(rules.family, params)
            winners, lost = play(rules, seats, rng)
            assert winners or lost is not None


def test_every_common_pool_preset_has_its_own_tuning():
    pool_presets = {p for p in PRESETS if rules_from_preset(p).family != POKER_DICE}
    assert set(PARAMS_BY_PRESET) == pool_presets
    assert POKER_TUNED is not None


def test_a_tiny_double_oracle_runs_and_repeats():
    args = argparse.Namespace(
        rounds=1, budget=2, games=6, exploit_budget=2, exploit_games=6, seed=1
    )
    runner = Runner(1)
    tuned = tune_preset(runner, "classic", args)
    assert set(POOL_SPACE) <= set(tuned)
    for name, (low, high) in POOL_SPACE.items():
        assert low <= tuned[name] <= high
    shares = expert_shares(runner, "classic", tuned, ["hard", "cautious"], 6, seed=9)
    assert all(0 <= s <= 1 for s in shares)
    assert shares == expert_shares(runner, "classic", tuned, ["hard", "cautious"], 6, seed=9)
