"""Common-pool bids: their order (RULES 1.2), the lowest legal raise, and wording.

A bid `(quantity, face)` maps to an integer sort key so that comparing bids is one
integer comparison on the hot path:

* `half` / `forbidden`: number bid (q, f) -> q*16 + f; ones bid (k, 1) -> (2k-1)*16 + 8.
  This is RULES' `(q, 0, f)` / `(2k-1, 1, 0)` key packed into an int (f <= 6 < 8).
* `perudo`: number bid (q, f) -> q*16 + f; aces bid (k, 1) -> 2k*16 + 8: aces after a
  number bid need half its quantity rounded up, numbers after aces double plus one.
* `face`: (q, f) -> q*8 + f (quantity first, then face, ones lowest).
"""

from __future__ import annotations

from functools import lru_cache

from ..limits import FACES

NO_BID = -1

_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]


def bid_key(ones_bids: str, quantity: int, face: int) -> int:
    """Integer sort key of a bid under the given `ones_bids` option."""
    if ones_bids == "face":
        return quantity * 8 + face
    if face == 1:
        return (2 * quantity - (ones_bids != "perudo")) * 16 + 8
    return quantity * 16 + face


def faces_for(ones_bids: str) -> tuple[int, ...]:
    return FACES[1:] if ones_bids == "forbidden" else FACES


def min_quantity(ones_bids: str, face: int, key: int) -> int:
    """Lowest quantity q >= 1 with bid_key(q, face) > key."""
    if key < 0:
        return 1
    if ones_bids == "face":
        q = key // 8
        return q if q * 8 + face > key else q + 1
    if face == 1:
        # need slot*16 + 8 > key  <=>  slot >= m, the first slot above key, where slot is
        # 2k-1 (half) or 2k (perudo)
        m = key // 16
        if m * 16 + 8 <= key:
            m += 1
        return max(1, (m + 1) // 2 if ones_bids == "perudo" else (m + 2) // 2)
    q = key // 16
    return max(1, q if q * 16 + face > key else q + 1)


@lru_cache(maxsize=8192)
def min_quantities(ones_bids: str, key: int, total: int) -> tuple[tuple[int, int], ...]:
    """((face, min quantity), ...) for every face that still has a legal bid.

    Cached: the same (rules, bid, dice in play) recurs constantly in play.
    """
    out = []
    for face in faces_for(ones_bids):
        q = min_quantity(ones_bids, face, key)
        if q <= total:
            out.append((face, q))
    return tuple(out)


@lru_cache(maxsize=8192)
def _min_quantity_dict(ones_bids: str, key: int, total: int) -> dict[str, int]:
    """Never handed out: `min_quantity_by_face` copies it."""
    return {str(f): q for f, q in min_quantities(ones_bids, key, total)}


def min_quantity_by_face(ones_bids: str, key: int, total: int) -> dict[str, int]:
    """The API's `min_quantity_by_face` (string face keys; faces without a legal bid absent).

    A fresh dict each call (a copy of the cached one): callers may keep or change it.
    """
    return _min_quantity_dict(ones_bids, key, total).copy()


def quantity_words(quantity: int) -> str:
    return _WORDS[quantity] if 0 <= quantity < len(_WORDS) else str(quantity)


def describe_bid(quantity: int, face: int) -> str:
    """'five 4s', 'one 6', 'three 1s'."""
    return f"{quantity_words(quantity)} {face}" + ("" if quantity == 1 else "s")
