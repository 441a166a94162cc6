"""Bots: the strategies of both families, the timeout policies, random play over the full
state and the simulation of many games.

A strategy is `choose(view, legal, rng) -> action`: it gets only `view_for(state, seat)`
and `legal_actions(state, seat)` (never the hidden state) and returns an action in the
API shape without "seat" (the caller adds it). Pure: no Django, no clock, no I/O.

The levels people choose, weakest first, each measured to beat the one below it in every
preset (bench/bots.py --ladder): `easy` (calls "liar" too readily), `medium` (the
`cautious` bot under its level's name), `hard` (reads bids as the truth and jumps when
sure: the expert before the mixed one, strong but readable) and `expert` (mixed bids, a
weight per kind of bid and a cap on what bids prove, tuned per preset against
exploiters). `random` and `cautious` stay as they were: the timeout policy plays
`cautious`.
"""

from __future__ import annotations

import random
from functools import partial

from ..common_pool.bids import bid_key
from ..common_pool.rules import COMMON_POOL
from ..poker_dice.rules import POKER_DICE
from .common_pool_strategies import cautious_pool, odds_pool
from .poker_dice_strategies import cautious_poker, hard_poker
from .poker_expert import expert_poker
from .pool_expert import expert_pool
from .view_play import Strategy, entry, random_choice

# `easy` calls "liar" too readily, the commonest beginner's mistake: it challenges a bid
# unless it is this much less likely to be false than its own best raise is to be true...
EASY_DOUBT_MARGIN = -0.3
# ... and a poker-dice claim unless it looks at least this likely.
EASY_BELIEF = 0.8

# The family's strategies by name; the view says which family it is.
_BY_FAMILY: dict[str, dict[str, Strategy]] = {
    COMMON_POOL: {
        "easy": partial(cautious_pool, doubt_margin=EASY_DOUBT_MARGIN),
        "cautious": cautious_pool,
        "hard": odds_pool,
        "expert": expert_pool,
    },
    POKER_DICE: {
        "easy": partial(cautious_poker, belief=EASY_BELIEF),
        "cautious": cautious_poker,
        "hard": hard_poker,
        "expert": expert_poker,
    },
}


def _by_family(name: str) -> Strategy:
    def choose(view: dict, legal: list[dict], rng: random.Random) -> dict:
        return _BY_FAMILY[view["family"]][name](view, legal, rng)

    choose.__name__ = f"{name}_strategy"
    return choose


def random_strategy(view: dict, legal: list[dict], rng: random.Random) -> dict:
    """Uniform over the legal action types, bids a little above the lowest."""
    return random_choice(view, legal, rng)


# Binomial / reroll odds from its own dice; challenges unlikely bids, raises safely.
cautious_strategy = _by_family("cautious")

STRATEGIES: dict[str, Strategy] = {
    "random": random_strategy,
    "cautious": cautious_strategy,
    "easy": _by_family("easy"),
    "medium": cautious_strategy,
    "hard": _by_family("hard"),
    "expert": _by_family("expert"),
}
# The levels a person picks from, weakest first.
LEVELS = ("easy", "medium", "hard", "expert")


def choose_action(strategy_name: str, view: dict, legal: list[dict], rng: random.Random) -> dict:
    """The named strategy's action (API shape, no "seat"). KeyError for an unknown name."""
    if not legal:
        raise ValueError("no legal actions: it is not this seat's turn")
    return STRATEGIES[strategy_name](view, legal, rng)


def timeout_policy_action(view: dict, legal: list[dict], rng: random.Random) -> dict:
    """What a seat does when its human times out: the cautious bot's choice."""
    return cautious_strategy(view, legal, rng)


def challenge_policy_action(view: dict, legal: list[dict]) -> dict:
    """The `challenge` timeout policy for the seat that sees `view` (its match's options)."""
    return challenge_or_lowest_bid(legal, view["rules"].get("ones_bids", "half"))


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
    "LEVELS",
    "STRATEGIES",
    "Strategy",
    "cautious_strategy",
    "challenge_or_lowest_bid",
    "challenge_policy_action",
    "choose_action",
    "random_strategy",
    "timeout_policy_action",
]
