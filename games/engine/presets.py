"""The named rule presets (RULES 3) and single-option overrides of them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .common_pool import CommonPoolRules
from .errors import InvalidRules
from .poker_dice import PokerDiceRules
from .registry import Rules
from .rule_options import OptionConflict, show_option

PRESETS: dict[str, Rules] = {
    "milton_bradley": CommonPoolRules(),
    "wild_ones": CommonPoolRules(
        exact_spares_last_die=False, next_opener="round_loser", show_and_reroll="off"
    ),
    "roll_off": CommonPoolRules(
        exact_outcome="challenger_loses_one",
        exact_spares_last_die=False,
        first_opener="roll_off",
        next_opener="round_loser",
        show_and_reroll="off",
    ),
    "classic": CommonPoolRules(
        ones_wild=False,
        ones_bids="face",
        loss="one",
        exact_outcome="challenger_loses_one",
        exact_spares_last_die=False,
        next_opener="challenger",
        show_and_reroll="off",
    ),
    "perudo": CommonPoolRules(
        ones_bids="perudo",
        loss="one",
        exact_outcome="challenger_loses_one",
        exact_spares_last_die=False,
        next_opener="round_loser",
        show_and_reroll="off",
        exact_call=True,
        palifico=True,
    ),
    "poker_dice": PokerDiceRules(lives=3),
}

# Wild ones cannot keep the `face` order (a one would be both the lowest face and wild):
# turning them on alone brings the order every wild-ones sheet uses. RULES 3, Decision.
WILD_ONES_BIDS = "half"


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
    for key in overrides:
        if key not in base.option_names:
            raise InvalidRules(key, f"unknown option {key!r} for ruleset {name}")
    if (
        overrides.get("ones_wild") is True
        and "ones_bids" not in overrides
        and getattr(base, "ones_bids", None) == "face"
    ):
        overrides["ones_bids"] = WILD_ONES_BIDS
    try:
        return replace(base, **overrides)
    except OptionConflict as exc:
        changed, kept = sorted(exc.pair, key=lambda p: p[0] not in overrides)
        if kept[0] in overrides:
            raise  # both options were overridden: the message names both
        # One value is the user's, the other the preset's: name the user's option.
        raise InvalidRules(
            changed[0],
            f"{show_option(*changed)} cannot be combined with {name}'s {show_option(*kept)}: "
            f"{exc.why} (override {kept[0]} too)",
        ) from None


def preset_list() -> list[dict[str, Any]]:
    """`[{name, family, options}]` as GET /rulesets/ returns it."""
    return [
        {"name": name, "family": rules.family, "options": rules.options()}
        for name, rules in PRESETS.items()
    ]
