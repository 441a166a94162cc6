"""Common-pool Liar's Dice (RULES 1) as a `RulesEngine`."""

from __future__ import annotations

from ..family import FamilyEngine
from . import play, views
from .rules import COMMON_POOL, CommonPoolRules
from .state import CommonPoolRound, CommonPoolState


class CommonPoolEngine(FamilyEngine):
    """Every dice cup hidden, one pool of dice bid on (`RulesEngine`)."""

    family = COMMON_POOL
    rules_type = CommonPoolRules
    state_type = CommonPoolState

    new_match = staticmethod(play.new_match)
    legal_actions = staticmethod(play.legal_actions)
    apply = staticmethod(play.apply)
    forfeit = staticmethod(play.forfeit)
    view_for = staticmethod(views.view_for)
    reveal_round = staticmethod(views.reveal_round)
    commitment_material = staticmethod(views.commitment_material)
    held_dice = staticmethod(views.held_dice)
    state_from_json = staticmethod(CommonPoolState.from_json)

    @staticmethod
    def loser(state: CommonPoolState) -> int | None:
        """Nobody: a common-pool match has winners and places, no single loser."""
        return None


ENGINE = CommonPoolEngine()

__all__ = [
    "COMMON_POOL",
    "ENGINE",
    "CommonPoolEngine",
    "CommonPoolRound",
    "CommonPoolRules",
    "CommonPoolState",
]
