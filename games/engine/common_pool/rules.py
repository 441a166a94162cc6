"""Common-pool options (RULES 1 and 3) and their validation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..limits import MAX_DICE_PER_PLAYER, MIN_DICE_PER_PLAYER
from ..rule_options import OptionConflict, check_bool, check_choice, check_int

COMMON_POOL = "common_pool"

# Allowed values of every enumerated option.
CHOICES: dict[str, tuple[str, ...]] = {
    "ones_bids": ("half", "face", "forbidden", "perudo"),
    "loss": ("difference", "one"),
    "exact_outcome": ("others_lose_one", "challenger_loses_one"),
    "first_opener": ("random", "creator", "roll_off"),
    "next_opener": ("challenge_winner", "round_loser", "challenger"),
    "show_and_reroll": ("off", "after_reroll", "before_raise"),
}
BOOL_OPTIONS = ("ones_wild", "exact_spares_last_die", "exact_call", "pass_call", "palifico")
COMMON_OPTIONS = (
    "dice_per_player",
    "ones_wild",
    "ones_bids",
    "loss",
    "exact_outcome",
    "exact_spares_last_die",
    "first_opener",
    "next_opener",
    "show_and_reroll",
    "exact_call",
    "pass_call",
    "palifico",
)


@dataclass(frozen=True, slots=True)
class CommonPoolRules:
    """Every option of a common-pool match."""

    family: ClassVar[str] = COMMON_POOL
    loss_unit: ClassVar[str] = "dice"  # what a lost challenge costs
    option_names: ClassVar[tuple[str, ...]] = COMMON_OPTIONS

    dice_per_player: int = 5
    ones_wild: bool = True
    ones_bids: str = "half"
    loss: str = "difference"
    exact_outcome: str = "others_lose_one"
    exact_spares_last_die: bool = True
    first_opener: str = "random"
    next_opener: str = "challenge_winner"
    show_and_reroll: str = "after_reroll"
    exact_call: bool = False
    pass_call: bool = False
    palifico: bool = False  # Perudo: the round after a player first drops to one die

    def __post_init__(self) -> None:
        check_int("dice_per_player", self.dice_per_player, MIN_DICE_PER_PLAYER, MAX_DICE_PER_PLAYER)
        for name in BOOL_OPTIONS:
            check_bool(name, getattr(self, name))
        for name, choices in CHOICES.items():
            check_choice(name, getattr(self, name), choices)
        if self.ones_bids == "face" and self.ones_wild:
            why = "a one cannot be both an ordinary face and wild"
            raise OptionConflict(("ones_bids", "face"), ("ones_wild", True), why)

    @property
    def names_opener(self) -> bool:
        """The creator names the seat that opens round 1 (`first_opener: creator`)."""
        return self.first_opener == "creator"

    def options(self) -> dict[str, Any]:
        """The options as the API lists them."""
        return {name: getattr(self, name) for name in COMMON_OPTIONS}

    def to_dict(self) -> dict[str, Any]:
        """JSON form: `{"family": ..., <options>}`."""
        return {"family": COMMON_POOL, **self.options()}
