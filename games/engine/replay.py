"""Rebuild a state from its rules, the dice rolled and the actions (a fold over apply)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .engine import apply, new_match
from .errors import ReplayError
from .rules import Rules
from .state import State


class ScriptedDice:
    """A dice source that returns recorded values in order (checks each fits its range)."""

    def __init__(self, values: Iterable[int]) -> None:
        self._values = list(values)
        self._pos = 0

    def randint(self, a: int, b: int) -> int:
        if self._pos >= len(self._values):
            raise ReplayError("the recorded dice ran out")
        value = self._values[self._pos]
        if not a <= value <= b:
            raise ReplayError(f"recorded value {value} at {self._pos} is not in {a}..{b}")
        self._pos += 1
        return value

    @property
    def used(self) -> int:
        return self._pos


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

    With `strict`, every recorded value must be consumed.
    """
    dice = ScriptedDice(rolls)
    state, _ = new_match(rules, n_players, dice, creator_seat=creator_seat, opener_seat=opener_seat)
    for action in actions:
        state, _ = apply(state, action, dice)
    if strict and dice.used != len(rolls):
        raise ReplayError(f"{len(rolls) - dice.used} recorded dice were not used")
    return state
