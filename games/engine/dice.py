"""Dice sources: anything with `randint(a, b)`, and the scripted one that replays a log."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Protocol

from .errors import ReplayError
from .limits import FACES

_SIDES = len(FACES)


class DiceSource(Protocol):
    """Anything with `randint(a, b)`: random.Random, random.SystemRandom, ScriptedDice."""

    def randint(self, a: int, b: int) -> int: ...


def roll(rng: DiceSource, count: int, log: list[int]) -> tuple[int, ...]:
    """Roll `count` six-sided dice, appending every value to `log` (the replay record).

    A random.Random (or SystemRandom) rolls all the dice in one `choices` call: randint
    costs about 1 us per die and rolling is most of a new round. Any other source (a
    ScriptedDice in replay) is asked through `randint` as documented.
    """
    if isinstance(rng, random.Random):
        # What rng.choices(FACES, k=count) returns, without its per-call overhead.
        rnd = rng.random
        values = tuple([FACES[int(rnd() * _SIDES)] for _ in range(count)])
    else:
        values = tuple([rng.randint(FACES[0], FACES[-1]) for _ in range(count)])
    log.extend(values)
    return values


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
