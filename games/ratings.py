"""Multiplayer skill ratings from a finishing order (OpenSkill, Plackett-Luce): one over
every preset on the user row, and one per preset (`accounts.Rating`).

Ratings that cannot be farmed (issue 33; docs/API.md, "Ratings that cannot be farmed"):
in each scope (overall, or the preset) a player with `RATING_ESTABLISHED_GAMES` rated
matches is established and weighs 1 as an opponent; a provisional one weighs
games / RATING_ESTABLISHED_GAMES, a fresh account 0. Each player's change (mu and sigma)
is OpenSkill's scaled by the mean weight of their opponents at the table: beating fresh
accounts moves nothing, one established opponent out of four moves a quarter. A
provisional player facing established ones gets the full change, so newcomers settle as
fast as before. Every established opponent met is recorded (`accounts.RatedOpponent`):
the leaderboard lists only players who met enough distinct ones."""

from django.conf import settings
from openskill.models import PlackettLuce

from accounts.models import RatedOpponent, Rating, User

_MODEL = PlackettLuce()


def opponent_weight(games: int) -> float:
    """How much a result against a player with `games` rated matches in the scope counts:
    0 for a fresh account, rising to 1 once established."""
    return min(1.0, games / settings.RATING_ESTABLISHED_GAMES)


def _weights(games: list[int]) -> list[float]:
    """Each seat's share of its change: the mean weight of the others at the table."""
    each = [opponent_weight(g) for g in games]
    total = sum(each)
    return [(total - own) / (len(each) - 1) for own in each]


def _rate(
    current: list[tuple[float, float]], ranks: list[int], weights: list[float]
) -> list[tuple[float, float]]:
    teams = [[_MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in current]
    rated = _MODEL.rate(teams, ranks=ranks)
    return [
        (mu + w * (r.mu - mu), sigma + w * (r.sigma - sigma))
        for (mu, sigma), (r,), w in zip(current, rated, weights, strict=True)
    ]


def _established_met(users: list[User], games: list[int], ruleset: str) -> list[RatedOpponent]:
    """A row for each (player, opponent established before this match) at the table. The
    server's bots are no such opponent: several accounts play each strategy, any player
    can seat them at will, and the leaderboard counts distinct people (and programs of
    their own) beaten; games against them are rated as any other."""
    established = [
        u
        for u, g in zip(users, games, strict=True)
        if opponent_weight(g) >= 1 and not u.bot_strategy
    ]
    return [
        RatedOpponent(user=u, opponent=o, ruleset=ruleset)
        for u in users
        for o in established
        if o.pk != u.pk
    ]


def apply_match_result(
    *, players_by_place: list[tuple[User, int]], winners: set[int], ruleset: str
) -> dict[int, dict[str, dict[str, float] | float]]:
    """Updates the overall rating, games played and won, and the rating in `ruleset`,
    each change weighed by the opponents' establishment in that scope (above).
    `players_by_place` pairs each player with their place (1 = best; equal places tie).
    User rows are locked by the caller, which also serializes their `Rating` rows.
    Returns each player's rating in `ruleset` before and after, and the weight applied,
    by user id: `{"before": {"mu", "sigma"}, "after": {"mu", "sigma"}, "weight"}`."""
    ranks = [place for _, place in players_by_place]
    users = [u for u, _ in players_by_place]
    games = [u.games_played for u in users]
    met = _established_met(users, games, RatedOpponent.OVERALL)
    current = [(u.rating_mu, u.rating_sigma) for u in users]
    for user, (mu, sigma) in zip(users, _rate(current, ranks, _weights(games)), strict=True):
        user.rating_mu, user.rating_sigma = mu, sigma
        user.games_played += 1
        if user.pk in winners:
            user.games_won += 1
        user.save(update_fields=["rating_mu", "rating_sigma", "games_played", "games_won"])

    existing = {
        r.user_id: r for r in Rating.objects.filter(ruleset=ruleset, user__in=[u.pk for u in users])
    }
    rows = [existing.get(u.pk) or Rating(user=u, ruleset=ruleset) for u in users]
    games = [r.games for r in rows]
    met += _established_met(users, games, ruleset)
    weights = _weights(games)
    rated = _rate([(r.mu, r.sigma) for r in rows], ranks, weights)
    changes = {}
    for row, (mu, sigma), weight in zip(rows, rated, weights, strict=True):
        changes[row.user_id] = {
            "before": {"mu": row.mu, "sigma": row.sigma},
            "after": {"mu": mu, "sigma": sigma},
            "weight": weight,
        }
        row.mu, row.sigma, row.games = mu, sigma, row.games + 1
    Rating.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["user", "ruleset"],
        update_fields=["mu", "sigma", "games"],
    )
    RatedOpponent.objects.bulk_create(met, ignore_conflicts=True)
    return changes
