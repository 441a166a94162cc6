"""Poker-dice options (RULES 2 and 3) and their validation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..limits import MAX_LIVES, MIN_LIVES
from ..rule_options import check_int

POKER_DICE = "poker_dice"
POKER_OPTIONS = ("lives",)


@dataclass(frozen=True, slots=True)
class PokerDiceRules:
    """Every option of a poker-dice match."""

    family: ClassVar[str] = POKER_DICE
    loss_unit: ClassVar[str] = "lives"  # what a lost challenge costs
    option_names: ClassVar[tuple[str, ...]] = POKER_OPTIONS

    lives: int = 3

    def __post_init__(self) -> None:
        check_int("lives", self.lives, MIN_LIVES, MAX_LIVES)

    @property
    def names_opener(self) -> bool:
        """Player one of round 1 is drawn at random: the creator names nobody."""
        return False

    def options(self) -> dict[str, Any]:
        return {"lives": self.lives}

    def to_dict(self) -> dict[str, Any]:
        return {"family": POKER_DICE, "lives": self.lives}
