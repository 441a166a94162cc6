"""Writes for matches. Each service locks the match row, calls the pure engine, moves
chips through the ledger, writes the new state and its events, all in one transaction."""

import logging
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from accounts.models import User, Webhook
from core.errors import DomainError, InvalidInput
from games import engine, stakes
from games.engine import strategies
from games.errors import (
    AlreadySeated,
    MatchFull,
    MatchNotActive,
    MatchNotFound,
    MatchNotOpen,
    NotCreator,
    NotSeated,
    RulesRejected,
    StaleVersion,
)
from games.fairness import SECURE_DICE, commitment, new_salt
from games.models import ChatMessage, Match, MatchEvent, RoundRecord, Seat
from games.notify import notify_match
from games.ratings import apply_match_result
from ledger.errors import InsufficientChips
from ledger.selectors import wallet_balance

logger = logging.getLogger(__name__)

# What play changes on the match row (the rest is fixed at creation).
_PLAY_FIELDS = [
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
]

# Engine codes that describe a conflict with the match's current state.
_CONFLICT_CODES = {"not_your_turn", "match_over"}


def rules_error(exc: engine.EngineError) -> RulesRejected:
    code = str(getattr(exc, "code", "validation_error"))
    status = 409 if code in _CONFLICT_CODES else 400
    return RulesRejected(
        str(exc.detail if hasattr(exc, "detail") else exc), code=code, status=status
    )


def _lock(match_id: int) -> Match:
    match = (
        Match.objects.select_for_update(of=("self",))
        .select_related("created_by")
        .filter(pk=match_id)
        .first()
    )
    if match is None:
        raise MatchNotFound(f"No match {match_id}.")
    return match


def _seats(match: Match) -> list[Seat]:
    # `has_webhook` saves a query per action when nobody at the table has a webhook.
    seats = list(
        match.seats.select_related("player")
        .annotate(
            has_webhook=Exists(Webhook.objects.filter(user_id=OuterRef("player_id"), active=True))
        )
        .order_by("seat")
    )
    match.loaded_seats = seats  # the response view reuses them
    return seats


def _append_events(match: Match, events: list[dict[str, Any]]) -> None:
    if not events:
        return
    rows = []
    for event in events:
        match.event_seq += 1
        rows.append(MatchEvent(match=match, seq=match.event_seq, type=event["type"], data=event))
    MatchEvent.objects.bulk_create(rows)
    notify_match(match.pk)


def _player_ref(user: User) -> dict[str, Any]:
    return {"id": user.pk, "username": user.username, "is_bot": user.is_bot}


def _check_wallet(user: User, amount: int) -> None:
    """Refuses `user`, the caller, who cannot cover `amount` (their own balance is theirs
    to see; another player's never is)."""
    if not amount:
        return
    balance = wallet_balance(user=user)
    if balance < amount:
        raise InsufficientChips(f"You have {balance} chips; the buy-in is {amount}.")


# --- lobby ---------------------------------------------------------------------------


@transaction.atomic
def match_create(
    *,
    user: User,
    ruleset: str,
    options: dict[str, Any] | None = None,
    max_players: int,
    turn_seconds: int,
    buy_in: int = 0,
    ante: int = 0,
    private: bool = False,
    bots: list[str] | None = None,
    on_timeout: str = Match.TimeoutPolicy.AUTO,
    max_timeouts: int = 3,
    opener_seat: int | None = None,
) -> Match:
    """Opens a lobby with `user` in seat 0. `opener_seat` (first_opener `creator` only)
    names the seat that opens round 1; should nobody sit there when the match starts
    (it starts with fewer than `max_players`), the creator's seat opens instead."""
    try:
        rules = engine.rules_from_preset(ruleset, options or {})
    except engine.EngineError as exc:
        raise rules_error(exc) from exc
    if opener_seat is not None:
        if rules.is_poker or rules.first_opener != "creator":
            raise InvalidInput(
                {"opener_seat": ["A named opener needs the option first_opener: creator."]}
            )
        if not 0 <= opener_seat < max_players:
            raise InvalidInput(
                {"opener_seat": [f"The opener must be a seat from 0 to {max_players - 1}."]}
            )
    if bots and len(bots) >= max_players:
        raise DomainError(
            "A match needs a seat for its creator besides the bots.", code="validation_error"
        )
    _check_wallet(user, buy_in)
    match = Match.objects.create(
        ruleset=ruleset,
        family=rules.family,
        rules=rules.to_dict(),
        created_by=user,
        max_players=max_players,
        turn_seconds=turn_seconds,
        buy_in=buy_in,
        ante=ante,
        private=private,
        invite_code=secrets.token_urlsafe(9) if private else "",
        on_timeout=on_timeout,
        max_timeouts=max_timeouts,
        opener_seat=opener_seat,
    )
    Seat.objects.create(match=match, seat=0, player=user)
    _append_events(
        match,
        [
            {
                "type": "match_created",
                "ruleset": ruleset,
                "rules": match.rules,
                "max_players": max_players,
                "buy_in": buy_in,
                "ante": ante,
            },
            {"type": "player_joined", "seat": 0, "player": _player_ref(user)},
        ],
    )
    for strategy in bots or []:
        _seat_bot(match, strategy)
    _bump_and_maybe_start(match)
    return match


def _free_seat_number(match: Match) -> int:
    taken = set(match.seats.values_list("seat", flat=True))
    return next(n for n in range(match.max_players) if n not in taken)


def _seat_player(match: Match, user: User) -> Seat:
    if match.seats.filter(player=user).exists():
        raise AlreadySeated("You already have a seat in this match.")
    if match.seats.count() >= match.max_players:
        raise MatchFull(f"All {match.max_players} seats are taken.")
    seat = Seat.objects.create(match=match, seat=_free_seat_number(match), player=user)
    _append_events(
        match, [{"type": "player_joined", "seat": seat.seat, "player": _player_ref(user)}]
    )
    return seat


def _seat_bot(match: Match, strategy: str) -> Seat:
    from games.bots import bot_account, fund_bot

    bot = bot_account(strategy)
    if match.seats.filter(player=bot).exists():
        # One account per strategy: a second bot of a strategy gets a numbered twin.
        bot = bot_account(strategy, index=match.seats.exclude(player__bot_strategy="").count())
    fund_bot(bot=bot, amount=match.buy_in)
    return _seat_player(match, bot)


def _bump_and_maybe_start(match: Match) -> None:
    """Starts a full table. The caller (creator or joiner) has shown it can cover the
    buy-in; anyone who no longer can is unseated, and the table waits for a new player."""
    match.version += 1
    if match.seats.count() >= match.max_players:
        _unseat_short_of_chips(match)
    if match.status == Match.Status.OPEN and match.seats.count() >= match.max_players:
        _start(match)
    else:
        match.save(update_fields=["version", "event_seq", "status", "finished_at", "created_by"])


@transaction.atomic
def match_join(*, match_id: int, user: User, invite_code: str | None = None) -> Match:
    match = _lock(match_id)
    if match.status != Match.Status.OPEN:
        # A table starts once every seat is taken: say so rather than only "not open".
        if match.status == Match.Status.ACTIVE and match.seats.count() >= match.max_players:
            raise MatchFull(f"All {match.max_players} seats are taken.")
        raise MatchNotOpen("This match is not open for joining.")
    if match.private and invite_code != match.invite_code:
        raise DomainError(
            "This private match needs its invite code.", code="invalid_invite_code", status=403
        )
    _check_wallet(user, match.buy_in)
    _seat_player(match, user)
    _bump_and_maybe_start(match)
    return match


@transaction.atomic
def match_leave(*, match_id: int, user: User) -> Match:
    match = _lock(match_id)
    if match.status != Match.Status.OPEN:
        raise MatchNotOpen("You can only leave a match before it starts.")
    seat = match.seats.filter(player=user).select_related("player").first()
    if seat is None:
        raise NotSeated("You have no seat in this match.")
    match.version += 1
    _append_events(match, _unseat(match, seat))
    match.save(update_fields=["version", "event_seq", "status", "finished_at", "created_by"])
    return match


def _unseat(match: Match, seat: Seat, reason: str | None = None) -> list[dict]:
    """Frees a lobby seat and returns the events to append. A lobby left with no player
    (bots aside) is aborted; a leaving creator hands that role on."""
    player, number = seat.player, seat.seat
    seat.delete()
    left: dict[str, Any] = {"type": "player_left", "seat": number, "player": _player_ref(player)}
    if reason:
        left["reason"] = reason
    events = [left]
    players = list(match.seats.filter(player__bot_strategy="").select_related("player"))
    if not players:
        match.status = Match.Status.ABORTED
        match.finished_at = timezone.now()
        events.append({"type": "match_aborted", "reason": "every player left"})
    elif match.created_by_id == player.pk:
        # Only the creator may start a lobby: the next player clockwise takes that over.
        heir = min(players, key=lambda s: (s.seat - number) % match.max_players)
        match.created_by = heir.player
        events.append(
            {"type": "creator_changed", "seat": heir.seat, "player": _player_ref(heir.player)}
        )
    return events


def _unseat_short_of_chips(match: Match) -> None:
    """Before a start: a player who has spent their chips since joining can no longer
    cover the buy-in and loses the seat (`player_left`, reason `insufficient_chips`)
    rather than blocking the table; nobody else learns their balance. The server's bots
    are topped up again, as one bot account may sit at several tables."""
    if not match.buy_in:
        return
    from games.bots import fund_bot

    events: list[dict] = []
    for seat in match.seats.select_related("player").order_by("seat"):
        if seat.player.bot_strategy:
            fund_bot(bot=seat.player, amount=match.buy_in)
        elif wallet_balance(user=seat.player) < match.buy_in:
            events += _unseat(match, seat, reason="insufficient_chips")
    _append_events(match, events)


@transaction.atomic
def match_add_bot(*, match_id: int, user: User, strategy: str) -> Match:
    match = _lock(match_id)
    if match.created_by_id != user.pk:
        raise NotCreator("Only the match's creator can add bots.")
    if match.status != Match.Status.OPEN:
        raise MatchNotOpen("Bots can only be added before the match starts.")
    _check_wallet(user, match.buy_in)  # the bot may fill the table and start it
    _seat_bot(match, strategy)
    _bump_and_maybe_start(match)
    return match


@transaction.atomic
def match_start(*, match_id: int, user: User) -> Match:
    match = _lock(match_id)
    if match.created_by_id != user.pk:
        raise NotCreator("Only the match's creator can start it.")
    if match.status != Match.Status.OPEN:
        raise MatchNotOpen("This match has already started or ended.")
    _check_wallet(user, match.buy_in)
    # Whoever cannot cover the buy-in any more is unseated; should that leave one player,
    # the refusal below rolls the unseating back too (a later joiner's start redoes it).
    _unseat_short_of_chips(match)
    if match.seats.count() < 2:
        raise DomainError(
            "A match needs at least two players who can cover its buy-in.",
            code="not_enough_players",
            status=409,
        )
    match.version += 1
    _start(match)
    return match


def _start(match: Match) -> None:
    """Closes up the seats and rolls round 1. With first_opener `creator`, the named
    `opener_seat` opens if a player sits there, else the creator's seat (the creator may
    have changed since the lobby opened)."""
    seats = _seats(match)
    named_opener = None
    # Seats left by players who walked out are closed up: the engine numbers 0..n-1.
    for number, seat in enumerate(seats):
        if seat.seat == match.opener_seat:
            named_opener = number
        if seat.seat != number:
            seat.seat = number
            seat.save(update_fields=["seat"])
    # The creator is always seated (a leaving creator hands the role on); seat 0 otherwise.
    creator_seat = next((s.seat for s in seats if s.player_id == match.created_by_id), 0)
    match.opener_seat = named_opener  # in the numbering the match now plays in
    rules = engine.Rules.from_dict(match.rules)
    state, events = engine.new_match(
        rules, len(seats), SECURE_DICE, creator_seat=creator_seat, opener_seat=named_opener
    )
    match.status = Match.Status.ACTIVE
    match.started_at = timezone.now()
    try:
        stakes.take_buy_ins(match=match, seats=seats)
    except InsufficientChips as exc:
        # A wallet spent between the check above and now: the ledger's message would
        # name that player's balance to the caller.
        raise InsufficientChips(
            "A player's chips changed as the match started; try again."
        ) from exc
    _append_events(
        match,
        [
            {
                "type": "match_started",
                "seats": [{"seat": s.seat, "player": _player_ref(s.player)} for s in seats],
            }
        ],
    )
    _absorb(match, seats, state, [e for e in events if e["type"] != "match_started"])


# --- play ----------------------------------------------------------------------------


def action_submit(
    *, match_id: int, user: User, action: dict[str, Any], expected_version: int | None = None
) -> Match:
    with transaction.atomic():
        match = _lock(match_id)
        seats = _seats(match)
        seat = next((s for s in seats if s.player_id == user.pk), None)
        if seat is None:
            raise NotSeated("You have no seat in this match.")
        if seat.consecutive_timeouts:
            seat.consecutive_timeouts = 0
            seat.save(update_fields=["consecutive_timeouts"])
        return _act(match, seats, seat.seat, action, expected_version)


def _act(
    match: Match,
    seats: list[Seat],
    seat_number: int,
    action: dict[str, Any],
    expected_version: int | None,
    preface: list[dict] | None = None,
) -> Match:
    if match.status != Match.Status.ACTIVE:
        raise MatchNotActive(f"This match is {match.status}.")
    if expected_version is not None and expected_version != match.version:
        raise StaleVersion(
            f"The match is at version {match.version}, not {expected_version}; reload it."
        )
    state = engine.State.from_json(match.state)
    try:
        new_state, events = engine.apply(state, {**action, "seat": seat_number}, SECURE_DICE)
    except engine.EngineError as exc:
        raise rules_error(exc) from exc
    match.version += 1
    _absorb(match, seats, new_state, events, preface=preface)
    return match


def _absorb(
    match: Match,
    seats: list[Seat],
    state: "engine.State",
    events: list[dict],
    preface: list[dict] | None = None,
) -> None:
    """Moves chips, records rounds and finishes the match as the engine's events say,
    then saves the state, the events and fresh dice commitments."""
    by_number = {s.seat: s for s in seats}
    secret = match.secrets or {}
    public: list[dict] = list(preface or [])
    for event in events:
        kind = event["type"]
        if kind == "round_started":
            number = event["number"]
            live = [by_number[int(s)] for s in event.get("dice_counts", {})] or [
                s for s in seats if state.live[s.seat]
            ]
            salts = {str(s.seat): new_salt() for s in seats}
            moves = stakes.take_antes(match=match, round_number=number, seats=live)
            secret = {"round": number, "salts": salts, "commitments": {}, "chips": moves}
            public.append(event)
        elif kind in ("round_finished", "round_voided"):
            record = dict(event["round"])
            result = record.get("result")
            moves = list(secret.get("chips", []))
            if kind == "round_voided":
                moves += stakes.refund_voided_round(match=match, round_number=record["number"])
            elif result and result.get("winner_seat") is not None:
                moves += stakes.pay_round_pot(
                    match=match,
                    round_number=record["number"],
                    seat=by_number[result["winner_seat"]],
                )
            record["dice_commitments"] = secret.get("commitments", {})
            record["salts"] = {
                s: v for s, v in secret.get("salts", {}).items() if s in record["dice_commitments"]
            }
            if result is not None:
                result["chips"] = moves
            record["chips"] = moves
            RoundRecord.objects.create(match=match, number=record["number"], record=record)
            public.append({**event, "round": record})
        elif kind == "player_out":
            out = by_number[event["seat"]]
            # A forfeit (timeouts, a ban) is leaving the table, not losing at it.
            out.status = Seat.Status.LEFT if event.get("reason") == "forfeit" else Seat.Status.OUT
            out.save(update_fields=["status"])
            public.append(event)
        elif kind == "match_finished":
            public.append(event)
            _finish(match, seats, state, event)
        else:
            public.append(event)

    # A step inside a turn (accept, reroll, show_reroll) keeps the seat and the round: the
    # turn's deadline stands and the player is not told again that it is their turn.
    turn = engine.current_seat(state)
    new_turn = (
        turn != match.turn_seat
        or match.turn_deadline is None
        or (match.secrets or {}).get("round") != secret.get("round")
    )
    if state.round is not None and not state.finished:
        fresh = _commitments(state, secret.get("salts", {}))
        if fresh != secret.get("commitments"):
            secret["commitments"] = fresh
            public.append(
                {"type": "dice_committed", "round": state.round.number, "dice_commitments": fresh}
            )
    match.secrets = secret
    match.state = state.to_json()
    match.loaded_state = state  # the response view reuses it
    match.turn_seat = turn
    if turn is None:
        match.turn_deadline = None
    elif new_turn:
        match.turn_deadline = _deadline(match, by_number[turn])
    _append_events(match, public)
    match.save(update_fields=_PLAY_FIELDS)
    _after_change(match, seats, turn, new_turn=new_turn)


def _deadline(match: Match, seat: Seat):
    if not seat.player.is_active:  # banned: the timeout policy plays this seat at once
        return timezone.now()
    seconds = match.turn_seconds
    if seat.player.bot_strategy:
        # A server bot's move is a task; if it were lost the sweep plays it soon after this.
        seconds = min(seconds, settings.BOT_TURN_DEADLINE_SECONDS)
    return timezone.now() + timedelta(seconds=seconds)


def _after_change(match: Match, seats: list[Seat], turn: int | None, *, new_turn: bool) -> None:
    """Work for after the commit: the bot's move, the timeout task, notifications (the
    `your_turn` webhook only when a turn begins, not at each step inside it)."""
    from accounts.webhooks import notify_players
    from games import tasks

    if match.status == Match.Status.FINISHED:
        notify_players(
            user_ids=[s.player_id for s in seats if getattr(s, "has_webhook", True)],
            event="match_finished",
            payload={"match_id": match.pk, "winner_seats": match.winner_seats},
        )
        return
    if turn is None:
        return
    seat = next(s for s in seats if s.seat == turn)
    player = seat.player
    if player.bot_strategy:  # the server plays it (third-party bots play over the API)
        tasks.schedule_bot_turn(match_id=match.pk, version=match.version)
    elif new_turn and getattr(seat, "has_webhook", True):
        notify_players(
            user_ids=[player.pk],
            event="your_turn",
            payload={
                "match_id": match.pk,
                "version": match.version,
                "seat": turn,
                "turn_deadline": match.turn_deadline.isoformat(),
            },
        )
    tasks.schedule_turn_timeout(
        match_id=match.pk, version=match.version, deadline=match.turn_deadline
    )


def _commitments(state: "engine.State", salts: dict[str, str]) -> dict[str, str]:
    if state.rules.is_poker:
        box = engine.seat_dice(state, state.round.turn)["box"]
        salt = salts.setdefault("box", new_salt())
        return {"box": commitment(salt, box)}
    out = {}
    for seat in range(state.n_players):
        if state.live[seat]:
            held = engine.seat_dice(state, seat)
            out[str(seat)] = commitment(salts[str(seat)], held["cup"] + held["shown"])
    return out


def _finish(match: Match, seats: list[Seat], state: "engine.State", event: dict) -> None:
    match.status = Match.Status.FINISHED
    match.finished_at = timezone.now()
    match.winner_seats = list(event["winner_seats"])
    loser = state.loser if state.rules.is_poker and state.loser >= 0 else None
    stakes.settle_match(match=match, seats=seats, winner_seats=match.winner_seats, loser_seat=loser)
    places = {int(s): p for s, p in engine.placements(state).items()}
    players = {
        u.pk: u
        for u in User.objects.select_for_update()
        .filter(pk__in=[s.player_id for s in seats])
        .order_by("pk")
    }
    winners = {by.player_id for by in seats if by.seat in match.winner_seats}
    apply_match_result(
        players_by_place=[(players[s.player_id], places[s.seat]) for s in seats],
        winners=winners,
    )


# --- chat ----------------------------------------------------------------------------


@transaction.atomic
def message_post(*, match_id: int, user: User, text: str) -> ChatMessage:
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        raise MatchNotFound(f"No match {match_id}.")
    if not match.seats.filter(player=user).exists():
        raise NotSeated("Only seated players can talk at this table.")
    if user.is_muted():
        raise DomainError(
            f"You are muted in chat until {user.chat_muted_until.isoformat()}.",
            code="muted",
            status=403,
        )
    return ChatMessage.objects.create(match=match, author=user, text=text)


def _seat_choice(match: Match, seat: Seat, strategy: str) -> dict[str, Any]:
    """What a strategy does for `seat`, from that seat's view only."""
    state = engine.State.from_json(match.state)
    view = engine.view_for(state, seat.seat)
    legal = engine.legal_actions(state, seat.seat)
    if strategy == "challenge":
        return strategies.challenge_or_lowest_bid(legal, state.rules.ones_bids)
    return strategies.choose_action(strategy, view, legal, SECURE_DICE)


def bot_play(*, match_id: int, version: int) -> bool:
    """Plays the bot's turn if the match is still at `version` (a duplicate or late
    delivery of the task finds another version and does nothing)."""
    if not _still_at(match_id, version):
        return False
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.version != version or match.status != Match.Status.ACTIVE:
            return False
        seats = _seats(match)
        seat = next(s for s in seats if s.seat == match.turn_seat)
        if not seat.player.bot_strategy:
            return False
        action = _seat_choice(match, seat, seat.player.bot_strategy)
        _act(match, seats, seat.seat, action, version)
        return True


def _still_at(match_id: int, version: int) -> bool:
    """A lock-free look first: most scheduled tasks find the match moved on, and need not
    queue for the row lock behind the players to learn it (checked again under the lock)."""
    return Match.objects.filter(pk=match_id, version=version, status=Match.Status.ACTIVE).exists()


def turn_timeout(*, match_id: int, version: int | None = None) -> bool:
    """Applies the match's timeout policy if its turn is past its deadline (and, when
    given, the match is still at `version`). Returns whether anything happened.

    The deadline task (with `version`) waits for a lock held by a player's action: it
    then finds a new version and stops, or applies the timeout that is due. The sweep
    (no `version`) skips a locked match; it comes round again."""
    if version is not None and not _still_at(match_id, version):
        return False
    with transaction.atomic():
        match = (
            Match.objects.select_for_update(skip_locked=version is None).filter(pk=match_id).first()
        )
        if match is None or (version is not None and match.version != version):
            return False
        return _timeout_locked(match)


def _timeout_locked(match: Match) -> bool:
    now = timezone.now()
    if (
        match.status != Match.Status.ACTIVE
        or match.turn_deadline is None
        or match.turn_deadline > now
    ):
        return False
    seats = _seats(match)
    seat = next(s for s in seats if s.seat == match.turn_seat)
    if seat.player.bot_strategy:  # its task was lost: play its turn now
        _play_turn(match, seats, seat, seat.player.bot_strategy)
        return True
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
    _play_turn(match, seats, seat, strategy, preface=preface)
    return True


def _play_turn(
    match: Match, seats: list[Seat], seat: Seat, strategy: str, preface: list[dict] | None = None
) -> None:
    """Plays `seat`'s whole turn with `strategy` ("forfeit" leaves the match): every step
    while the turn stays with the seat in the same round (accept, reroll, then bid), so an
    absent player's turn is one timeout, not one per step."""
    round_number = engine.round_number(engine.State.from_json(match.state))
    for _ in range(_MAX_TURN_STEPS):
        if strategy == "forfeit":
            action: dict[str, Any] = {"type": "forfeit"}
        else:
            action = _seat_choice(match, seat, strategy)
        _act(match, seats, seat.seat, action, None, preface=preface)
        preface = None
        if (
            match.status != Match.Status.ACTIVE
            or match.turn_seat != seat.seat
            or engine.round_number(match.loaded_state) != round_number
        ):
            return
    raise RuntimeError(f"{strategy!r} kept seat {seat.seat}'s turn for {_MAX_TURN_STEPS} steps")


# A turn is at most accept, reroll, bid (poker) or show_reroll, bid (common pool).
_MAX_TURN_STEPS = 5


# How far a match whose timeout failed is pushed back, so it does not head the sweep's
# queue (ordered by deadline) and block every match behind it.
SWEEP_RETRY_SECONDS = 60


def sweep_due_turns(*, limit: int = 100) -> int:
    """Times out every turn past its deadline whose task was lost or too far off to
    schedule. `SKIP LOCKED`: several sweepers never wait on, or collide over, a match.
    Each match on its own: one that fails is logged and retried later."""
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
