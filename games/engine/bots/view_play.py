"""Shared pieces of the bot strategies: the `Strategy` signature and view-only random play.

A strategy sees exactly what a human at that seat sees: `view_for(state, seat)` and
`legal_actions(state, seat)`. It returns an action in the API shape without "seat".
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable

from ..poker_dice.hands import BID_BY_KEY, BID_KEYS, canonical_hand, hand_key, parse_hand

Strategy = Callable[[dict, list[dict], random.Random], dict]

RANDOM_SPREAD = 2  # how far above the lowest legal bid the random bot goes


def entry(legal: list[dict], kind: str) -> dict | None:
    """The legal_actions entry of type `kind`, or None."""
    for item in legal:
        if item["type"] == kind:
            return item
    return None


def total_dice(view: dict) -> int:
    """Dice in play (common pool): the upper bound of any bid quantity."""
    return sum(view["round"]["dice_counts"].values())


def cup(view: dict) -> list[int]:
    return list(view["round"].get("your_dice") or [])


def key_of_hand(hand: list) -> tuple[int, ...]:
    """Poker-dice key of an API hand (`["J", "J", None, ...]` or `["junk"]`)."""
    return hand_key(parse_hand(hand))


def bid_index(hand: list) -> int:
    """Position of an API hand in the list of every possible poker-dice bid."""
    return bisect_left(BID_KEYS, key_of_hand(hand))


def poker_bid(index: int, entry_: dict, rng: random.Random) -> dict:
    """A poker-dice bid action for BID_KEYS[index], with a direction when one is needed."""
    action: dict = {"type": "bid", "hand": canonical_hand(BID_BY_KEY[BID_KEYS[index]])}
    if entry_.get("needs_direction"):
        action["direction"] = rng.choice(("left", "right"))
    return action


def random_choice(view: dict, legal: list[dict], rng: random.Random) -> dict:
    """Uniform over the legal action types; bids a little above the lowest legal bid.

    The view-only twin of `games.engine.random_action` (which reads the full state).
    """
    item = rng.choice(legal)
    kind = item["type"]
    action: dict = {"type": kind}
    if kind == "bid":
        if "min_quantity_by_face" in item:
            face, low = rng.choice(list(item["min_quantity_by_face"].items()))
            action["quantity"] = min(total_dice(view), low + rng.randint(0, RANDOM_SPREAD))
            action["face"] = int(face)
            if item.get("can_show") and rng.random() < 0.3:
                action["show"] = _subset(rng, len(cup(view)), item["max_show"])
        else:
            start = bid_index(item["min_hand"])
            i = min(len(BID_KEYS) - 1, start + rng.randint(0, 8 * RANDOM_SPREAD))
            return poker_bid(i, item, rng)
    elif kind == "challenge" and item.get("target_seats"):
        action["target_seat"] = rng.choice(item["target_seats"])
    elif kind == "show_reroll":
        action["show"] = _subset(rng, len(cup(view)), item["max_show"])
    elif kind == "reroll":
        required = item.get("hold_required")
        action["hold"] = (
            required if required is not None else sorted(rng.sample(range(5), rng.randint(0, 5)))
        )
    return action


def _subset(rng: random.Random, size: int, most: int) -> list[int]:
    return sorted(rng.sample(range(size), rng.randint(1, most)))
