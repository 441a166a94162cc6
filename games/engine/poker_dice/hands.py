"""Poker-dice hands: parsing bids, ranking hands, the lowest hand above a bid (RULES 2).

Ranks are ints 0..5 for 9, 10, J, Q, K, A. A hand key is a tuple compared
lexicographically: (category, ranks that make the category..., kickers high to low),
with -1 for an unnamed kicker so that it is lower than any named one.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from functools import lru_cache
from itertools import combinations_with_replacement

from ..errors import ErrorCode, IllegalAction
from ..limits import BOX_SIZE

RANKS = ("9", "10", "J", "Q", "K", "A")
RANK_INDEX = {name: i for i, name in enumerate(RANKS)}
UNNAMED = -1

JUNK, HIGH, PAIR, TWO_PAIRS, THREE, STRAIGHT, FULL_HOUSE, FOUR, FIVE = range(9)
CATEGORY_NAMES = (
    "junk",
    "high die",
    "one pair",
    "two pairs",
    "three of a kind",
    "straight",
    "full house",
    "four of a kind",
    "five of a kind",
)
JUNK_KEY: tuple[int, ...] = (JUNK,)
JUNK_HAND = ("junk",)

_PLURAL = {"9": "9s", "10": "10s", "J": "jacks", "Q": "queens", "K": "kings", "A": "aces"}
_SINGULAR = {"9": "a 9", "10": "a 10", "J": "a jack", "Q": "a queen", "K": "a king", "A": "an ace"}
_HIGH = {"9": "9", "10": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}


def hand_key(named: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """Key of the named dice (0..5 of them, any order); the other dice are unnamed."""
    return _cached_key(tuple(sorted(named, reverse=True)))


@lru_cache(maxsize=1024)  # only 462 possible bids: the cache holds them all
def _cached_key(named: tuple[int, ...]) -> tuple[int, ...]:
    return _compute_key(named)


def _compute_key(named: tuple[int, ...]) -> tuple[int, ...]:
    n = len(named)
    if n == 0:
        return JUNK_KEY
    counts = Counter(named)
    groups = sorted(counts.items(), key=lambda rc: (-rc[1], -rc[0]))
    r1, c1 = groups[0]
    if n == BOX_SIZE and c1 == 1 and max(named) - min(named) == 4:
        return (STRAIGHT, max(named))
    singles = sorted((r for r, c in groups if c == 1), reverse=True)
    c2 = groups[1][1] if len(groups) > 1 else 0
    if c1 == 5:
        return (FIVE, r1)
    if c1 == 4:
        return (FOUR, r1, *_pad(singles, 1))
    if c1 == 3 and c2 == 2:
        return (FULL_HOUSE, r1, groups[1][0])
    if c1 == 3:
        return (THREE, r1, *_pad(singles, 2))
    if c1 == 2 and c2 == 2:
        return (TWO_PAIRS, r1, groups[1][0], *_pad(singles, 1))
    if c1 == 2:
        return (PAIR, r1, *_pad(singles, 3))
    return (HIGH, r1, *_pad(singles[1:], 4))


def _pad(kickers: list[int], size: int) -> list[int]:
    return kickers + [UNNAMED] * (size - len(kickers))


def dice_key(box: tuple[int, ...]) -> tuple[int, ...]:
    """Key of a real hand of five dice (every die named)."""
    return hand_key(box)


def canonical_hand(named: tuple[int, ...] | list[int]) -> list[str | None]:
    """API form of a bid: category dice first, then kickers, None for unnamed dice."""
    return list(_cached_hand(tuple(sorted(named, reverse=True))))


@lru_cache(maxsize=1024)
def _cached_hand(named: tuple[int, ...]) -> tuple[str | None, ...]:
    return tuple(_compute_hand(named))


def _compute_hand(named: tuple[int, ...]) -> list[str | None]:
    if not named:
        return ["junk"]
    counts = Counter(named)
    if len(named) == BOX_SIZE and len(counts) == BOX_SIZE and max(named) - min(named) == 4:
        order = sorted(named, reverse=True)
    else:
        order = sorted(named, key=lambda r: (-counts[r], -r))
    return [RANKS[r] for r in order] + [None] * (BOX_SIZE - len(named))


def describe_hand(named: tuple[int, ...] | list[int]) -> str:
    """'four jacks and a 10', 'two pairs, aces over 9s and a king', 'ace high with a
    queen, a jack, a 10 and a 9', 'a high straight', 'junk'."""
    key = hand_key(named)
    cat = key[0]
    if cat == JUNK:
        return "junk"
    if cat == STRAIGHT:
        return "a high straight" if key[1] == 5 else "a low straight"
    if cat == FIVE:
        return f"five {_PLURAL[RANKS[key[1]]]}"
    if cat == FULL_HOUSE:
        return f"a full house, {_PLURAL[RANKS[key[1]]]} over {_PLURAL[RANKS[key[2]]]}"
    if cat == FOUR:
        head = f"four {_PLURAL[RANKS[key[1]]]}"
    elif cat == THREE:
        head = f"three {_PLURAL[RANKS[key[1]]]}"
    elif cat == TWO_PAIRS:
        head = f"two pairs, {_PLURAL[RANKS[key[1]]]} over {_PLURAL[RANKS[key[2]]]}"
    elif cat == PAIR:
        head = f"a pair of {_PLURAL[RANKS[key[1]]]}"
    else:
        head = f"{_HIGH[RANKS[key[1]]]} high"
    start = 3 if cat == TWO_PAIRS else 2
    kickers = [_SINGULAR[RANKS[k]] for k in key[start:] if k != UNNAMED]
    if len(kickers) == 1:
        head += f" and {kickers[0]}"
    elif kickers:
        head += f" with {', '.join(kickers[:-1])} and {kickers[-1]}"
    return head


def parse_hand(raw: object) -> tuple[int, ...]:
    """Named ranks (sorted high to low) of an API hand; () for junk. Raises IllegalAction."""
    if type(raw) is list:  # the usual case, a hand in the form the engine lists it
        try:
            named = _NAMED_BY_HAND.get(tuple(raw))
        except TypeError:  # an unhashable item: the checks below say what is wrong
            named = None
        if named is not None:
            return named
    if not isinstance(raw, list | tuple):
        raise IllegalAction(ErrorCode.VALIDATION_ERROR, "hand must be a list of five dice", "hand")
    if len(raw) == 1 and raw[0] == "junk":
        return ()
    if len(raw) != BOX_SIZE:
        raise IllegalAction(
            ErrorCode.VALIDATION_ERROR,
            'hand must list five dice (null for an unnamed die), or be ["junk"]',
            "hand",
        )
    named = []
    for item in raw:
        if item is None:
            continue
        if not isinstance(item, str) or item not in RANK_INDEX:
            raise IllegalAction(
                ErrorCode.VALIDATION_ERROR,
                "each die in hand must be one of 9, 10, J, Q, K, A, or null",
                "hand",
            )
        named.append(RANK_INDEX[item])
    if not named:
        raise IllegalAction(
            ErrorCode.INVALID_BID, 'name at least one die, or bid ["junk"] to open', "hand"
        )
    return tuple(sorted(named, reverse=True))


def _all_bids() -> tuple[list[tuple[int, ...]], dict[tuple[int, ...], tuple[int, ...]]]:
    by_key: dict[tuple[int, ...], tuple[int, ...]] = {JUNK_KEY: ()}
    for size in range(1, BOX_SIZE + 1):
        for combo in combinations_with_replacement(range(6), size):
            named = tuple(sorted(combo, reverse=True))
            key = hand_key(named)
            assert key not in by_key, (key, named)  # keys identify bids uniquely
            by_key[key] = named
    return sorted(by_key), by_key


BID_KEYS, BID_BY_KEY = _all_bids()
TOP_KEY = BID_KEYS[-1]
# The same order by position, for the hot paths: a bid's index (its named dice sorted
# high to low -> its place in BID_KEYS), and each bid's API form.
BID_INDEX: dict[tuple[int, ...], int] = {BID_BY_KEY[k]: i for i, k in enumerate(BID_KEYS)}
TOP_INDEX = len(BID_KEYS) - 1
BID_HANDS: tuple[tuple[str | None, ...], ...] = tuple(_cached_hand(BID_BY_KEY[k]) for k in BID_KEYS)
_NAMED_BY_HAND = {hand: BID_BY_KEY[k] for hand, k in zip(BID_HANDS, BID_KEYS, strict=True)}


def bid_index(named: tuple[int, ...]) -> int:
    """Place of a bid (named dice, any order) in BID_KEYS."""
    i = BID_INDEX.get(named)
    return BID_INDEX[tuple(sorted(named, reverse=True))] if i is None else i


def next_bid(key: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """Named dice of the lowest bid strictly above `key` (None: nothing is higher)."""
    if key is None:
        return ()
    i = bisect_right(BID_KEYS, key)
    return BID_BY_KEY[BID_KEYS[i]] if i < len(BID_KEYS) else None
