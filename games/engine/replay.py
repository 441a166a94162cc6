"""Rebuild a state from its rules, the dice rolled and the actions (a fold over apply)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .dice import ScriptedDice
from .errors import ReplayError
from .registry import Rules, State, engine_for

FORFEIT_LOG_ENTRY = (
    "forfeit"  # a log entry for the server's forfeit; never an action a player sends
)


def replay(
    rules: Rules,
    n_players: int,
    rolls: Sequence[int],
    actions: Iterable[dict],
    *,
    creator_seat: int = 0,
    opener_seat: int | None = None,
    strict: bool = True,
) -> State:
    """The state after `actions`, with `rolls` (state.rolls of a later state) as the dice.

    `actions` is the match's log: what players did, and `{"type": "forfeit", "seat": s}`
    where the server made a seat forfeit. With `strict`, every recorded value must be
    consumed.
    """
    engine = engine_for(rules)
    dice = ScriptedDice(rolls)
    state, _ = engine.new_match(
        rules, n_players, dice, creator_seat=creator_seat, opener_seat=opener_seat
    )
    for action in actions:
        if action.get("type") == FORFEIT_LOG_ENTRY:
            state, _ = engine.forfeit(state, action["seat"], dice)
        else:
            state, _ = engine.apply(state, action, dice)
    if strict and dice.used != len(rolls):
        raise ReplayError(f"{len(rolls) - dice.used} recorded dice were not used")
    return state
