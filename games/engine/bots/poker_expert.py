"""The poker-dice `expert`: claims drawn like the truth, accepts weighed against a mixed bidder.

A bidder who always names its whole hand when it can, and bids the lowest raise when it
cannot, tells the next player which claims are lies. This one mixes: with a true hand it
sometimes claims only the lowest raise (an opening: only its category); without one it
sometimes claims a hand drawn the way a true one would be (its own shelf plus the dice it
re-shook, rolled again until they beat the floor), so a jump is no proof of truth and a
minimum raise no proof of a lie.
Responding, it weighs the claim by the chance the bidder's box reached it and by how often
each kind of claim comes from a liar, at rates set by bench/tune_expert.py.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..poker_dice.hands import BID_KEYS, TOP_KEY, dice_key
from .poker_dice_strategies import (
    bidder_reach,
    box_of,
    category_key,
    index_of,
    min_index,
    reach_after_accept,
    read_claim,
    reroll_action,
)
from .view_play import entry, poker_bid


@dataclass(frozen=True)
class PokerParams:
    """The poker-dice expert's tuning (`TUNED`, from bench/tune_expert.py)."""

    sandbag: float = 0.3  # with a true hand, claim only the lowest raise this often
    bluff_jump: float = 0.35  # without one, claim a hand drawn like a true one this often
    draws: int = 12  # tries at drawing such a hand before settling for the lowest raise
    jump_lie: float = 0.35  # how often a liar's claim is a jump, against a true bidder's
    min_truth: float = 0.4  # share of true bidders whose claim is the lowest raise
    caught_rate: float = 0.5  # how often a forced lie gets challenged
    open_doubt: float = 0.3  # how often an opening claims more than its roll, per true one


# From bench/tune_expert.py: 3 rounds (seed 8; 40 x 300 exploiter games, 30 x 300 expert
# games an opponent) after the rounds of seeds 3 and 4.
TUNED = PokerParams(
    sandbag=0.024,
    bluff_jump=0.769,
    jump_lie=0.514,
    min_truth=0.409,
    caught_rate=0.492,
    open_doubt=0.02,
)


def expert_poker(
    view: dict, legal: list[dict], rng: random.Random, params: PokerParams = TUNED
) -> dict:
    """Best-odds rerolls, mixed claims, Bayesian accept or challenge."""
    kinds = {a["type"] for a in legal}
    if "reroll" in kinds:
        return reroll_action(view, legal)
    if "bid" in kinds:
        item = entry(legal, "bid")
        return poker_bid(_claim_index(view, item, params, rng), item, rng)
    claim = read_claim(view)
    if "accept" not in kinds or claim.key == TOP_KEY:
        return {"type": "challenge"}
    if claim.previous is None:
        # An opening has no floor to fall short of: its liars are the fresh rolls that do
        # not reach the claim, bluffing at `open_doubt` of the rate of the true ones.
        reach = bidder_reach(claim, claim.key, rng)
        truth, lie = reach, (1 - reach) * params.open_doubt
    elif claim.jump:
        # Liars could not reach the floor; they jump at `jump_lie` of the true ones' rate.
        r_floor = bidder_reach(claim, claim.floor, rng)
        reach = bidder_reach(claim, claim.key, rng)
        truth, lie = reach * (1 - params.min_truth), (1 - r_floor) * params.jump_lie
    else:
        r_floor = bidder_reach(claim, claim.floor, rng)
        truth, lie = r_floor * params.min_truth, (1 - r_floor) * (1 - params.jump_lie)
    p_true = truth / (truth + lie) if truth > 0 else 0.0
    lose_if_accept = params.caught_rate * (1 - p_true * reach_after_accept(claim))
    return {"type": "challenge"} if p_true < lose_if_accept else {"type": "accept"}


def _claim_index(view: dict, item: dict, params: PokerParams, rng: random.Random) -> int:
    """Where in BID_KEYS to claim: the whole truth, the lowest raise, or a drawn hand."""
    low = min_index(item)
    box = box_of(view)
    real = index_of(dice_key(tuple(box)))
    if real >= low:
        if rng.random() >= params.sandbag:
            return real
        # An opening's lowest raise is junk, a claim of nothing: claim the category instead.
        return low if low > 0 else index_of(category_key(box))
    if rng.random() < params.bluff_jump:
        drawn = _drawn_claim(view, box, low, params.draws, rng)
        if drawn is not None:
            return drawn
    return low


def _drawn_claim(
    view: dict, box: list[int], low: int, draws: int, rng: random.Random
) -> int | None:
    """A claim distributed like a true bidder's: the shelf kept, the re-shaken dice rolled
    again until the box reaches the lowest raise (None when no draw does)."""
    kept = [box[i] for i in view["round"].get("shelf") or []]
    for _ in range(draws):
        drawn = kept + [rng.randrange(6) for _ in range(5 - len(kept))]
        index = index_of(dice_key(tuple(drawn)))
        if index >= low:
            return min(index, len(BID_KEYS) - 1)
    return None
