"""Poker-dice strategies: exact reroll odds from precomputed outcome tables.

For any multiset of dice held on the shelf, `outcomes(held)` lists every hand the re-shake
can produce with its probability, so "P(the box meets bid B after holding H)" is one
bisect. Responders never see the box: they model it as the dice the bidder most likely
held (the named dice of the bid they accepted) plus the dice the bidder re-shook, which
the action record shows.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, combinations_with_replacement

from ..poker_dice.hands import (
    BID_KEYS,
    FIVE,
    FULL_HOUSE,
    HIGH,
    JUNK_KEY,
    RANK_INDEX,
    STRAIGHT,
    TOP_KEY,
    dice_key,
    hand_key,
)
from .view_play import entry, key_of_hand, poker_bid

Key = tuple[int, ...]


@lru_cache(maxsize=512)
def outcomes(held: tuple[int, ...]) -> tuple[list[Key], list[float]]:
    """(keys ascending, P(key >= keys[i])) of the box after re-shaking 5 - len(held) dice."""
    m = 5 - len(held)
    total = 6**m
    probs: dict[Key, float] = {}
    for fresh in combinations_with_replacement(range(6), m):
        ways = math.factorial(m)
        for c in Counter(fresh).values():
            ways //= math.factorial(c)
        key = dice_key((*held, *fresh))
        probs[key] = probs.get(key, 0.0) + ways / total
    keys = sorted(probs)
    tail = [0.0] * (len(keys) + 1)
    for i in range(len(keys) - 1, -1, -1):
        tail[i] = tail[i + 1] + probs[keys[i]]
    return keys, tail


def p_meets(held: tuple[int, ...], target: Key) -> float:
    """P(the box, after holding `held` and re-shaking the rest, is at least `target`)."""
    keys, tail = outcomes(tuple(sorted(held)))
    return tail[bisect_left(keys, target)]


def best_hold(box: list[int], target: Key) -> tuple[float, list[int]]:
    """(probability, indexes to hold) maximising P(box >= target) after the re-shake.

    Ties go to holding more dice (fewer surprises for the bid that follows).
    """
    best: tuple[float, int, list[int]] | None = None
    seen: set[tuple[int, ...]] = set()
    for mask in range(32):
        idx = [i for i in range(5) if mask >> i & 1]
        held = tuple(sorted(box[i] for i in idx))
        if held in seen:
            continue
        seen.add(held)
        p = p_meets(held, target)
        cand = (p, len(idx), idx)
        if best is None or cand[:2] > best[:2]:
            best = cand
    return best[0], best[2]


def next_key(key: Key) -> Key | None:
    """The lowest bid key above `key` (None above five aces)."""
    i = bisect_right(BID_KEYS, key)
    return BID_KEYS[i] if i < len(BID_KEYS) else None


def named_of(hand: list) -> list[int]:
    """Named ranks of an API hand in its own order (category dice first)."""
    return [RANK_INDEX[h] for h in hand if h is not None and h != "junk"]


# --- reading the round -----------------------------------------------------------------


@dataclass
class Claim:
    """The standing bid and what the responder can tell about how it was made."""

    key: Key
    named: list[int]  # named dice, category first
    rerolled: int  # dice the bidder re-shook (5 for player one's fresh roll)
    previous: list[int] | None  # named dice of the bid the bidder accepted (None: opening)
    floor: Key  # the lowest bid the bidder was allowed to make

    @property
    def jump(self) -> bool:
        return self.key > self.floor


def read_claim(view: dict) -> Claim:
    rnd = view["round"]
    acts = rnd["actions"]
    bids = [a for a in acts if a["type"] == "bid"]
    last = bids[-1]
    rerolled = acts[-2]["rerolled"] if len(acts) >= 2 and acts[-2]["type"] == "reroll" else 5
    previous = named_of(bids[-2]["hand"]) if len(bids) >= 2 else None
    floor = next_key(key_of_hand(bids[-2]["hand"])) if len(bids) >= 2 else JUNK_KEY
    return Claim(
        key=key_of_hand(last["hand"]),
        named=named_of(last["hand"]),
        rerolled=rerolled,
        previous=previous,
        floor=floor,
    )


REACH_SAMPLES = 16


def bidder_reach(claim: Claim, target: Key, rng: random.Random) -> float:
    """P(the bidder's box is at least `target`), modelling how they got it.

    The box they accepted is taken to hold the bid they accepted (its named dice, the
    unnamed ones random); they kept the `5 - rerolled` dice best for reaching their floor
    (the lowest raise) and re-shook the rest. Player one's box is a fresh roll.
    """
    if claim.previous is None:
        return p_meets((), target)
    keep = 5 - claim.rerolled
    fill = 5 - len(claim.previous)
    samples = REACH_SAMPLES if fill else 1
    total = 0.0
    for _ in range(samples):
        box = claim.previous + [rng.randrange(6) for _ in range(fill)]
        best: tuple[float, float] = (-1.0, 0.0)
        for held in set(combinations(sorted(box), keep)):
            best = max(best, (p_meets(held, claim.floor), p_meets(held, target)))
        total += best[1]
    return total / samples


def reach_after_accept(claim: Claim) -> float:
    """Chance of a true raise after accepting, if the box is just what was claimed."""
    target = next_key(claim.key)
    if target is None:
        return 0.0
    named = claim.named
    best = 0.0
    for mask in range(1 << len(named)):
        held = tuple(named[i] for i in range(len(named)) if mask >> i & 1)
        best = max(best, p_meets(held, target))
    return best


def box_of(view: dict) -> list[int]:
    return [RANK_INDEX[r] for r in view["round"]["your_dice"]]


def min_index(legal_bid: dict) -> int:
    return bisect_left(BID_KEYS, key_of_hand(legal_bid["min_hand"]))


def index_of(key: Key) -> int:
    return bisect_left(BID_KEYS, key)


def category_key(box: list[int]) -> Key:
    """Key of the box's hand naming only the dice that make its category ("three kings")."""
    key = dice_key(tuple(box))
    cat = key[0]
    if cat in (STRAIGHT, FULL_HOUSE, FIVE):
        return key
    if cat == HIGH:
        return hand_key((key[1],))
    counts = Counter(box)
    named = tuple(sorted((r for r in box if counts[r] >= 2), reverse=True))
    return hand_key(named)


def reroll_action(view: dict, legal: list[dict]) -> dict:
    """Hold the dice that give the best chance of beating the standing bid (player one,
    who may not touch the dice, holds the shelf as it is)."""
    required = entry(legal, "reroll").get("hold_required")
    if required is not None:
        return {"type": "reroll", "hold": required}
    target = next_key(key_of_hand(view["round"]["current_bid"]["hand"]))
    _, hold = best_hold(box_of(view), target)
    return {"type": "reroll", "hold": hold}


# --- cautious --------------------------------------------------------------------------


def cautious_poker(view: dict, legal: list[dict], rng: random.Random, belief: float = 0.5) -> dict:
    """Challenge a bid less than `belief` likely; otherwise accept, reroll for the best odds,
    bid low.

    Its bid names just the dice that make its hand's category ("three kings"), or the
    lowest legal bid when that is higher (true when the box still meets it).
    """
    kinds = {a["type"] for a in legal}
    if "reroll" in kinds:
        return reroll_action(view, legal)
    if "bid" in kinds:
        item = entry(legal, "bid")
        return poker_bid(max(min_index(item), index_of(category_key(box_of(view)))), item, rng)
    claim = read_claim(view)
    if "accept" not in kinds or bidder_reach(claim, claim.key, rng) < belief:
        return {"type": "challenge"}
    return {"type": "accept"}


# --- hard (the expert before the mixed one) --------------------------------------------


@dataclass(frozen=True)
class HardPokerParams:
    """Weights of `hard` at poker dice, set by hand (it was `expert` until the mixed expert)."""

    caught_rate: float = 0.5  # how often a forced lie gets challenged
    jump_lie: float = 0.1  # how much likelier a truthful bidder jumps than a liar does
    min_truth: float = 0.4  # share of truthful bidders whose claim is the lowest raise
    bluff_rate: float = 0.05


HARD_POKER = HardPokerParams()


def hard_poker(
    view: dict, legal: list[dict], rng: random.Random, params: HardPokerParams = HARD_POKER
) -> dict:
    """Expected-value rerolls, truthful full-hand bids, Bayesian accept/challenge."""
    kinds = {a["type"] for a in legal}
    if "reroll" in kinds:
        return reroll_action(view, legal)
    if "bid" in kinds:
        item = entry(legal, "bid")
        low = min_index(item)
        real = index_of(dice_key(tuple(box_of(view))))
        if real >= low:
            # The whole truth: it can never be caught, and the next player must beat it.
            return poker_bid(real, item, rng)
        if rng.random() < params.bluff_rate:
            return poker_bid(min(len(BID_KEYS) - 1, low + rng.randint(1, 6)), item, rng)
        return poker_bid(low, item, rng)
    claim = read_claim(view)
    if "accept" not in kinds or claim.key == TOP_KEY:
        return {"type": "challenge"}
    # Bayes: liars are those who could not reach the floor; they mostly bid the floor.
    r_floor = bidder_reach(claim, claim.floor, rng)
    if claim.jump:
        q = bidder_reach(claim, claim.key, rng)
        p_true = q / (q + (1 - r_floor) * params.jump_lie) if q > 0 else 0.0
    else:
        t = r_floor * params.min_truth
        p_true = t / (t + (1 - r_floor)) if t > 0 else 0.0
    lose_if_accept = params.caught_rate * (1 - p_true * reach_after_accept(claim))
    return {"type": "challenge"} if p_true < lose_if_accept else {"type": "accept"}
