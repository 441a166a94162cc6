"""Reads for challenges and quick-play seeks: what a player may see of them."""

from typing import Any

from django.db.models import Q, QuerySet

from accounts.models import User
from games.errors import ChallengeNotFound, SeekNotFound
from games.models import Challenge, Seek
from games.services.table import player_ref


def challenges_of(
    *, user: User, direction: str | None = None, status: str | None = None
) -> QuerySet[Challenge]:
    """Challenges `user` sent (`outgoing`) or received (`incoming`), or both."""
    sent, received = Q(challenger=user), Q(invites__player=user)
    where = {"outgoing": sent, "incoming": received}.get(direction or "", sent | received)
    challenges = Challenge.objects.filter(where)
    if status:
        challenges = challenges.filter(status=status)
    return challenges.distinct().select_related("challenger").prefetch_related("invites__player")


def challenge_get(*, challenge_id: int, user: User) -> Challenge:
    challenge = challenges_of(user=user).filter(pk=challenge_id).first()
    if challenge is None:
        raise ChallengeNotFound(f"No challenge {challenge_id}.")
    return challenge


def challenge_payload(challenge: Challenge) -> dict[str, Any]:
    return {
        "id": challenge.pk,
        "challenger": player_ref(challenge.challenger),
        "players": [
            {"player": player_ref(i.player), "response": i.response}
            for i in challenge.invites.all()
        ],
        "ruleset": challenge.ruleset,
        "options": challenge.options,
        "turn_seconds": challenge.turn_seconds,
        "buy_in": challenge.buy_in,
        "ante": challenge.ante,
        "rated": challenge.rated,
        "status": challenge.status,
        "match_id": challenge.match_id,
        "created_at": challenge.created_at,
        "expires_at": challenge.expires_at,
    }


def seeks_of(*, user: User, status: str | None = None) -> QuerySet[Seek]:
    seeks = Seek.objects.filter(user=user)
    return seeks.filter(status=status) if status else seeks


def seek_get(*, seek_id: int, user: User) -> Seek:
    seek = seeks_of(user=user).filter(pk=seek_id).first()
    if seek is None:
        raise SeekNotFound(f"No seek {seek_id}.")
    return seek


def seek_payload(seek: Seek) -> dict[str, Any]:
    return {
        "id": seek.pk,
        "ruleset": seek.ruleset,
        "players": seek.players,
        "turn_seconds": seek.turn_seconds,
        "buy_in": seek.buy_in,
        "ante": seek.ante,
        "rated": seek.rated,
        "against_people": seek.against_people,
        "rating": round(seek.rating, 2),
        "status": seek.status,
        "match_id": seek.match_id,
        "created_at": seek.created_at,
        "expires_at": seek.expires_at,
    }
