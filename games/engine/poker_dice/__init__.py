"""Poker-dice Liar Dice (RULES 2) as a `RulesEngine`."""

from __future__ import annotations

from ..family import FamilyEngine
from . import play, views
from .rules import POKER_DICE, PokerDiceRules
from .state import PokerDiceRound, PokerDiceState


class PokerDiceEngine(FamilyEngine):
    """One box of five poker dice passed round the table (`RulesEngine`)."""

    family = POKER_DICE
    rules_type = PokerDiceRules
    state_type = PokerDiceState

    new_match = staticmethod(play.new_match)
    legal_actions = staticmethod(play.legal_actions)
    apply = staticmethod(play.apply)
    forfeit = staticmethod(play.forfeit)
    view_for = staticmethod(views.view_for)
    reveal_round = staticmethod(views.reveal_round)
    commitment_material = staticmethod(views.commitment_material)
    held_dice = staticmethod(views.held_dice)
    state_from_json = staticmethod(PokerDiceState.from_json)

    @staticmethod
    def loser(state: PokerDiceState) -> int | None:
        """The seat that buys the jug, once the match is over."""
        return state.loser if state.loser >= 0 else None


ENGINE = PokerDiceEngine()

__all__ = [
    "ENGINE",
    "POKER_DICE",
    "PokerDiceEngine",
    "PokerDiceRound",
    "PokerDiceRules",
    "PokerDiceState",
]
