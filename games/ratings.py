"""Multiplayer skill ratings from a finishing order (OpenSkill, Plackett-Luce): one over
every preset on the user row, and one per preset (`accounts.Rating`)."""

from openskill.models import PlackettLuce

from accounts.models import Rating, User

_MODEL = PlackettLuce()


def _rate(current: list[tuple[float, float]], ranks: list[int]) -> list[tuple[float, float]]:
    teams = [[_MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in current]
    return [(r.mu, r.sigma) for (r,) in _MODEL.rate(teams, ranks=ranks)]


def apply_match_result(
    *, players_by_place: list[tuple[User, int]], winners: set[int], ruleset: str
) -> dict[int, dict[str, dict[str, float]]]:
    """Updates the overall rating, games played and won, and the rating in `ruleset`.
    `players_by_place` pairs each player with their place (1 = best; equal places tie).
    User rows are locked by the caller, which also serializes their `Rating` rows.
    Returns each player's rating in `ruleset` before and after, by user id:
    `{"before": {"mu", "sigma"}, "after": {"mu", "sigma"}}`."""
    ranks = [place for _, place in players_by_place]
    overall = _rate([(u.rating_mu, u.rating_sigma) for u, _ in players_by_place], ranks)
    for (user, _), (mu, sigma) in zip(players_by_place, overall, strict=True):
        user.rating_mu, user.rating_sigma = mu, sigma
        user.games_played += 1
        if user.pk in winners:
            user.games_won += 1
        user.save(update_fields=["rating_mu", "rating_sigma", "games_played", "games_won"])

    users = [u for u, _ in players_by_place]
    existing = {
        r.user_id: r for r in Rating.objects.filter(ruleset=ruleset, user__in=[u.pk for u in users])
    }
    rows = [existing.get(u.pk) or Rating(user=u, ruleset=ruleset) for u in users]
    changes = {}
    for row, (mu, sigma) in zip(rows, _rate([(r.mu, r.sigma) for r in rows], ranks), strict=True):
        changes[row.user_id] = {
            "before": {"mu": row.mu, "sigma": row.sigma},
            "after": {"mu": mu, "sigma": sigma},
        }
        row.mu, row.sigma, row.games = mu, sigma, row.games + 1
    Rating.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["user", "ruleset"],
        update_fields=["mu", "sigma", "games"],
    )
    return changes
