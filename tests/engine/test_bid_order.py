"""Bid order: exhaustive checks against RULES 1.2 written out independently here."""

from __future__ import annotations

import itertools

import pytest

from games.engine.common_pool.bids import bid_key, describe_bid, min_quantity_by_face

MAX_Q = 12
ALL_BIDS = [(q, f) for q in range(1, MAX_Q + 1) for f in range(1, 7)]


def half_higher(a, b) -> bool:
    """RULES 1.2 `half`, stated as the sheets state it: is bid a strictly above bid b?"""
    (qa, fa), (qb, fb) = a, b
    if fa == 1 and fb == 1:
        return qa > qb
    if fa == 1:  # ones over a number bid: more than half
        return 2 * qa > qb
    if fb == 1:  # number bid over ones: at least double
        return qa >= 2 * qb
    return qa > qb or (qa == qb and fa > fb)


def face_higher(a, b) -> bool:
    (qa, fa), (qb, fb) = a, b
    return qa > qb or (qa == qb and fa > fb)


@pytest.mark.parametrize(("mode", "higher"), [("half", half_higher), ("face", face_higher)])
def test_every_pair_up_to_twelve_dice(mode, higher):
    for a, b in itertools.product(ALL_BIDS, repeat=2):
        assert (bid_key(mode, *a) > bid_key(mode, *b)) == higher(a, b), (mode, a, b)


@pytest.mark.parametrize(("mode", "higher"), [("half", half_higher), ("face", face_higher)])
def test_min_quantity_by_face_is_lowest_higher_bid(mode, higher):
    total = MAX_Q
    for current in ALL_BIDS:
        mq = min_quantity_by_face(mode, bid_key(mode, *current), total)
        for f in range(1, 7):
            above = [q for q in range(1, total + 1) if higher((q, f), current)]
            if above:
                assert mq[str(f)] == min(above), (mode, current, f)
            else:
                assert str(f) not in mq


def test_forbidden_has_no_ones():
    mq = min_quantity_by_face("forbidden", bid_key("forbidden", 3, 4), 10)
    assert "1" not in mq and mq == {"2": 4, "3": 4, "4": 4, "5": 3, "6": 3}


def test_opening_any_bid():
    assert min_quantity_by_face("half", -1, 5) == {str(f): 1 for f in range(1, 7)}


def test_bids_capped_at_dice_in_play():
    mq = min_quantity_by_face("half", bid_key("half", 10, 5), 10)
    assert mq == {"1": 6, "6": 10}
    assert min_quantity_by_face("half", bid_key("half", 10, 1), 10) == {}


@pytest.mark.parametrize(
    ("a", "b"),
    [((2, 1), (3, 6)), ((3, 1), (5, 3)), ((4, 1), (6, 4))],
)
def test_sheet_002_examples(a, b):
    assert bid_key("half", *a) > bid_key("half", *b)


def test_track_order_matches_board():
    # 1, W1, 2, 3, W2, 4, 5, W3 (number spaces with face 6 stand for the space)
    track = [(1, 6), (1, 1), (2, 6), (3, 6), (2, 1), (4, 6), (5, 6), (3, 1)]
    keys = [bid_key("half", *b) for b in track]
    assert keys == sorted(keys)


def test_wording():
    assert describe_bid(5, 4) == "five 4s"
    assert describe_bid(1, 6) == "one 6"
    assert describe_bid(25, 2) == "25 2s"
