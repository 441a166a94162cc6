"""Poker-dice Liar Dice (RULES 2): one box of five poker dice passed around."""

from __future__ import annotations

from typing import Any

from ..action_fields import (
    BidFields,
    action_header,
    bid_fields_error,
    check_playing,
    copy_action,
    copy_result,
    defer_last_round,
    illegal,
    indexes,
    not_your_turn,
    required,
    unknown_type,
)
from ..dice import DiceSource, roll
from ..errors import ErrorCode, IllegalAction
from ..limits import BOX_SIZE, MAX_HOLD
from ..seats import check_new_match, check_seat, placements
from .hands import (
    BID_HANDS,
    BID_INDEX,
    JUNK_KEY,
    RANKS,
    TOP_INDEX,
    bid_index,
    canonical_hand,
    describe_hand,
    dice_key,
    next_bid,
    parse_hand,
)
from .rules import PokerDiceRules
from .state import PokerDiceRound, PokerDiceState

Outcome = tuple[PokerDiceState, list[dict]]

DIRECTIONS = {"left": 1, "right": -1}
BID_FIELDS = BidFields(
    family="poker-dice",
    takes='hand (five dice: "9", "10", "J", "Q", "K", "A" or null for an unnamed die; '
    '["junk"] to open), and direction ("left" or "right") on player one\'s opening bid',
    required=("hand",),
    integers=(),
    foreign=frozenset(("quantity", "face", "show")),
    foreign_family="common-pool",
)
DIRECTION_NAMES = {1: "left", -1: "right"}
_BLANK_ROUND = PokerDiceRound(number=0, player_one=0, turn=0, phase="bid", box=())


def new_match(
    rules: PokerDiceRules,
    n_players: int,
    rng: DiceSource,
    *,
    creator_seat: int = 0,
    opener_seat: int | None = None,
) -> Outcome:
    """Start a match: `opener_seat` is player one of round 1 (drawn when None)."""
    check_new_match(n_players, creator_seat, opener_seat)
    log: list[int] = []
    if opener_seat is None:
        opener_seat = rng.randint(0, n_players - 1)
        log.append(opener_seat)
    state = PokerDiceState(
        rules=rules,
        n_players=n_players,
        creator_seat=creator_seat,
        lives=(rules.lives,) * n_players,
        live=(True,) * n_players,
        eliminations=(),
        round=None,
        last_round=None,
        rolls=tuple(log),
    )
    events: list[dict] = [
        {"type": "match_started", "n_players": n_players, "rules": rules.to_dict()}
    ]
    return _start_round(state, 1, opener_seat, rng, events), events


def _start_round(
    state: PokerDiceState,
    number: int,
    player_one: int,
    rng: DiceSource,
    events: list[dict],
    changes: dict[str, Any] | None = None,
) -> PokerDiceState:
    """Shake the box for round `number`; `changes` go into the new state too."""
    changes = {} if changes is None else changes
    lives = changes.get("lives", state.lives)
    log: list[int] = []
    box = tuple(v - 1 for v in roll(rng, BOX_SIZE, log))  # die faces 1..6 -> ranks 0..5 (9..A)
    rnd = _BLANK_ROUND.evolve(  # evolve: cheaper than the frozen __init__ (hot path)
        number=number, player_one=player_one, turn=player_one, box=box, rolls=(box,)
    )
    events.append(
        {
            "type": "round_started",
            "number": number,
            "opener_seat": player_one,
            "lives": {str(s): n for s, n in enumerate(lives)},
        }
    )
    changes["round"] = rnd
    changes["rolls"] = state.rolls + tuple(log)
    return state.evolve(**changes)


def legal_actions(state: PokerDiceState, seat: int | None) -> list[dict]:
    """What `seat` may do now (empty when it is not their turn or the match is over)."""
    r = state.round
    if r is None or seat != r.turn:
        return []
    if r.phase == "bid":
        first = r.bid is None
        lowest = 0 if first else bid_index(r.bid) + 1
        if lowest > TOP_INDEX:  # unreachable: accept is only offered when a higher bid exists
            return []
        return [
            {
                "type": "bid",
                "min_hand": list(BID_HANDS[lowest]),
                "needs_direction": first and state.n_players > 2,
            }
        ]
    if r.phase == "reroll":
        if seat == r.player_one:
            # Player one may not touch the dice again: the shelf stays as it is.
            return [{"type": "reroll", "max_hold": MAX_HOLD, "hold_required": list(r.shelf)}]
        return [{"type": "reroll", "max_hold": MAX_HOLD}]
    if bid_index(r.bid) != TOP_INDEX:
        return [{"type": "accept"}, {"type": "challenge"}]
    return [{"type": "challenge"}]


def apply(state: PokerDiceState, action: dict, rng: DiceSource) -> Outcome:
    """Apply one action (API body plus "seat"). Returns (new state, events)."""
    seat, kind = action_header(state, action)
    r = state.round
    if seat != r.turn:
        raise not_your_turn(r.turn)
    if kind == "bid":
        return _bid(state, r, seat, action)
    if kind == "accept":
        return _accept(state, r, seat)
    if kind == "reroll":
        return _reroll(state, r, seat, action, rng)
    if kind == "challenge":
        return _challenge(state, r, seat, rng)
    if kind in ("exact", "pass", "show_reroll"):
        raise illegal(f"'{kind}' is a common-pool action; this is a poker-dice game", "type")
    raise unknown_type(kind)


def _accept(state: PokerDiceState, r: PokerDiceRound, seat: int) -> Outcome:
    if r.phase != "respond":
        raise illegal("there is no bid to accept now")
    if bid_index(r.bid) == TOP_INDEX:
        raise illegal("nothing beats five aces: you can only challenge")
    record = {"seat": seat, "type": "accept"}
    new_round = r.evolve(phase="reroll", actions=(*r.actions, record))
    return state.evolve(round=new_round, version=state.version + 1), [
        {"type": "accept", "seat": seat}
    ]


def _direction(state: PokerDiceState, r: PokerDiceRound, raw: object, first: bool) -> int:
    """The direction of play: chosen by player one's bid (2 players: left by default)."""
    if not first:
        if raw is not None:
            raise illegal("only player one chooses the direction", "direction")
        return r.direction
    if raw is None:
        if state.n_players > 2:
            raise required("direction", 'choose the direction of play: "left" or "right"')
        return 1
    if raw not in DIRECTIONS:
        raise IllegalAction(
            ErrorCode.VALIDATION_ERROR, 'direction must be "left" or "right"', "direction"
        )
    return DIRECTIONS[raw]


def _bid(state: PokerDiceState, r: PokerDiceRound, seat: int, action: dict) -> Outcome:
    if "hand" not in action or not BID_FIELDS.foreign.isdisjoint(action):
        raise bid_fields_error(action, BID_FIELDS)
    if r.phase != "bid":
        raise illegal(
            "accept the box and reroll before you bid"
            if r.phase == "respond"
            else "reroll (choose the dice to hold) before you bid"
        )
    named = parse_hand(action.get("hand"))
    first = r.bid is None
    if not named and not first:
        raise IllegalAction(
            ErrorCode.INVALID_BID, "only player one may bid junk, as the opening bid", "hand"
        )
    index = BID_INDEX[named]  # parse_hand sorts the named dice high to low
    if not first and index <= bid_index(r.bid):
        nb = next_bid(r.bid_key)
        raise IllegalAction(
            ErrorCode.BID_NOT_HIGHER,
            f"after {describe_hand(r.bid)} the lowest bid is {describe_hand(nb)}",
            "hand",
        )
    direction = _direction(state, r, action.get("direction"), first)
    record = {"seat": seat, "type": "bid", "hand": list(BID_HANDS[index])}
    if first:
        record["direction"] = DIRECTION_NAMES[direction]
    new_round = r.evolve(
        bid=named,
        bidder=seat,
        direction=direction,
        phase="respond",
        turn=(seat + direction) % state.n_players,
        actions=(*r.actions, record),
    )
    return state.evolve(round=new_round, version=state.version + 1), [
        {"type": "bid", **copy_action(record)}
    ]


def _reroll(
    state: PokerDiceState, r: PokerDiceRound, seat: int, action: dict, rng: DiceSource
) -> Outcome:
    if r.phase != "reroll":
        raise illegal("accept the box before you reroll")
    hold = indexes(action.get("hold"), BOX_SIZE, "hold")
    if seat == r.player_one and sorted(hold) != sorted(r.shelf):
        shelf = ", ".join(str(i) for i in sorted(r.shelf)) or "none"
        raise IllegalAction(
            ErrorCode.ILLEGAL_ACTION,
            f"player one may not touch the dice: hold exactly the dice on the shelf ({shelf})",
            "hold",
        )
    log: list[int] = []
    fresh = iter(v - 1 for v in roll(rng, BOX_SIZE - len(hold), log))
    box = tuple(v if i in hold else next(fresh) for i, v in enumerate(r.box))
    record = {"seat": seat, "type": "reroll", "rerolled": BOX_SIZE - len(hold)}
    new_round = r.evolve(
        box=box,
        shelf=hold,
        phase="bid",
        rolls=(*r.rolls, box),
        actions=(*r.actions, record),
    )
    new_state = state.evolve(
        round=new_round, version=state.version + 1, rolls=state.rolls + tuple(log)
    )
    return new_state, [{"type": "reroll", **record}]


def _challenge(state: PokerDiceState, r: PokerDiceRound, seat: int, rng: DiceSource) -> Outcome:
    if r.phase != "respond":
        raise illegal("there is no bid to challenge now")
    record = {"seat": seat, "type": "challenge", "target_seat": r.bidder}
    events: list[dict] = [{"type": "challenge", **record}]
    held = dice_key(r.box) >= (r.bid_key or JUNK_KEY)
    loser, winner = (seat, r.bidder) if held else (r.bidder, seat)
    result = {
        "type": "challenge",
        "bid": {"hand": canonical_hand(r.bid)},
        "bidder_seat": r.bidder,
        "challenger_seat": seat,
        "target_seat": r.bidder,
        "actual_count": None,
        "actual_hand": canonical_hand(tuple(sorted(r.box, reverse=True))),
        "losses": {str(loser): 1},
        "gains": {},
        "winner_seat": winner,
    }
    actions = (*r.actions, record)
    # The event gets its own record (the server annotates it: chips, salts); the state's
    # is made when first read.
    copies = tuple([copy_action(a) for a in actions])
    events.append({"type": "round_finished", "round": round_record(r, copies, copy_result(result))})
    lives = list(state.lives)
    lives[loser] -= 1
    events.append({"type": "life_lost", "seat": loser, "count": 1, "lives_left": lives[loser]})
    changes = {"lives": tuple(lives), "version": state.version + 1}
    if lives[loser] == 0:
        state = defer_last_round(state.evolve(**changes), round_record, r, actions, result)
        return _end(state, loser, "lives", events)
    state = _start_round(state, r.number + 1, loser, rng, events, changes)
    return defer_last_round(state, round_record, r, actions, result), events


def round_record(r: PokerDiceRound, actions: tuple[dict, ...], result: dict | None) -> dict:
    """The API round record with the box revealed (finished or voided rounds only); it
    shares the (never changed) action records with the round."""
    return {
        "number": r.number,
        "opener_seat": r.player_one,
        "actions": list(actions),
        "dice": {"box": [RANKS[v] for v in r.box]},
        "shelf": list(r.shelf),
        "rolls": [[RANKS[v] for v in box] for box in r.rolls],
        "direction": DIRECTION_NAMES.get(r.direction),
        "result": result,
    }


def copy_round_record(record: dict) -> dict:
    """A copy of a round record that shares nothing with the original."""
    out = dict(record)
    out["actions"] = [copy_action(a) for a in record["actions"]]
    out["dice"] = {"box": list(record["dice"]["box"])}
    out["shelf"] = list(record["shelf"])
    out["rolls"] = [list(box) for box in record["rolls"]]
    out["result"] = copy_result(record["result"])
    return out


def _end(state: PokerDiceState, loser: int, reason: str, events: list[dict]) -> Outcome:
    winners = tuple(s for s in range(state.n_players) if s != loser)
    live = tuple(s != loser for s in range(state.n_players))
    state = state.evolve(
        round=None,
        live=live,
        eliminations=((loser,),),
        winners=winners,
        loser=loser,
        finished=True,
    )
    events.append({"type": "player_out", "seat": loser, "reason": reason})
    events.append(
        {
            "type": "match_finished",
            "winner_seats": list(winners),
            "loser_seat": loser,
            "elimination_order": [loser],
            "placements": placements(state.n_players, winners, state.eliminations),
        }
    )
    return state, events


def forfeit(state: PokerDiceState, seat: int, rng: DiceSource) -> Outcome:
    """The seat leaves (timeouts, a ban) and so buys the jug: the match ends. Not an
    action: only the server calls it. `rng` is unused (no new round is rolled)."""
    check_seat(state.n_players, seat)
    check_playing(state, seat)
    r = state.round
    rec = round_record(r, r.actions, None)
    rec["voided_by"] = seat
    events: list[dict] = [
        {"type": "round_voided", "number": r.number, "seat": seat, "round": copy_round_record(rec)}
    ]
    state = state.evolve(last_round=rec, version=state.version + 1)
    return _end(state, seat, "forfeit", events)
