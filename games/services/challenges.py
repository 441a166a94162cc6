"""Direct challenges: a player invites named players to a match with set rules; the
match starts once every one of them accepts. One refusal ends the challenge; the
challenger may cancel it; unanswered, it expires. The challenged hear of it as an
account event (`publish`: their webhooks and account stream).

Locks: the challenge row first (before any match row, as `locks` orders), so two
answers at once are taken one after the other and exactly one of them starts the match."""

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.functions import Lower
from django.utils import timezone

from accounts.models import User
from core.errors import InvalidInput
from games import engine, events
from games.errors import (
    ChallengeClosed,
    ChallengeExpired,
    ChallengeNotFound,
    NotChallenged,
    NotChallenger,
    rules_error,
)
from games.models import Challenge, ChallengeInvite, Match
from games.services.lobby import check_wallet, match_open_full
from games.services.locks import challenges_lock
from games.services.publish import Notice, publish


def _received(challenge: Challenge) -> events.ChallengeReceived:
    return events.ChallengeReceived(
        challenge_id=challenge.pk,
        challenger=challenge.challenger.username,
        challenger_is_bot=challenge.challenger.is_bot,
        ruleset=challenge.ruleset,
        turn_seconds=challenge.turn_seconds,
        buy_in=challenge.buy_in,
        ante=challenge.ante,
        expires_at=challenge.expires_at,
    )


@transaction.atomic
def challenge_create(
    *,
    user: User,
    usernames: list[str],
    ruleset: str,
    options: dict[str, Any] | None = None,
    turn_seconds: int,
    buy_in: int = 0,
    ante: int = 0,
    rated: bool = True,
) -> Challenge:
    """Invites `usernames` (1 to 7 other players, not the server's bots)."""
    try:
        engine.rules_from_preset(ruleset, options or {})  # refused now, not at acceptance
    except engine.EngineError as exc:
        raise rules_error(exc) from exc
    wanted = {name.lower() for name in usernames}
    if len(wanted) != len(usernames):
        raise InvalidInput({"usernames": ["Name each player once."]})
    if user.username.lower() in wanted:
        raise InvalidInput({"usernames": ["You cannot challenge yourself."]})
    players = list(
        User.objects.filter(is_active=True, bot_strategy="")
        .annotate(name=Lower("username"))
        .filter(name__in=wanted)
        .order_by("id")
    )
    if len(players) != len(wanted):
        found = {p.username.lower() for p in players}
        missing = sorted(wanted - found)
        raise InvalidInput({"usernames": [f"No player named {', '.join(missing)}."]})
    check_wallet(user, buy_in)
    now = timezone.now()
    challenge = Challenge.objects.create(
        challenger=user,
        ruleset=ruleset,
        options=options or {},  # the overrides, as match_create takes them
        turn_seconds=turn_seconds,
        buy_in=buy_in,
        ante=ante,
        rated=rated,
        created_at=now,
        expires_at=now + timedelta(seconds=settings.CHALLENGE_TTL_SECONDS),
    )
    ChallengeInvite.objects.bulk_create(
        [ChallengeInvite(challenge=challenge, player=p) for p in players]
    )
    publish(notices=[Notice(p.pk, _received(challenge)) for p in players])
    return challenge


def _lock(challenge_id: int, user: User) -> Challenge:
    """The challenge row, locked, if `user` is its challenger or one of the challenged."""
    challenge = challenges_lock(
        Challenge.objects.select_related("challenger").filter(pk=challenge_id)
    ).first()
    if challenge is None or (
        challenge.challenger_id != user.pk and not challenge.invites.filter(player=user).exists()
    ):
        raise ChallengeNotFound(f"No challenge {challenge_id}.")
    return challenge


def _check_pending(challenge: Challenge) -> None:
    if challenge.status == Challenge.Status.PENDING and challenge.expires_at <= timezone.now():
        # Past its time but not yet swept: it is over (the sweep will mark it).
        raise ChallengeExpired("This challenge has expired.")
    if challenge.status != Challenge.Status.PENDING:
        raise ChallengeClosed(f"This challenge is {challenge.status}.")


def _invite(challenge: Challenge, user: User) -> ChallengeInvite:
    invite = challenge.invites.filter(player=user).first()
    if invite is None:
        raise NotChallenged("Only a challenged player answers a challenge.")
    if invite.response != ChallengeInvite.Response.PENDING:
        raise ChallengeClosed(f"You have {invite.response} this challenge already.")
    return invite


@transaction.atomic
def challenge_accept(*, challenge_id: int, user: User) -> Challenge:
    """`user` accepts; the last acceptance seats everyone (challenger in seat 0, then the
    challenged in the order invited) and starts the match."""
    challenge = _lock(challenge_id, user)
    _check_pending(challenge)
    invite = _invite(challenge, user)
    check_wallet(user, challenge.buy_in)
    invite.response = ChallengeInvite.Response.ACCEPTED
    invite.responded_at = timezone.now()
    invite.save(update_fields=["response", "responded_at"])
    invites = list(challenge.invites.select_related("player").order_by("id"))
    if any(i.response != ChallengeInvite.Response.ACCEPTED for i in invites):
        return challenge
    challenge.match = _start_match(challenge, [i.player for i in invites])
    challenge.status = Challenge.Status.ACCEPTED
    challenge.save(update_fields=["status", "match"])
    accepted = events.ChallengeAccepted(challenge_id=challenge.pk, match_id=challenge.match_id)
    publish(
        notices=[
            Notice(user_id, accepted)
            for user_id in [challenge.challenger_id, *(i.player_id for i in invites)]
        ]
    )
    return challenge


def _start_match(challenge: Challenge, invited: list[User]) -> Match:
    """Opens the table and seats everyone: it starts itself once full. Should someone no
    longer cover the buy-in, nothing happens (the transaction rolls back); the challenge
    stays open for them to find the chips, or expires."""
    return match_open_full(
        players=[challenge.challenger, *invited],
        refusal="A player can no longer cover the buy-in; the match did not start.",
        ruleset=challenge.ruleset,
        options=challenge.options,
        turn_seconds=challenge.turn_seconds,
        buy_in=challenge.buy_in,
        ante=challenge.ante,
        rated=challenge.rated,
    )


@transaction.atomic
def challenge_decline(*, challenge_id: int, user: User) -> Challenge:
    """One refusal ends the challenge for everyone."""
    challenge = _lock(challenge_id, user)
    _check_pending(challenge)
    invite = _invite(challenge, user)
    invite.response = ChallengeInvite.Response.DECLINED
    invite.responded_at = timezone.now()
    invite.save(update_fields=["response", "responded_at"])
    publish(notices=_close(challenge, Challenge.Status.DECLINED, by=user))
    return challenge


@transaction.atomic
def challenge_cancel(*, challenge_id: int, user: User) -> Challenge:
    challenge = _lock(challenge_id, user)
    if challenge.challenger_id != user.pk:
        raise NotChallenger("Only the challenger cancels a challenge.")
    _check_pending(challenge)
    publish(notices=_close(challenge, Challenge.Status.CANCELLED, by=user))
    return challenge


# The account event telling the others that a challenge closed, by how it closed.
_CLOSED = {
    Challenge.Status.DECLINED: events.ChallengeDeclined,
    Challenge.Status.CANCELLED: events.ChallengeCancelled,
    Challenge.Status.EXPIRED: events.ChallengeExpired,
}


def _close(challenge: Challenge, status: str, *, by: User | None) -> list[Notice]:
    """Closes the locked `challenge`; returns the notices telling everyone but `by`."""
    challenge.status = status
    challenge.save(update_fields=["status"])
    others = [challenge.challenger_id, *challenge.invites.values_list("player_id", flat=True)]
    closed = _CLOSED[status](challenge_id=challenge.pk)
    return [Notice(pk, closed) for pk in others if by is None or pk != by.pk]


def challenges_expire(*, now: datetime | None = None, limit: int = 200) -> int:
    """Marks pending challenges past their time expired (SKIP LOCKED: a challenge being
    answered right now is left to its answer). Returns how many expired."""
    now = now or timezone.now()
    notices: list[Notice] = []
    with transaction.atomic():
        due = challenges_lock(
            Challenge.objects.select_related("challenger")
            .filter(status=Challenge.Status.PENDING, expires_at__lte=now)
            .order_by("id"),
            skip_locked=True,
        )[:limit]
        for challenge in due:
            notices += _close(challenge, Challenge.Status.EXPIRED, by=None)
        # Published once, so the players' event counters are locked in one ascending
        # order for the whole sweep (per challenge, two sweeps' orders could cross).
        publish(notices=notices)
    return len(due)
