"""One game between strategy callables, and the Wilson interval (shared by the bot benches).

Engine only: no Django, no I/O. A seat is any `Strategy` callable
`(view, legal, rng) -> action` (see games/engine/bots/view_play.py).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import asdict
from functools import partial

from games.engine import apply, legal_actions, loser, new_match, rules_from_preset, view_for
from games.engine.bots.common_pool_strategies import PoolParams
from games.engine.bots.poker_expert import TUNED as POKER_TUNED
from games.engine.bots.poker_expert import PokerParams, expert_poker
from games.engine.bots.pool_expert import PARAMS_BY_PRESET, expert_pool
from games.engine.bots.view_play import Strategy
from games.engine.poker_dice.rules import POKER_DICE

MAX_ACTIONS = 20_000


def play(
    rules,
    strategies: list[Strategy],
    rng: random.Random,
    timings: dict | None = None,
    labels: list[str] | None = None,
) -> tuple[list[int], int | None]:
    """Play one game with one strategy per seat; return (the seats that won, the seat that
    lost when the family names one: poker dice's jug, RULES 2).

    `timings` collects decision times in seconds per `labels[seat]` when given.
    """
    state, _ = new_match(rules, len(strategies), rng)
    clock = time.perf_counter
    for _ in range(MAX_ACTIONS):
        if state.finished:
            return list(state.winners), loser(state)
        seat = state.round.turn
        view = view_for(state, seat)
        legal = legal_actions(state, seat)
        t0 = clock()
        action = strategies[seat](view, legal, rng)
        if timings is not None:
            timings.setdefault(labels[seat], []).append(clock() - t0)
        action["seat"] = seat
        state, _ = apply(state, action, rng)
    raise RuntimeError("a game did not end")


def tuned_expert_params(preset: str) -> dict:
    """The expert's tuned parameters for `preset`, as `expert_with` takes them."""
    if rules_from_preset(preset).family == POKER_DICE:
        return asdict(POKER_TUNED)
    return asdict(PARAMS_BY_PRESET[preset])


def expert_with(family: str, params: dict) -> Strategy:
    """The family's expert with these parameters instead of its tuned ones."""
    if family == POKER_DICE:
        return partial(expert_poker, params=PokerParams(**params))
    return partial(expert_pool, params=PoolParams(**params))


def seat_won(seat: int, winners: list[int], lost: int | None) -> bool:
    """Did `seat` win? Poker dice names a loser (not losing is the win); else the winner."""
    return lost != seat if lost is not None else seat == winners[0]


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float, float]:
    """(rate, low, high): Wilson score interval."""
    if n == 0:
        return 0.0, 0.0, 0.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return p, centre - half, centre + half
