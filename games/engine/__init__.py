"""Pure rules engine for Liar's Dice (common pool) and poker-dice Liar Dice.

Imports nothing from Django. See RULES.md / API.md for the rules and shapes.
"""

from .bots import random_action
from .engine import (
    apply,
    current_seat,
    dice_counts,
    is_over,
    legal_actions,
    lives,
    new_match,
    placements,
    round_number,
    seat_dice,
    seat_status,
    winners,
)
from .errors import EngineError, ErrorCode, IllegalAction, InvalidRules, ReplayError
from .replay import ScriptedDice, replay
from .rules import COMMON_POOL, POKER_DICE, PRESETS, Rules, preset_list, rules_from_preset
from .simulate import simulate
from .state import PokerRound, PoolRound, State
from .views import view_for

__all__ = [
    "COMMON_POOL",
    "POKER_DICE",
    "PRESETS",
    "EngineError",
    "ErrorCode",
    "IllegalAction",
    "InvalidRules",
    "PokerRound",
    "PoolRound",
    "ReplayError",
    "Rules",
    "ScriptedDice",
    "State",
    "apply",
    "current_seat",
    "dice_counts",
    "is_over",
    "legal_actions",
    "lives",
    "new_match",
    "placements",
    "preset_list",
    "random_action",
    "replay",
    "round_number",
    "rules_from_preset",
    "seat_dice",
    "seat_status",
    "simulate",
    "view_for",
    "winners",
]
