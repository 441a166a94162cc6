"""The lobby: open a match, join, leave, seat a bot, start. A full table starts itself.
Engine calls here: `match_create` (engine.rules_from_preset, rules.names_opener),
`_start` (engine.rules_from_dict, engine.new_match)."""

import secrets
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from core.errors import InvalidInput
from games import engine, fairness, stakes
from games.errors import (
    AlreadySeated,
    BotNotStaked,
    MatchFull,
    MatchNotOpen,
    NoSeatForCreator,
    NotCreator,
    NotEnoughPlayers,
    NotSeated,
    PlayerUnavailable,
    rules_error,
)
from games.events import MatchStarted
from games.models import Match, Seat
from games.services.bot_players import server_bot
from games.services.locks import visible_match_lock
from games.services.play import apply_engine_events, seats_for_play
from games.services.publish import publish, seat_notices
from games.services.table import LOBBY_FIELDS, MatchChange, player_ref
from ledger.errors import HouseBankrollInsufficient, InsufficientChips
from ledger.selectors import house_balance, wallet_balance


def check_wallet(user: User, amount: int) -> None:
    """Refuses `user`, the caller, who cannot cover `amount` (their own balance is theirs
    to see; another player's never is). The house stakes the server's bots: one it would
    not stake at `amount` is refused (`stakes.house_stake_check`)."""
    if user.bot_strategy:
        stakes.house_stake_check(strategy=user.bot_strategy, amount=amount)
        return
    if not amount:
        return
    balance = wallet_balance(user=user)
    if balance < amount:
        raise InsufficientChips(f"You have {balance} chips; the buy-in is {amount}.")


def _check_opener(rules: "engine.Rules", opener_seat: int | None, max_players: int) -> None:
    if opener_seat is None:
        return
    if not rules.names_opener:
        raise InvalidInput(
            {"opener_seat": ["A named opener needs the option first_opener: creator."]}
        )
    if not 0 <= opener_seat < max_players:
        raise InvalidInput(
            {"opener_seat": [f"The opener must be a seat from 0 to {max_players - 1}."]}
        )


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
    rated: bool = True,
    bots: list[str] | None = None,
    on_timeout: str = Match.TimeoutPolicy.AUTO,
    max_timeouts: int = 3,
    opener_seat: int | None = None,
) -> MatchChange:
    """Opens a lobby with `user` in seat 0. `opener_seat` (first_opener `creator` only)
    names the seat that opens round 1; should nobody sit there when the match starts
    (it starts with fewer than `max_players`), the creator's seat opens instead."""
    try:
        rules = engine.rules_from_preset(ruleset, options or {})
    except engine.EngineError as exc:
        raise rules_error(exc) from exc
    _check_opener(rules, opener_seat, max_players)
    if bots and len(bots) >= max_players:
        raise NoSeatForCreator("A match needs a seat for its creator besides the bots.")
    check_wallet(user, buy_in)
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
        rated=rated,
        invite_code=secrets.token_urlsafe(9) if private else "",
        on_timeout=on_timeout,
        max_timeouts=max_timeouts,
        opener_seat=opener_seat,
    )
    Seat.objects.create(match=match, seat=0, player=user, played_as_bot=user.is_bot)
    publish(
        match=match,
        events=[
            {
                "type": "match_created",
                "ruleset": ruleset,
                "rules": match.rules,
                "max_players": max_players,
                "buy_in": buy_in,
                "ante": ante,
            },
            {"type": "player_joined", "seat": 0, "player": player_ref(user)},
        ],
    )
    for strategy in bots or []:
        _seat_bot(match, strategy)
    return _bump_and_maybe_start(match)


def match_open_full(*, players: list[User], refusal: str, **settings: Any) -> Match:
    """Opens a table for `players` who all sit at it at once (a challenge's, a quick-play
    pairing's, a rematch's): the first creates it with `settings`, the others join in
    order, and it starts itself once full. A server bot the house would not stake refuses
    it with that reason's own error; a wallet that cannot cover the buy-in refuses
    it all with `refusal`, naming nobody: the caller is one of the players, and another
    player's balance is not theirs to see. A banned player (since they agreed) refuses it
    too (`PlayerUnavailable`)."""
    if not all(player.is_active for player in players):
        raise PlayerUnavailable("A player at this table can no longer play; it did not open.")
    house_staked = [player for player in players if player.bot_strategy]
    for owed, bot in enumerate(house_staked):  # the house covers all its bots at once
        stakes.house_stake_check(
            strategy=bot.bot_strategy,
            amount=settings.get("buy_in", 0),
            owed=owed * settings.get("buy_in", 0),
        )
    creator, *others = players
    try:
        change = match_create(user=creator, max_players=len(players), **settings)
        for player in others:
            change = match_join(
                match_id=change.match.pk, user=player, invite_code=change.match.invite_code
            )
    except InsufficientChips as exc:
        raise InsufficientChips(refusal) from exc
    if change.match.status != Match.Status.ACTIVE:  # a wallet emptied since its check
        raise InsufficientChips(refusal)
    return change.match


@transaction.atomic
def match_join(*, match_id: int, user: User, invite_code: str | None = None) -> MatchChange:
    match = visible_match_lock(match_id, user, invite_code=invite_code)
    if match.status != Match.Status.OPEN:
        # A table starts once every seat is taken: say so rather than only "not open".
        if match.status == Match.Status.ACTIVE and match.seats.count() >= match.max_players:
            raise MatchFull(f"All {match.max_players} seats are taken.")
        raise MatchNotOpen("This match is not open for joining.")
    check_wallet(user, match.buy_in)
    _seat_player(match, user)
    return _bump_and_maybe_start(match)


@transaction.atomic
def match_leave(*, match_id: int, user: User) -> MatchChange:
    match = visible_match_lock(match_id, user)
    if match.status != Match.Status.OPEN:
        raise MatchNotOpen("You can only leave a match before it starts.")
    seat = match.seats.filter(player=user).select_related("player").first()
    if seat is None:
        raise NotSeated("You have no seat in this match.")
    match.version += 1
    publish(match=match, events=_unseat(match, seat))
    match.save(update_fields=LOBBY_FIELDS)
    return MatchChange(match=match)


@transaction.atomic
def match_add_bot(*, match_id: int, user: User, strategy: str) -> MatchChange:
    match = visible_match_lock(match_id, user)
    if match.created_by_id != user.pk:
        raise NotCreator("Only the match's creator can add bots.")
    if match.status != Match.Status.OPEN:
        raise MatchNotOpen("Bots can only be added before the match starts.")
    check_wallet(user, match.buy_in)  # the bot may fill the table and start it
    _seat_bot(match, strategy)
    return _bump_and_maybe_start(match)


@transaction.atomic
def match_start(*, match_id: int, user: User) -> MatchChange:
    match = visible_match_lock(match_id, user)
    if match.created_by_id != user.pk:
        raise NotCreator("Only the match's creator can start it.")
    if match.status != Match.Status.OPEN:
        raise MatchNotOpen("This match has already started or ended.")
    check_wallet(user, match.buy_in)
    # Whoever cannot cover the buy-in any more is unseated; should that leave one player,
    # the refusal below rolls the unseating back too (a later joiner's start redoes it).
    unseated = _unseat_short_of_chips(match)
    if match.seats.count() < 2:
        if HouseBankrollInsufficient.code in unseated:
            # Not the players' chips but the house's: say so (the refusal rolls the bot's
            # leaving back, as it does a person's).
            raise HouseBankrollInsufficient(
                f"The house's bankroll no longer covers its bot's buy-in of {match.buy_in}"
                " chips; a moderator funds it."
            )
        raise NotEnoughPlayers("A match needs at least two players who can cover its buy-in.")
    match.version += 1
    return _start(match)


# --- seats ---------------------------------------------------------------------------


def _free_seat_number(match: Match) -> int:
    taken = set(match.seats.values_list("seat", flat=True))
    return next(n for n in range(match.max_players) if n not in taken)


def _seat_player(match: Match, user: User) -> Seat:
    if match.seats.filter(player=user).exists():
        raise AlreadySeated("You already have a seat in this match.")
    if match.seats.count() >= match.max_players:
        raise MatchFull(f"All {match.max_players} seats are taken.")
    seat = Seat.objects.create(
        match=match, seat=_free_seat_number(match), player=user, played_as_bot=user.is_bot
    )
    publish(
        match=match,
        events=[{"type": "player_joined", "seat": seat.seat, "player": player_ref(user)}],
    )
    return seat


def _seat_bot(match: Match, strategy: str) -> Seat:
    """Seats a server bot the house stakes at this table's buy-in, with the buy-ins of
    the bots seated already (refused otherwise: `stakes.house_stake_check`)."""
    if match.buy_in:
        bots = match.seats.exclude(player__bot_strategy="").count()
        stakes.house_stake_check(strategy=strategy, amount=match.buy_in, owed=bots * match.buy_in)
    # A second bot of a strategy at one table is another account of that strategy.
    return _seat_player(match, server_bot(strategy, free_at=match))


def _bump_and_maybe_start(match: Match) -> MatchChange:
    """Starts a full table. The caller (creator or joiner) has shown it can cover the
    buy-in; anyone who no longer can is unseated, and the table waits for a new player."""
    match.version += 1
    if match.seats.count() >= match.max_players:
        _unseat_short_of_chips(match)
    if match.status == Match.Status.OPEN and match.seats.count() >= match.max_players:
        return _start(match)
    match.save(update_fields=LOBBY_FIELDS)
    return MatchChange(match=match)


def _unseat(match: Match, seat: Seat, reason: str | None = None) -> list[dict]:
    """Frees a lobby seat and returns the events to append. A lobby left with no player
    (bots aside) is aborted; a leaving creator hands that role on."""
    player, number = seat.player, seat.seat
    seat.delete()
    left: dict[str, Any] = {"type": "player_left", "seat": number, "player": player_ref(player)}
    if reason:
        left["reason"] = reason
    events = [left]
    players = list(match.seats.filter(player__bot_strategy="").select_related("player"))
    if not players:
        match.status = Match.Status.ABORTED
        match.finished_at = timezone.now()
        match.seats.filter(status=Seat.Status.PLAYING).update(status=Seat.Status.ABORTED)
        events.append({"type": "match_aborted", "reason": "every player left"})
    elif match.created_by_id == player.pk:
        # Only the creator may start a lobby: the next player clockwise takes that over.
        heir = min(players, key=lambda s: (s.seat - number) % match.max_players)
        match.created_by = heir.player
        events.append(
            {"type": "creator_changed", "seat": heir.seat, "player": player_ref(heir.player)}
        )
    return events


def _unseat_short_of_chips(match: Match) -> set[str]:
    """Before a start: a player who has spent their chips since joining can no longer
    cover the buy-in and loses the seat (`player_left`, reason `insufficient_chips`)
    rather than blocking the table; nobody else learns their balance. The house stakes
    the server's bots from its bankroll: a bot it can no longer cover (the bankroll spent
    at other tables since it sat down) leaves the same way, reason
    `house_bankroll_insufficient`, and a bot the house never stakes (seated before that
    rule) with reason `bot_not_staked`. Returns the reasons of those unseated."""
    if not match.buy_in:
        return set()
    events: list[dict] = []
    seats = list(match.seats.select_related("player").order_by("seat"))
    # Read only where the house stakes someone: a table of people needs no bankroll.
    bankroll = house_balance() if any(s.player.bot_strategy for s in seats) else 0
    for seat in seats:
        if not seat.player.bot_strategy:
            if wallet_balance(user=seat.player) < match.buy_in:
                events += _unseat(match, seat, reason="insufficient_chips")
        elif not stakes.plays_for_chips(seat.player.bot_strategy):
            events += _unseat(match, seat, reason=BotNotStaked.code)
        elif bankroll < match.buy_in:
            events += _unseat(match, seat, reason=HouseBankrollInsufficient.code)
        else:
            bankroll -= match.buy_in
    publish(match=match, events=events)
    return {event["reason"] for event in events if event["type"] == "player_left"}


# --- the start -----------------------------------------------------------------------


def _start(match: Match) -> MatchChange:
    """Closes up the seats and rolls round 1. With first_opener `creator`, the named
    `opener_seat` opens if a player sits there, else the creator's seat (the creator may
    have changed since the lobby opened)."""
    seats = seats_for_play(match)
    named_opener = None
    # Seats left by players who walked out are closed up: the engine numbers 0..n-1.
    for number, seat in enumerate(seats):
        if seat.seat == match.opener_seat:
            named_opener = number
        changed = [
            f
            for f, value in (("seat", number), ("played_as_bot", seat.player.is_bot))
            if getattr(seat, f) != value
        ]
        if changed:  # a player may have declared themselves a bot (or not) since joining
            seat.seat, seat.played_as_bot = number, seat.player.is_bot
            seat.save(update_fields=changed)
    # The creator is always seated (a leaving creator hands the role on); seat 0 otherwise.
    creator_seat = next((s.seat for s in seats if s.player_id == match.created_by_id), 0)
    match.opener_seat = named_opener  # in the numbering the match now plays in
    rules = engine.rules_from_dict(match.rules)
    state, events = engine.new_match(
        rules,
        len(seats),
        fairness.SECURE_DICE,
        creator_seat=creator_seat,
        opener_seat=named_opener,
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
    publish(
        match=match,
        events=[
            {
                "type": "match_started",
                "seats": [{"seat": s.seat, "player": player_ref(s.player)} for s in seats],
            }
        ],
        notices=seat_notices(seats, lambda s: MatchStarted(match_id=match.pk, seat=s.seat)),
    )
    return apply_engine_events(
        match, seats, state, [e for e in events if e["type"] != "match_started"]
    )
