"""The rule families by name: the one place that knows which families exist.

The server asks `engine_for(rules)` / `engine_of(state)` for a family's `RulesEngine`
and never branches on the family itself.
"""

from __future__ import annotations

from typing import Any

from .common_pool import ENGINE as COMMON_POOL_ENGINE
from .common_pool import CommonPoolRules, CommonPoolState
from .errors import ErrorCode, IllegalAction, InvalidRules
from .interface import RulesEngine
from .poker_dice import ENGINE as POKER_DICE_ENGINE
from .poker_dice import PokerDiceRules, PokerDiceState

Rules = CommonPoolRules | PokerDiceRules
State = CommonPoolState | PokerDiceState

ENGINES: dict[str, RulesEngine] = {
    COMMON_POOL_ENGINE.family: COMMON_POOL_ENGINE,
    POKER_DICE_ENGINE.family: POKER_DICE_ENGINE,
}
FAMILIES = tuple(ENGINES)
_BY_RULES: dict[type, RulesEngine] = {e.rules_type: e for e in ENGINES.values()}
_BY_STATE: dict[type, RulesEngine] = {e.state_type: e for e in ENGINES.values()}


def engine_for(rules: Rules) -> RulesEngine:
    """The engine of the family `rules` belong to."""
    engine = _BY_RULES.get(type(rules))
    if engine is None:
        raise InvalidRules("rules", "rules must be the rules of a known family")
    return engine


def engine_of(state: State) -> RulesEngine:
    """The engine that made `state`."""
    return _BY_STATE[type(state)]


def rules_from_dict(data: dict[str, Any]) -> Rules:
    """Inverse of `rules.to_dict()`; unknown or foreign options are rejected by name."""
    if not isinstance(data, dict):
        raise InvalidRules("rules", "rules must be an object")
    family = data.get("family", COMMON_POOL_ENGINE.family)
    engine = ENGINES.get(family)
    if engine is None:
        raise InvalidRules("family", f"family must be one of {', '.join(FAMILIES)}")
    allowed = engine.rules_type.option_names
    options = {key: value for key, value in data.items() if key != "family"}
    for key in options:
        if key not in allowed:
            raise InvalidRules(key, f"unknown option {key!r} for {family}")
    return engine.rules_type(**options)


def state_from_json(data: dict[str, Any]) -> State:
    """A state from its JSON form (`state.to_json()`), of whichever family it is."""
    family = data.get("rules", {}).get("family") if isinstance(data, dict) else None
    engine = ENGINES.get(family)
    if engine is None:
        raise IllegalAction(ErrorCode.VALIDATION_ERROR, f"corrupt state: family {family!r}")
    return engine.state_from_json(data)
