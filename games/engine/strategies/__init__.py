"""Bot strategies for both families: `random`, `cautious`, `expert`.

A strategy is `choose(view, legal, rng) -> action`: it gets only `view_for(state, seat)`
and `legal_actions(state, seat)` (never the hidden state) and returns an action in the
API shape without "seat" (the caller adds it). Pure: no Django, no clock, no I/O.
"""

from __future__ import annotations

import random

from ..bids import bid_key
from .base import Strategy, entry, random_choice
from .poker import cautious_poker, expert_poker
from .pool import cautious_pool, expert_pool


def _is_poker(view: dict) -> bool:
    return view["family"] == "poker_dice"


def random_strategy(view: dict, legal: list[dict], rng: random.Random) -> dict:
    """Uniform over the legal action types, bids a little above the lowest."""
    return random_choice(view, legal, rng)


def cautious_strategy(view: dict, legal: list[dict], rng: random.Random) -> dict:
    """Binomial / reroll odds from its own dice; challenges unlikely bids, raises safely."""
    if _is_poker(view):
        return cautious_poker(view, legal, rng)
    return cautious_pool(view, legal, rng)


def expert_strategy(view: dict, legal: list[dict], rng: random.Random) -> dict:
    """Infers opponents' dice from their bids, jumps, bluffs a little, uses every option."""
    if _is_poker(view):
        return expert_poker(view, legal, rng)
    return expert_pool(view, legal, rng)


STRATEGIES: dict[str, Strategy] = {
    "random": random_strategy,
    "cautious": cautious_strategy,
    "expert": expert_strategy,
}


def choose_action(strategy_name: str, view: dict, legal: list[dict], rng: random.Random) -> dict:
    """The named strategy's action (API shape, no "seat"). KeyError for an unknown name."""
    if not legal:
        raise ValueError("no legal actions: it is not this seat's turn")
    return STRATEGIES[strategy_name](view, legal, rng)


def timeout_policy_action(view: dict, legal: list[dict], rng: random.Random) -> dict:
    """What a seat does when its human times out: the cautious bot's choice."""
    return cautious_strategy(view, legal, rng)


def challenge_or_lowest_bid(legal: list[dict], ones_bids: str = "half") -> dict:
    """The `challenge` timeout policy: challenge the standing bid, else the lowest bid.

    Common pool: the last bidder is the first challenge target. With no bid to challenge
    (an opening, or after show-and-reroll) the lowest legal bid in the order of
    `ones_bids` (the match's option). Poker dice: challenge; after accepting, hold every
    die; then bid the lowest legal hand.
    """
    challenge = entry(legal, "challenge")
    if challenge is not None:
        action: dict = {"type": "challenge"}
        if challenge.get("target_seats"):
            action["target_seat"] = challenge["target_seats"][0]
        return action
    bid = entry(legal, "bid")
    if bid is not None and "min_quantity_by_face" in bid:
        face, quantity = min(
            ((int(f), q) for f, q in bid["min_quantity_by_face"].items()),
            key=lambda fq: bid_key(ones_bids, fq[1], fq[0]),
        )
        return {"type": "bid", "quantity": quantity, "face": face}
    if bid is not None:
        action = {"type": "bid", "hand": list(bid["min_hand"])}
        if bid.get("needs_direction"):
            action["direction"] = "left"
        return action
    reroll = entry(legal, "reroll")
    if reroll is not None:
        return {"type": "reroll", "hold": reroll.get("hold_required", [0, 1, 2, 3, 4])}
    return {"type": legal[0]["type"]}


__all__ = [
    "STRATEGIES",
    "Strategy",
    "cautious_strategy",
    "challenge_or_lowest_bid",
    "choose_action",
    "expert_strategy",
    "random_strategy",
    "timeout_policy_action",
]
