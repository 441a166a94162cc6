"""Multiplayer skill ratings from a finishing order (OpenSkill, Plackett-Luce)."""

from openskill.models import PlackettLuce

from accounts.models import User

_MODEL = PlackettLuce()


def apply_match_result(*, players_by_place: list[tuple[User, int]], winners: set[int]) -> None:
    """Updates rating, games played and games won. `players_by_place` pairs each player
    with their place (1 = best; equal places tie). Rows are locked by the caller."""
    teams = [[_MODEL.rating(mu=u.rating_mu, sigma=u.rating_sigma)] for u, _ in players_by_place]
    ranks = [place for _, place in players_by_place]
    updated = _MODEL.rate(teams, ranks=ranks)
    for (user, _), (rating,) in zip(players_by_place, updated, strict=True):
        user.rating_mu, user.rating_sigma = rating.mu, rating.sigma
        user.games_played += 1
        if user.pk in winners:
            user.games_won += 1
        user.save(update_fields=["rating_mu", "rating_sigma", "games_played", "games_won"])
