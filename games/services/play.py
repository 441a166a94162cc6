"""Play: a seat's action through the engine, then one handler per engine event for its
consequences (chips, round records, seats out, the end of the match), the new state with
fresh dice commitments, and the work queued for after the commit.

`action_submit` is the API's entry; `apply_action` is shared with the turn services
(bots and timeouts); `apply_engine_events` also absorbs the first round of `lobby`'s
start. Engine calls here: `apply_action` (engine.apply), `forfeit_seat`
(engine.forfeit), `apply_engine_events` (engine.current_seat, engine.round_number),
`_commitments` (engine.commitment_material), `_finish` (engine.loser, engine.placements)."""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from accounts.models import User, Webhook
from core.idempotency import service_atomic
from core.prebuilt import (
    PrebuiltInsert,
    PrebuiltSelect,
    PrebuiltUpdate,
    Writes,
    select_together,
    table,
)
from games import engine, fairness, stakes
from games.errors import MatchNotActive, MatchNotFound, NotSeated, StaleVersion, rules_error
from games.events import MatchFinished, YourTurn
from games.fairness import commitment, new_salt
from games.models import Match, MatchAction, RoundRecord, Seat
from games.ratings import apply_match_result
from games.selectors import match_visible
from games.services.locks import MATCH_FOR_UPDATE, users_lock
from games.services.publish import Notice, publish, seat_notices
from games.services.table import MatchChange

# What play changes on the match row (the rest is fixed at creation).
PLAY_FIELDS = [
    "status",
    "version",
    "event_seq",
    "state",
    "secrets",
    "turn_seat",
    "turn_deadline",
    "winner_seats",
    "started_at",
    "finished_at",
    "opener_seat",
    "unrated_reason",
]

# Every move writes the match row this way (core.prebuilt), with its other writes.
PLAY_UPDATE = PrebuiltUpdate(Match, PLAY_FIELDS)

# Every move reads them: their SQL is built once (core.prebuilt).
_SEATS_FOR_PLAY = PrebuiltSelect(
    Seat,
    "WHERE m.match_id = %s ORDER BY m.seat",
    related="player",
    annotations={
        "has_webhook": f"EXISTS (SELECT 1 FROM {table(Webhook)} w"
        " WHERE w.user_id = m.player_id AND w.active)"
    },
)


def seats_for_play(match: Match) -> list[Seat]:
    """The match's seats in order, with players and `has_webhook` (which saves a query
    per action when nobody at the table has a webhook)."""
    return _SEATS_FOR_PLAY.all([match.pk])


def match_for_play(match_id: int, user: User) -> tuple[Match, list[Seat]]:
    """`visible_match_lock` and `seats_for_play` in one round trip: the seats are read
    once the match's lock is held, as they would be one after the other."""
    matches, seats = select_together((MATCH_FOR_UPDATE, [match_id]), (_SEATS_FOR_PLAY, [match_id]))
    if not matches or not match_visible(matches[0], seats, user):
        raise MatchNotFound(f"No match {match_id}.")
    return matches[0], seats


# A move's entry in the match's action log, written with the move's other writes.
_LOG_INSERT = PrebuiltInsert(MatchAction)


def action_submit(
    *, match_id: int, user: User, action: dict[str, Any], expected_version: int | None = None
) -> MatchChange:
    """A player's action on their turn (`expected_version`, when given, must be current)."""
    with service_atomic():
        match, seats = match_for_play(match_id, user)
        seat = next((s for s in seats if s.player_id == user.pk), None)
        if seat is None:
            raise NotSeated("You have no seat in this match.")
        if seat.consecutive_timeouts:
            seat.consecutive_timeouts = 0
            seat.save(update_fields=["consecutive_timeouts"])
        return apply_action(match, seats, seat.seat, action, expected_version)


def apply_action(
    match: Match,
    seats: list[Seat],
    seat_number: int,
    action: dict[str, Any],
    expected_version: int | None,
    preface: list[dict] | None = None,
) -> MatchChange:
    """Runs `action` for `seat_number` through the engine on the locked `match` and
    absorbs what follows; `preface` events (a timeout's) are published before the
    engine's."""
    if match.status != Match.Status.ACTIVE:
        raise MatchNotActive(f"This match is {match.status}.")
    if expected_version is not None and expected_version != match.version:
        raise StaleVersion(
            f"The match is at version {match.version}, not {expected_version}; reload it."
        )
    state = engine.state_from_json(match.state)
    applied = {**action, "seat": seat_number}
    try:
        new_state, events = engine.apply(state, applied, fairness.SECURE_DICE)
    except engine.EngineError as exc:
        raise rules_error(exc) from exc
    # The action log that, with the dice rolled, rebuilds the match (its export).
    logged = MatchAction(match=match, number=new_state.version, action=applied)
    match.version += 1
    return apply_engine_events(match, seats, new_state, events, preface=preface, logged=logged)


def forfeit_seat(
    match: Match, seats: list[Seat], seat_number: int, preface: list[dict] | None = None
) -> MatchChange:
    """`seat_number` leaves the locked, running `match` at once (resigning, the timeout
    policy, a ban): the engine's forfeit, not an action a player can send."""
    if match.status != Match.Status.ACTIVE:
        raise MatchNotActive(f"This match is {match.status}.")
    state = engine.state_from_json(match.state)
    try:
        new_state, events = engine.forfeit(state, seat_number, fairness.SECURE_DICE)
    except engine.EngineError as exc:
        raise rules_error(exc) from exc
    # The log's spelling of a forfeit, which the engine's replay reads back.
    forfeit = {"type": engine.FORFEIT_LOG_ENTRY, "seat": seat_number}
    logged = MatchAction(match=match, number=new_state.version, action=forfeit)
    match.version += 1
    return apply_engine_events(match, seats, new_state, events, preface=preface, logged=logged)


# --- one handler per engine event ------------------------------------------------------


@dataclass
class _Absorbing:
    """What the handlers share while the engine's events of one change are absorbed:
    the locked match, its seats, the new state, the round's secrets (salts, commitments,
    antes) and the public events to append."""

    match: Match
    seats: list[Seat]
    state: "engine.State"
    secret: dict[str, Any]
    public: list[dict] = field(default_factory=list)
    # The action being absorbed, written to the log with the rest of the change.
    logged: MatchAction | None = None

    def __post_init__(self) -> None:
        self.by_number = {s.seat: s for s in self.seats}


def _on_round_started(ctx: _Absorbing, event: dict) -> None:
    """Antes from the live seats; new salts for the round's commitments."""
    number = event["number"]
    live = [s for s in ctx.seats if ctx.state.live[s.seat]]
    salts = {str(s.seat): new_salt() for s in ctx.seats}
    moves = stakes.take_antes(match=ctx.match, round_number=number, seats=live)
    ctx.secret = {"round": number, "salts": salts, "commitments": {}, "chips": moves}
    ctx.public.append(event)


def _on_round_ended(ctx: _Absorbing, event: dict) -> None:
    """`round_finished` pays the round pot to its winner, `round_voided` refunds the
    antes; either way the round is recorded with its commitments and their salts."""
    record = dict(event["round"])
    result = record.get("result")
    moves = list(ctx.secret.get("chips", []))
    if event["type"] == "round_voided":
        moves += stakes.refund_voided_round(match=ctx.match, round_number=record["number"])
    elif result and result.get("winner_seat") is not None:
        moves += stakes.pay_round_pot(
            match=ctx.match,
            round_number=record["number"],
            seat=ctx.by_number[result["winner_seat"]],
        )
    reveal_commitments(record, ctx.secret)
    if result is not None:
        result["chips"] = moves
    record["chips"] = moves
    RoundRecord.objects.create(match=ctx.match, number=record["number"], record=record)
    ctx.public.append({**event, "round": record})


def _on_player_out(ctx: _Absorbing, event: dict) -> None:
    out = ctx.by_number[event["seat"]]
    # A forfeit (timeouts, a ban) is leaving the table, not losing at it.
    out.status = Seat.Status.LEFT if event.get("reason") == "forfeit" else Seat.Status.OUT
    out.save(update_fields=["status"])
    ctx.public.append(event)


def _on_match_finished(ctx: _Absorbing, event: dict) -> None:
    ctx.public.append(event)
    _finish(ctx.match, ctx.seats, ctx.state, event, ctx.logged)


def _publish(ctx: _Absorbing, event: dict) -> None:
    """Every other event (bids, challenges, steps inside a turn) is only published."""
    ctx.public.append(event)


_HANDLERS: dict[str, Callable[[_Absorbing, dict], None]] = {
    "round_started": _on_round_started,
    "round_finished": _on_round_ended,
    "round_voided": _on_round_ended,
    "player_out": _on_player_out,
    "match_finished": _on_match_finished,
}


def reveal_commitments(record: dict[str, Any], secret: dict[str, Any]) -> dict[str, Any]:
    """Adds to an ended round's `record` the dice commitments published during the round
    and the salts that open them, so players can check the dice they were shown. The one
    place a round's salts are revealed (an aborted round's too)."""
    record["dice_commitments"] = secret.get("commitments", {})
    record["salts"] = {
        s: v for s, v in secret.get("salts", {}).items() if s in record["dice_commitments"]
    }
    return record


def apply_engine_events(
    match: Match,
    seats: list[Seat],
    state: "engine.State",
    events: list[dict],
    preface: list[dict] | None = None,
    logged: MatchAction | None = None,
) -> MatchChange:
    """Hands each engine event to its handler, then saves the state, the turn and its
    deadline, the public events and fresh dice commitments, and queues the follow-up.
    Those writes, with the action log's entry `logged` and the account events, go to
    PostgreSQL together (`Writes`): a move's last round trip before the commit."""
    ctx = _Absorbing(match, seats, state, match.secrets or {}, list(preface or []), logged)
    for event in events:
        _HANDLERS.get(event["type"], _publish)(ctx, event)

    # A step inside a turn (accept, reroll, show_reroll) keeps the seat and the round: the
    # turn's deadline stands and the player is not told again that it is their turn.
    turn = engine.current_seat(state)
    secret = ctx.secret
    new_turn = (
        turn != match.turn_seat
        or match.turn_deadline is None
        or (match.secrets or {}).get("round") != secret.get("round")
    )
    if turn is not None:
        fresh = _commitments(state, secret.get("salts", {}))
        if fresh != secret.get("commitments"):
            secret["commitments"] = fresh
            ctx.public.append(
                {
                    "type": "dice_committed",
                    "round": engine.round_number(state),
                    "dice_commitments": fresh,
                }
            )
    match.secrets = secret
    match.state = state.to_json()
    match.turn_seat = turn
    if turn is None:
        match.turn_deadline = None
    elif new_turn:
        match.turn_deadline = turn_deadline(match, ctx.by_number[turn])
    writes = Writes()
    if logged is not None:
        writes.add(_LOG_INSERT.statement([logged]))
    publish(
        match=match,
        events=ctx.public,
        notices=_notices(match, seats, ctx.by_number.get(turn), new_turn=new_turn),
        turn=ctx.by_number[turn] if turn is not None else None,
        writes=writes,
    )
    writes.add(PLAY_UPDATE.statement(match))
    writes.run()
    return MatchChange(match=match, seats=seats, state=state)


def _notices(match: Match, seats: list[Seat], turn: Seat | None, *, new_turn: bool) -> list[Notice]:
    """`match_finished` to everyone at the end; else `your_turn` to the player whose turn
    begins (not at each step inside it)."""
    if match.status == Match.Status.FINISHED:
        return match_finished_notices(match, seats)
    if turn is None or not new_turn:
        return []
    return seat_notices(
        [turn],
        lambda s: YourTurn(
            match_id=match.pk,
            seat=s.seat,
            version=match.version,
            turn_deadline=match.turn_deadline,
            seat_stream=reverse("match-seat-stream", kwargs={"match_id": match.pk}),
        ),
    )


def match_finished_notices(match: Match, seats: list[Seat]) -> list[Notice]:
    """`match_finished` for each person seated at `match`, finished or aborted."""
    return seat_notices(
        seats,
        lambda s: MatchFinished(
            match_id=match.pk,
            seat=s.seat,
            status=match.status,
            winner_seats=list(match.winner_seats),
        ),
    )


def turn_deadline(match: Match, seat: Seat) -> datetime:
    """When `seat`'s new turn times out: now for a banned player (the timeout policy
    plays the seat at once), soon for a server bot, else after the match's turn time."""
    if not seat.player.is_active:
        return timezone.now()
    seconds = match.turn_seconds
    if seat.player.bot_strategy:
        # A server bot's move is a task; if it were lost the sweep plays it soon after this.
        seconds = min(seconds, settings.BOT_TURN_DEADLINE_SECONDS)
    return timezone.now() + timedelta(seconds=seconds)


def _commitments(state: "engine.State", salts: dict[str, str]) -> dict[str, str]:
    """A salted commitment to each entry the engine says is committed to (a seat's dice,
    or the one box): its salt is the round's salt of that key, made when first needed."""
    return {
        key: commitment(salts.setdefault(key, new_salt()), dice)
        for key, dice in engine.commitment_material(state).items()
    }


def _finish(
    match: Match, seats: list[Seat], state: "engine.State", event: dict, logged: MatchAction | None
) -> None:
    """The end of the match: the game pot and the stacks settled, then the ratings (the
    players' rows locked after the ledger's accounts, as `locks` orders) unless the
    result does not count (`unrated_reason`, kept on the match for its result); each
    seat keeps its rating change."""
    match.status = Match.Status.FINISHED
    match.finished_at = timezone.now()
    match.winner_seats = list(event["winner_seats"])
    loser = engine.loser(state)
    stakes.settle_match(match=match, seats=seats, winner_seats=match.winner_seats, loser_seat=loser)
    match.unrated_reason = unrated_reason(match, seats, logged)
    if match.unrated_reason:
        return
    places = {int(s): p for s, p in engine.placements(state).items()}
    players = users_lock(s.player_id for s in seats)
    winners = {by.player_id for by in seats if by.seat in match.winner_seats}
    changes = apply_match_result(
        players_by_place=[(players[s.player_id], places[s.seat]) for s in seats],
        winners=winners,
        ruleset=match.ruleset,
    )
    for seat in seats:
        seat.rating_change = changes[seat.player_id]
    Seat.objects.bulk_update(seats, ["rating_change"])


def unrated_reason(match: Match, seats: list[Seat], logged: MatchAction | None) -> str:
    """Why a finishing match changes no rating (a `Match.Unrated`), or "" when it does
    (docs/API.md, "Matches"). `casual`: not rated. `abandoned` (issue 33): a forfeit
    (resigning, leaving, the timeout policy, a claimed win, a ban) ended it before
    `RATED_MIN_ROUNDS` rounds ended with a result, however little was played, so a
    match made only to be resigned after a bid and a challenge does not count.
    `not_played` (issue 25): no round ended with a result, or a seat never made a move
    of its own (a turn the timeout policy played counts; a forfeit does not). `logged`
    is the finishing move, not yet written to the log."""
    if not match.rated:
        return Match.Unrated.CASUAL
    results = RoundRecord.objects.filter(match=match, record__result__isnull=False).count()
    forfeited = logged is not None and logged.action["type"] == engine.FORFEIT_LOG_ENTRY
    if forfeited and results < settings.RATED_MIN_ROUNDS:
        return Match.Unrated.ABANDONED
    if not results:
        return Match.Unrated.NOT_PLAYED
    log = list(MatchAction.objects.filter(match=match).values_list("action", flat=True))
    if logged is not None:
        log.append(logged.action)
    moved = {entry["seat"] for entry in log if entry["type"] != engine.FORFEIT_LOG_ENTRY}
    if not all(seat.seat in moved for seat in seats):
        return Match.Unrated.NOT_PLAYED
    return ""
