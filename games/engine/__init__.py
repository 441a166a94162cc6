"""Pure rules engine for Liar's Dice (common pool) and poker-dice Liar Dice.

Imports nothing from Django or any app. One `RulesEngine` per family (`common_pool/`,
`poker_dice/`); the functions here hand each call to the family of its rules or state,
so a caller never asks which family it holds. See docs/ARCHITECTURE.md for its modules.
"""

from __future__ import annotations

from typing import Any

from . import limits
from .dice import DiceSource, ScriptedDice
from .errors import EngineError, ErrorCode, IllegalAction, InvalidRules, ReplayError
from .interface import RulesEngine
from .presets import PRESETS, preset_list, rules_from_preset
from .registry import (
    ENGINES,
    FAMILIES,
    Rules,
    State,
    engine_for,
    engine_of,
    rules_from_dict,
    state_from_json,
)
from .replay import FORFEIT_LOG_ENTRY, replay

Outcome = tuple[State, list[dict]]

# The hot paths (a driver loop calls them for every action) look the family up once.
_APPLY = {e.state_type: e.apply for e in ENGINES.values()}
_LEGAL = {e.state_type: e.legal_actions for e in ENGINES.values()}


def new_match(
    rules: Rules,
    n_players: int,
    rng: DiceSource,
    *,
    creator_seat: int = 0,
    opener_seat: int | None = None,
) -> Outcome:
    """Start a match: choose the first opener, roll round 1. Returns (state, events).

    `opener_seat` is the seat the creator names (`rules.names_opener`); in poker dice it
    is player one of round 1 (drawn at random when None).
    """
    return engine_for(rules).new_match(
        rules, n_players, rng, creator_seat=creator_seat, opener_seat=opener_seat
    )


def legal_actions(state: State, seat: int | None) -> list[dict]:
    """What `seat` may do now (empty when it is not their turn or the match is over)."""
    return _LEGAL[type(state)](state, seat)


def apply(state: State, action: dict, rng: DiceSource) -> Outcome:
    """Apply one action (API body plus "seat"). Returns (new state, events).

    Raises IllegalAction for anything malformed or not allowed; never changes `state`.
    """
    return _APPLY[type(state)](state, action, rng)


def forfeit(state: State, seat: int, rng: DiceSource) -> Outcome:
    """`seat` leaves the match at once (timeouts, a ban, a moderator): not an action."""
    return engine_of(state).forfeit(state, seat, rng)


def view_for(state: State, seat: int | None) -> dict:
    """The match as `seat` may see it (None = spectator): the one hidden-dice filter."""
    return engine_of(state).view_for(state, seat)


def reveal_round(state: State) -> dict[str, Any] | None:
    """The round in play with every die revealed (an abort); None between rounds."""
    return engine_of(state).reveal_round(state)


def commitment_material(state: State) -> dict[str, list]:
    """What each dice commitment covers now, {key: dice}; the server salts and hashes."""
    return engine_of(state).commitment_material(state)


def held_dice(state: State) -> dict[str, Any]:
    """Every hidden die now (a moderator's audited look); never for players."""
    return engine_of(state).held_dice(state)


def current_seat(state: State) -> int | None:
    """Whose turn it is, or None when the match is over."""
    return None if state.finished else state.round.turn


def is_over(state: State) -> bool:
    return state.finished


def winners(state: State) -> list[int]:
    """Winning seats (empty while the match runs). Poker dice: everyone but the loser."""
    return list(state.winners)


def loser(state: State) -> int | None:
    """The seat that lost the match, for a family that names one (poker dice)."""
    return engine_of(state).loser(state)


def round_number(state: State) -> int:
    """Number of the current round (of the last round once the match is over)."""
    return engine_of(state).round_number(state)


def placements(state: State) -> dict[str, int]:
    """Final place per seat (1 = best, ties share), once the match is over."""
    return engine_of(state).placements(state)


__all__ = [
    "FAMILIES",
    "FORFEIT_LOG_ENTRY",
    "PRESETS",
    "DiceSource",
    "EngineError",
    "ErrorCode",
    "IllegalAction",
    "InvalidRules",
    "ReplayError",
    "Rules",
    "RulesEngine",
    "ScriptedDice",
    "State",
    "apply",
    "commitment_material",
    "current_seat",
    "engine_for",
    "engine_of",
    "forfeit",
    "held_dice",
    "is_over",
    "legal_actions",
    "limits",
    "loser",
    "new_match",
    "placements",
    "preset_list",
    "replay",
    "reveal_round",
    "round_number",
    "rules_from_dict",
    "rules_from_preset",
    "state_from_json",
    "view_for",
    "winners",
]
