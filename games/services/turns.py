"""Turns nobody played through the API: a server bot's move, a turn past its deadline
(by its task, by the periodic sweep, or forced by staff), all played by the timeout
policy as whole turns. Engine calls here: `_seat_choice` (engine.view_for,
engine.legal_actions, bots.*), `_play_turn` (engine.round_number; engine.forfeit through
`play.forfeit_seat`)."""

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import DateTimeField, Exists, ExpressionWrapper, F, OuterRef, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from accounts.models import User
from core import heartbeat
from games import engine, fairness
from games.engine import bots
from games.errors import MatchNotActive
from games.models import Match, Seat
from games.services.locks import match_lock, match_lock_or_none
from games.services.play import apply_action, forfeit_seat, seats_for_play
from games.services.table import MatchChange

logger = logging.getLogger(__name__)

# A turn is at most accept, reroll, bid (poker) or show_reroll, bid (common pool).
_MAX_TURN_STEPS = 5

# How far a match whose timeout failed is pushed back, so it does not head the sweep's
# queue (ordered by deadline) and block every match behind it.
SWEEP_RETRY_SECONDS = 60

SWEEP_HEARTBEAT = "games.sweep_due_turns"


def bot_play(*, match_id: int, version: int) -> bool:
    """Plays the bot's turn if the match is still at `version` (a duplicate or late
    delivery of the task finds another version and does nothing)."""
    if not _still_at(match_id, version):
        return False
    with transaction.atomic():
        match = match_lock_or_none(match_id)
        if match is None or match.version != version or match.status != Match.Status.ACTIVE:
            return False
        seats = seats_for_play(match)
        seat = next(s for s in seats if s.seat == match.turn_seat)
        if not seat.player.bot_strategy:
            return False
        action = _seat_choice(match, seat, seat.player.bot_strategy)
        apply_action(match, seats, seat.seat, action, version)
        return True


def turn_timeout(*, match_id: int, version: int | None = None) -> bool:
    """Applies the match's timeout policy if its turn is past its deadline (and, when
    given, the match is still at `version`). Returns whether anything happened.

    The deadline task (with `version`) waits for a lock held by a player's action: it
    then finds a new version and stops, or applies the timeout that is due. The sweep
    (no `version`) skips a locked match; it comes round again. A deadline task that runs
    while the sweep has been silent (the stack is coming back from an outage) leaves
    the turn to the sweep, which first grants the outage's grace."""
    if version is not None and not _still_at(match_id, version):
        return False
    if version is not None and _sweep_silent(timezone.now()):
        return False
    with transaction.atomic():
        match = match_lock_or_none(match_id, skip_locked=version is None)
        if match is None or (version is not None and match.version != version):
            return False
        return _timeout_locked(match) is not None


@dataclass(frozen=True)
class ForcedTimeout:
    """A turn timed out by staff: the change, and what the turn was before it."""

    change: MatchChange
    seat: int
    player: User
    version_before: int
    deadline_was: datetime | None
    policy: str


@transaction.atomic
def turn_force_timeout(*, match_id: int) -> ForcedTimeout:
    """Applies the match's timeout policy to the current turn now, as if its deadline had
    passed (for a turn stuck on a lost task or an absent player)."""
    match = match_lock(match_id)
    if match.status != Match.Status.ACTIVE or match.turn_seat is None:
        raise MatchNotActive(f"Match {match.pk} is {match.status}: no turn to time out.")
    seat = match.turn_seat
    player = Seat.objects.select_related("player").get(match=match, seat=seat).player
    deadline, version = match.turn_deadline, match.version
    match.turn_deadline = timezone.now()
    change = _timeout_locked(match)
    if not change:  # pragma: no cover - guarded above
        raise MatchNotActive("The turn could not be timed out.")
    return ForcedTimeout(
        change=change,
        seat=seat,
        player=player,
        version_before=version,
        deadline_was=deadline,
        policy=match.on_timeout,
    )


def sweep_due_turns(*, limit: int = 100) -> int:
    """Times out every turn past its deadline whose task was lost or too far off to
    schedule. `SKIP LOCKED`: several sweepers never wait on, or collide over, a match.
    Each match on its own: one that fails is logged and retried later. First, if the
    sweep itself was silent for a while (an outage), deadlines get their grace."""
    grant_outage_grace(now=timezone.now())
    due = (
        Match.objects.filter(status=Match.Status.ACTIVE, turn_deadline__lte=timezone.now())
        .order_by("turn_deadline")
        .values_list("pk", flat=True)[:limit]
    )
    done = 0
    for match_id in list(due):
        try:
            done += turn_timeout(match_id=match_id)
        except Exception:
            logger.exception("Timing out match %s failed; retrying it later.", match_id)
            # One UPDATE, its own transaction (the failed one was rolled back); only a
            # deadline still due, not a new turn's should the failure come after a commit.
            now = timezone.now()
            Match.objects.filter(
                pk=match_id, status=Match.Status.ACTIVE, turn_deadline__lte=now
            ).update(turn_deadline=now + timedelta(seconds=SWEEP_RETRY_SECONDS))
    return done


def grant_outage_grace(*, now: datetime) -> int:
    """Gives back the time turns lost to an outage; returns how many it extended.

    The sweep runs every few seconds and records a heartbeat each time. A gap longer than
    OUTAGE_GAP_SECONDS means beat, broker, worker or database was down since `last_seen`:
    meanwhile no timeout could run and no player could act. Each active turn whose
    deadline fell after `last_seen` and before the end of the grace then gets the time
    it had left at `last_seen` again, counted from now, and at least OUTAGE_GRACE_SECONDS,
    so nobody is timed out (or forfeited) for the server's downtime (a server bot's turn
    is not: it is played at once). One transaction: the
    heartbeat row stays locked until the deadlines are moved."""
    grace = timedelta(seconds=settings.OUTAGE_GRACE_SECONDS)
    with transaction.atomic():
        last_seen = heartbeat.beat(SWEEP_HEARTBEAT, now=now)
        if last_seen is None or now - last_seen <= timedelta(seconds=settings.OUTAGE_GAP_SECONDS):
            return 0
        # A server bot's turn keeps its deadline: the bot lost no time to think, only its
        # task, and the sweep plays it at once instead of after a grace meant for people.
        bot_to_play = Seat.objects.filter(
            match=OuterRef("pk"), seat=OuterRef("turn_seat"), player__is_bot=True
        ).exclude(player__bot_strategy="")
        extended = Match.objects.filter(
            ~Exists(bot_to_play),
            status=Match.Status.ACTIVE,
            turn_deadline__gt=last_seen,
            turn_deadline__lte=now + grace,
        ).update(
            turn_deadline=Greatest(
                ExpressionWrapper(F("turn_deadline") + (now - last_seen), DateTimeField()),
                Value(now + grace),
            )
        )
    logger.warning(
        "The sweep was silent for %.0f s (an outage): %d turn deadline(s) extended.",
        (now - last_seen).total_seconds(),
        extended,
    )
    return extended


def _sweep_silent(now: datetime) -> bool:
    silent = heartbeat.silent_for(SWEEP_HEARTBEAT, now=now)
    return silent is not None and silent > timedelta(seconds=settings.OUTAGE_GAP_SECONDS)


def _still_at(match_id: int, version: int) -> bool:
    """A lock-free look first: most scheduled tasks find the match moved on, and need not
    queue for the row lock behind the players to learn it (checked again under the lock)."""
    return Match.objects.filter(pk=match_id, version=version, status=Match.Status.ACTIVE).exists()


def _timeout_locked(match: Match) -> MatchChange | None:
    """The timeout policy on the locked `match`, if its turn is due: a lost bot task is
    played now; a player's turn is played by the policy, with a `turn_timed_out` event."""
    now = timezone.now()
    if (
        match.status != Match.Status.ACTIVE
        or match.turn_deadline is None
        or match.turn_deadline > now
    ):
        return None
    seats = seats_for_play(match)
    seat = next(s for s in seats if s.seat == match.turn_seat)
    if seat.player.bot_strategy:  # its task was lost: play its turn now
        return _play_turn(match, seats, seat, seat.player.bot_strategy)
    seat.consecutive_timeouts += 1
    seat.save(update_fields=["consecutive_timeouts"])
    policy = match.on_timeout
    if policy == Match.TimeoutPolicy.FORFEIT or (
        policy == Match.TimeoutPolicy.AUTO and seat.consecutive_timeouts >= match.max_timeouts
    ):
        strategy = "forfeit"
    elif policy == Match.TimeoutPolicy.CHALLENGE:
        strategy = "challenge"
    else:
        strategy = "cautious"
    preface = [
        {
            "type": "turn_timed_out",
            "seat": seat.seat,
            "policy": policy,
            "consecutive": seat.consecutive_timeouts,
            "late_ms": int((now - match.turn_deadline).total_seconds() * 1000),
        }
    ]
    return _play_turn(match, seats, seat, strategy, preface=preface)


def _seat_choice(match: Match, seat: Seat, strategy: str) -> dict[str, Any]:
    """What a strategy does for `seat`, from that seat's view only."""
    state = engine.state_from_json(match.state)
    view = engine.view_for(state, seat.seat)
    legal = engine.legal_actions(state, seat.seat)
    if strategy == "challenge":
        return bots.challenge_policy_action(view, legal)
    return bots.choose_action(strategy, view, legal, fairness.SECURE_DICE)


def _play_turn(
    match: Match, seats: list[Seat], seat: Seat, strategy: str, preface: list[dict] | None = None
) -> MatchChange:
    """Plays `seat`'s whole turn with `strategy` ("forfeit" leaves the match): every step
    while the turn stays with the seat in the same round (accept, reroll, then bid), so an
    absent player's turn is one timeout, not one per step."""
    if strategy == "forfeit":
        return forfeit_seat(match, seats, seat.seat, preface=preface)
    round_number = engine.round_number(engine.state_from_json(match.state))
    for _ in range(_MAX_TURN_STEPS):
        action = _seat_choice(match, seat, strategy)
        change = apply_action(match, seats, seat.seat, action, None, preface=preface)
        preface = None
        if (
            match.status != Match.Status.ACTIVE
            or match.turn_seat != seat.seat
            or engine.round_number(change.state) != round_number
        ):
            return change
    raise RuntimeError(f"{strategy!r} kept seat {seat.seat}'s turn for {_MAX_TURN_STEPS} steps")
