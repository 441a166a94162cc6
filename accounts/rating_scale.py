"""The rating as players see it: OpenSkill's mean and uncertainty (mu 25, sigma 25/3 for
a newcomer) on a familiar 1500-based scale, 20 points to one mu (docs/API.md, "Ratings
shown to players"). The leaderboard still ranks by the cautious `mu - 3 sigma`."""

from typing import TypedDict

BASE = 1500
POINTS_PER_MU = 20
START_MU = 25.0
# Above this sigma (about a player's first ten rated matches) the rating is provisional.
PROVISIONAL_SIGMA = 6.0


class ShownRating(TypedDict):
    value: int
    deviation: int
    provisional: bool


def shown_rating(mu: float, sigma: float) -> ShownRating:
    """`mu` and `sigma` on the displayed scale: a newcomer is 1500 ± 167, provisional."""
    return {
        "value": round(BASE + POINTS_PER_MU * (mu - START_MU)),
        "deviation": round(POINTS_PER_MU * sigma),
        "provisional": sigma > PROVISIONAL_SIGMA,
    }
