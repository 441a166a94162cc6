"""The published payout table (docs/RULES.md, "Tournaments"): the share of the prize pool
each place wins, by the number of entrants, and the prizes it makes of a pool.

Shares are in basis points (1/100 of a percent) and always add up to 10000. A prize is
the pool times its share, rounded down; the chips rounding leaves (fewer than the number
of places paid) go to first place, so the prizes add up to the pool exactly."""

import math

FULL = 10_000
# Small fields: winner takes all, then 65/35, then 50/30/20.
SMALL_FIELDS = ((2, (FULL,)), (6, (6_500, 3_500)), (10, (5_000, 3_000, 2_000)))
# Larger fields pay the top 15% (3 places at least).
PAID_FRACTION = 0.15


def places_paid(entrants: int) -> int:
    return len(payout_table(entrants))


def payout_table(entrants: int) -> list[int]:
    """Each paid place's share in basis points, first place first."""
    for most, shares in SMALL_FIELDS:
        if entrants <= most:
            return list(shares)
    paid = max(3, math.ceil(entrants * PAID_FRACTION))
    # Place i weighs 1/i (harmonic): each place wins more than the next.
    weights = [1 / place for place in range(1, paid + 1)]
    total = sum(weights)
    shares = [math.floor(FULL * weight / total) for weight in weights]
    shares[0] += FULL - sum(shares)
    return shares


def prizes(pool: int, table: list[int]) -> list[int]:
    """The chips each paid place wins of `pool`: shares rounded down, the remainder to
    first place, summing to `pool` exactly."""
    amounts = [pool * share // FULL for share in table]
    amounts[0] += pool - sum(amounts)
    return amounts
