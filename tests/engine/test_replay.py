"""Replay: rebuilding a state from rules, recorded dice and actions."""

from __future__ import annotations

import random

import pytest

from games.engine import (
    ReplayError,
    ScriptedDice,
    apply,
    held_dice,
    new_match,
    replay,
    round_number,
    rules_from_preset,
)
from games.engine.bots.random_play import random_action


def _play(preset: str, n: int, seed: int, steps: int, **kw):
    rules = rules_from_preset(preset)
    rng = random.Random(seed)
    state, _ = new_match(rules, n, rng, **kw)
    actions = []
    for _ in range(steps):
        if state.finished:
            break
        action = random_action(state, rng)
        state, _ = apply(state, action, rng)
        actions.append(action)
    return rules, state, actions


@pytest.mark.parametrize("preset", ["milton_bradley", "roll_off", "classic", "poker_dice"])
def test_replay_rebuilds_the_state(preset):
    rules, state, actions = _play(preset, 4, 11, 40)
    assert replay(rules, 4, state.rolls, actions) == state


def test_replay_with_creator_opener():
    rules = rules_from_preset("classic", {"first_opener": "creator"})
    rng = random.Random(2)
    state, _ = new_match(rules, 3, rng, creator_seat=1, opener_seat=2)
    assert state.round.opener == 2
    action = random_action(state, rng)
    state, _ = apply(state, action, rng)
    again = replay(rules, 3, state.rolls, [action], creator_seat=1, opener_seat=2)
    assert again == state


def test_replay_detects_wrong_dice():
    rules, state, actions = _play("milton_bradley", 3, 5, 20)
    with pytest.raises(ReplayError):
        replay(rules, 3, state.rolls[:-1], actions)  # ran out
    with pytest.raises(ReplayError):
        replay(rules, 3, (*state.rolls, 3), actions)  # left over
    with pytest.raises(ReplayError):
        ScriptedDice([7]).randint(1, 6)


def test_held_dice_and_round_number():
    _, state, _ = _play("milton_bradley", 3, 5, 0)
    held = held_dice(state)["0"]
    assert held["cup"] == list(state.round.dice[0]) and held["shown"] == []
    assert held["rolls"] == [list(state.round.dice[0])]
    assert round_number(state) == 1
    _, state, _ = _play("poker_dice", 3, 5, 0)
    assert len(held_dice(state)["box"]["box"]) == 5
