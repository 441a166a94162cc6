"""Rule options, presets and their validation (RULES.md sections 1-3)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from .errors import InvalidRules

COMMON_POOL = "common_pool"
POKER_DICE = "poker_dice"
FAMILIES = (COMMON_POOL, POKER_DICE)

MIN_PLAYERS = 2
MAX_PLAYERS = 8

# Allowed values of every enumerated option.
CHOICES: dict[str, tuple[str, ...]] = {
    "ones_bids": ("half", "face", "forbidden"),
    "loss": ("difference", "one"),
    "exact_outcome": ("others_lose_one", "challenger_loses_one"),
    "first_opener": ("random", "creator", "roll_off"),
    "next_opener": ("challenge_winner", "round_loser", "challenger"),
    "show_and_reroll": ("off", "after_reroll", "before_raise"),
}
BOOL_OPTIONS = ("ones_wild", "exact_spares_last_die", "exact_call", "pass_call")
INT_RANGES: dict[str, tuple[int, int]] = {"dice_per_player": (1, 10), "lives": (1, 10)}

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
)
POKER_OPTIONS = ("lives",)


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of a match. Poker dice uses only `lives`; common pool ignores it."""

    family: str = COMMON_POOL
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
    lives: int = 3

    def __post_init__(self) -> None:
        validate(self)

    @property
    def is_poker(self) -> bool:
        return self.family == POKER_DICE

    def options(self) -> dict[str, Any]:
        """The options that apply to this family (what the API lists)."""
        names = POKER_OPTIONS if self.is_poker else COMMON_OPTIONS
        return {name: getattr(self, name) for name in names}

    def to_dict(self) -> dict[str, Any]:
        """JSON form: `{"family": ..., <options of that family>}`."""
        return {"family": self.family, **self.options()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Inverse of `to_dict`; unknown or foreign options are rejected."""
        if not isinstance(data, dict):
            raise InvalidRules("rules", "rules must be an object")
        family = data.get("family", COMMON_POOL)
        if family not in FAMILIES:
            raise InvalidRules("family", f"family must be one of {', '.join(FAMILIES)}")
        allowed = POKER_OPTIONS if family == POKER_DICE else COMMON_OPTIONS
        for key in data:
            if key != "family" and key not in allowed:
                raise InvalidRules(key, f"unknown option {key!r} for {family}")
        return cls(**data)


def validate(rules: Rules) -> None:
    """Raise InvalidRules naming the first bad option."""
    if rules.family not in FAMILIES:
        raise InvalidRules("family", f"family must be one of {', '.join(FAMILIES)}")
    for name, (lo, hi) in INT_RANGES.items():
        value = getattr(rules, name)
        # bool is an int subclass; True must not pass for 1.
        if type(value) is not int or not lo <= value <= hi:
            raise InvalidRules(name, f"{name} must be an integer from {lo} to {hi}")
    for name in BOOL_OPTIONS:
        if type(getattr(rules, name)) is not bool:
            raise InvalidRules(name, f"{name} must be true or false")
    for name, choices in CHOICES.items():
        if getattr(rules, name) not in choices:
            raise InvalidRules(name, f"{name} must be one of {', '.join(choices)}")
    if rules.ones_bids == "face" and rules.ones_wild:
        why = "a one cannot be both an ordinary face and wild"
        raise OptionConflict(("ones_bids", "face"), ("ones_wild", True), why)


class OptionConflict(InvalidRules):
    """Two valid option values that cannot go together; `option` is the first of `pair`."""

    def __init__(self, first: tuple[str, Any], second: tuple[str, Any], why: str) -> None:
        detail = f"{_show(*first)} cannot be combined with {_show(*second)}: {why}"
        super().__init__(first[0], detail)
        self.pair = (first, second)
        self.why = why


def _show(name: str, value: Any) -> str:
    """`name=value` as the API spells the value (JSON booleans)."""
    return f"{name}={str(value).lower() if isinstance(value, bool) else value}"


_COMMON_DEFAULTS = {f.name: f.default for f in fields(Rules) if f.name in COMMON_OPTIONS}

PRESETS: dict[str, Rules] = {
    "milton_bradley": Rules(),
    "wild_ones": Rules(
        exact_spares_last_die=False, next_opener="round_loser", show_and_reroll="off"
    ),
    "roll_off": Rules(
        exact_outcome="challenger_loses_one",
        exact_spares_last_die=False,
        first_opener="roll_off",
        next_opener="round_loser",
        show_and_reroll="off",
    ),
    "classic": Rules(
        ones_wild=False,
        ones_bids="face",
        loss="one",
        exact_outcome="challenger_loses_one",
        exact_spares_last_die=False,
        next_opener="challenger",
        show_and_reroll="off",
    ),
    "poker_dice": Rules(family=POKER_DICE, **_COMMON_DEFAULTS, lives=3),
}


def rules_from_preset(name: str, overrides: dict[str, Any] | None = None) -> Rules:
    """A preset with single options overridden; errors name the option."""
    if name not in PRESETS:
        raise InvalidRules(
            "ruleset", f"unknown ruleset {name!r}; choose one of {', '.join(PRESETS)}"
        )
    base = PRESETS[name]
    overrides = dict(overrides or {})
    if not overrides:
        return base
    allowed = POKER_OPTIONS if base.is_poker else COMMON_OPTIONS
    for key in overrides:
        if key not in allowed:
            raise InvalidRules(key, f"unknown option {key!r} for ruleset {name}")
    try:
        return replace(base, **overrides)
    except OptionConflict as exc:
        changed, kept = sorted(exc.pair, key=lambda p: p[0] not in overrides)
        if kept[0] in overrides:
            raise  # both options were overridden: the message names both
        # One value is the user's, the other the preset's: name the user's option.
        raise InvalidRules(
            changed[0],
            f"{_show(*changed)} cannot be combined with {name}'s {_show(*kept)}: "
            f"{exc.why} (override {kept[0]} too)",
        ) from None


def preset_list() -> list[dict[str, Any]]:
    """`[{name, family, options}]` as GET /rulesets/ returns it."""
    return [
        {"name": name, "family": rules.family, "options": rules.options()}
        for name, rules in PRESETS.items()
    ]


def rules_as_dict(rules: Rules) -> dict[str, Any]:
    """Every field (both families), for debugging."""
    return asdict(rules)
