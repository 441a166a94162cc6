"""Poker-dice hand ranking (RULES 2): categories, straights, kickers, invalid bids."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from games.engine import IllegalAction
from games.engine.poker_dice.hands import (
    BID_BY_KEY,
    BID_KEYS,
    canonical_hand,
    describe_hand,
    dice_key,
    hand_key,
    next_bid,
    parse_hand,
)


def key(*dice):
    return hand_key(parse_hand(list(dice) + [None] * (5 - len(dice))))


# Lowest and highest bid of every category, high to low in the list.
BOUNDARIES = [
    (("A", "A", "A", "A", "A"), ("9", "9", "9", "9", "9")),  # five of a kind
    (("A", "A", "A", "A", "K"), ("9", "9", "9", "9")),  # four of a kind
    (("A", "A", "A", "K", "K"), ("9", "9", "9", "10", "10")),  # full house
    (("A", "K", "Q", "J", "10"), ("K", "Q", "J", "10", "9")),  # straights
    (("A", "A", "A", "K", "Q"), ("9", "9", "9")),  # three of a kind
    (("A", "A", "K", "K", "Q"), ("10", "10", "9", "9")),  # two pairs
    (("A", "A", "K", "Q", "J"), ("9", "9")),  # one pair
    (("A", "K", "Q", "J", "9"), ("9",)),  # high die
]


def test_category_boundaries():
    for (top, bottom), (next_top, _) in itertools.pairwise(BOUNDARIES):
        assert key(*bottom) > key(*next_top), (bottom, next_top)
        assert key(*top) >= key(*bottom)
    assert key("9") > hand_key(())  # junk is lowest


def test_straights():
    assert key("A", "K", "Q", "J", "10") > key("K", "Q", "J", "10", "9")
    assert key("K", "Q", "J", "10", "9") > key("A", "A", "A", "K", "Q")
    # A-K-Q-J-9 is no straight: a high die
    assert key("A", "K", "Q", "J", "9")[0] == 1
    # four named dice of a straight are only a high-die bid
    assert key("A", "K", "Q", "J")[0] == 1


def test_kickers_named_beat_unnamed_and_compare_high_first():
    assert key("J", "J", "J", "J", "10") > key("J", "J", "J", "J")
    assert key("J", "J", "J", "J", "Q") > key("J", "J", "J", "J", "10")
    assert key("Q", "Q", "Q", "Q") > key("J", "J", "J", "J", "A")
    assert key("K", "K", "A") > key("K", "K", "Q", "J", "10")
    assert key("K", "K", "Q", "9") > key("K", "K", "Q")
    assert key("K", "K", "J", "J", "A") > key("K", "K", "J", "J", "10") > key("K", "K", "J", "J")
    assert key("K", "K", "J", "J") > key("K", "K", "10", "10", "A")
    assert key("10", "10", "10", "9", "9") > key("9", "9", "9", "A", "A")  # triple first


def test_order_of_named_dice_does_not_matter():
    assert key("10", "J", "J", "J", "J") == key("J", "J", "J", "J", "10")
    assert canonical_hand(parse_hand(["10", "J", None, "J", "J"])) == ["J", "J", "J", "10", None]


def test_real_hand_meets_bids():
    box = (2, 2, 2, 2, 1)  # J J J J 10
    assert dice_key(box) >= key("J", "J", "J", "J", "10")
    assert not dice_key(box) >= key("J", "J", "J", "J", "Q")
    assert dice_key(box) >= key("J", "J", "J")
    assert dice_key(box) >= key("A")  # a better category meets any lower bid
    assert dice_key((5, 4, 3, 2, 1)) >= key("K", "Q", "J", "10", "9")


def test_every_bid_has_a_unique_key_and_next_bid_is_the_successor():
    assert len(BID_KEYS) == len(set(BID_KEYS)) == 462
    for low, high in itertools.pairwise(BID_KEYS):
        assert next_bid(low) == BID_BY_KEY[high]
    assert next_bid(BID_KEYS[-1]) is None
    assert next_bid(None) == ()


def test_every_real_hand_is_a_bid():
    for dice in itertools.product(range(6), repeat=5):
        k = dice_key(dice)
        assert k in BID_BY_KEY
        assert Counter(BID_BY_KEY[k]) == Counter(dice)


@pytest.mark.parametrize(
    "hand",
    [
        "JJJJ",
        ["J", "J", "J", "J"],
        ["J", "J", "J", "J", "J", "J"],
        ["J", "J", "J", "J", "8"],
        ["J", "J", "J", "J", 10],
        ["J", "J", "J", "J", True],
        [None, None, None, None, None],
        ["junk", None, None, None, None],
        ["junk", "junk"],
        {"hand": "J"},
        None,
    ],
)
def test_invalid_bids(hand):
    with pytest.raises(IllegalAction) as err:
        parse_hand(hand)
    assert err.value.code in ("validation_error", "invalid_bid")


def test_describe():
    assert describe_hand(parse_hand(["J", "J", "J", "J", "10"])) == "four jacks and a 10"
    assert describe_hand(parse_hand(["A", "K", "Q", "J", "10"])) == "a high straight"
    assert describe_hand(()) == "junk"
    assert (
        describe_hand(parse_hand(["K", "K", "9", "9", "A"]))
        == "two pairs, kings over 9s and an ace"
    )
    assert describe_hand(parse_hand(["Q", "Q", "Q", "9", "10"])) == "three queens with a 10 and a 9"
    assert (
        describe_hand(parse_hand(["A", "Q", "J", "10", "9"]))
        == "ace high with a queen, a jack, a 10 and a 9"
    )
    assert describe_hand(parse_hand(["10", None, None, None, None])) == "10 high"
