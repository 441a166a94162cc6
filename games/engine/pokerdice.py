"""Poker-dice Liar Dice (RULES 2): one box of five poker dice passed around."""

from __future__ import annotations

from ._common import (
    DiceSource,
    copy_action,
    copy_result,
    illegal,
    indexes,
    json_copy,
    placements,
    roll,
)
from .errors import ErrorCode, IllegalAction
from .poker import (
    JUNK_KEY,
    RANKS,
    TOP_KEY,
    canonical_hand,
    describe_hand,
    dice_key,
    hand_key,
    next_bid,
    parse_hand,
)
from .rules import Rules
from .state import PokerRound, State

DIRECTIONS = {"left": 1, "right": -1}
DIRECTION_NAMES = {1: "left", -1: "right"}


def new_poker_match(
    rules: Rules, n_players: int, rng: DiceSource, creator_seat: int, opener_seat: int | None
) -> tuple[State, list[dict]]:
    log: list[int] = []
    if opener_seat is None:
        opener_seat = rng.randint(0, n_players - 1)
        log.append(opener_seat)
    state = State(
        rules=rules,
        n_players=n_players,
        creator_seat=creator_seat,
        dice_counts=(),
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


def _start_round(state: State, number: int, player_one: int, rng, events) -> State:
    log: list[int] = []
    box = tuple(v - 1 for v in roll(rng, 5, log))  # die faces 1..6 -> ranks 0..5 (9..A)
    rnd = PokerRound(
        number=number, player_one=player_one, turn=player_one, phase="bid", box=box, rolls=(box,)
    )
    events.append(
        {
            "type": "round_started",
            "number": number,
            "opener_seat": player_one,
            "lives": {str(s): n for s, n in enumerate(state.lives)},
        }
    )
    return state.evolve(round=rnd, rolls=state.rolls + tuple(log))


def _next(state: State, r: PokerRound, seat: int) -> int:
    return (seat + r.direction) % state.n_players


def poker_legal_actions(state: State, seat: int) -> list[dict]:
    r = state.round
    if r.phase == "bid":
        first = r.bid is None
        nb = next_bid(r.bid_key)
        if nb is None:  # unreachable: accept is only offered when a higher bid exists
            return []
        return [
            {
                "type": "bid",
                "min_hand": canonical_hand(nb),
                "needs_direction": first and state.n_players > 2,
            }
        ]
    if r.phase == "reroll":
        if seat == r.player_one:
            # Player one may not touch the dice again: the shelf stays as it is.
            return [{"type": "reroll", "max_hold": 5, "hold_required": list(r.shelf)}]
        return [{"type": "reroll", "max_hold": 5}]
    out = []
    if r.bid_key != TOP_KEY:
        out.append({"type": "accept"})
    out.append({"type": "challenge"})
    return out


def poker_apply(state: State, seat: int, kind: str, action: dict, rng: DiceSource):
    r = state.round
    if seat != r.turn:
        raise IllegalAction(ErrorCode.NOT_YOUR_TURN, f"it is seat {r.turn}'s turn, not yours")
    if kind == "bid":
        return _bid(state, r, seat, action)
    if kind == "accept":
        if r.phase != "respond":
            raise illegal("there is no bid to accept now")
        if r.bid_key == TOP_KEY:
            raise illegal("nothing beats five aces: you can only challenge")
        record = {"seat": seat, "type": "accept"}
        new_round = r.evolve(phase="reroll", actions=(*r.actions, record))
        return state.evolve(round=new_round, version=state.version + 1), [
            {"type": "accept", **record}
        ]
    if kind == "reroll":
        return _reroll(state, r, seat, action, rng)
    if kind == "challenge":
        return _challenge(state, r, seat, rng)
    if kind in ("exact", "pass", "show_reroll"):
        raise illegal(f"'{kind}' is a common-pool action; this is a poker-dice game", "type")
    raise IllegalAction(ErrorCode.VALIDATION_ERROR, f"unknown action type {kind!r}", "type")


def _bid(state: State, r: PokerRound, seat: int, action: dict):
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
    key = hand_key(named)
    if not first and key <= r.bid_key:
        nb = next_bid(r.bid_key)
        raise IllegalAction(
            ErrorCode.BID_NOT_HIGHER,
            f"after {describe_hand(r.bid)} the lowest bid is {describe_hand(nb)}",
            "hand",
        )
    raw_dir = action.get("direction")
    direction = r.direction
    if first:
        if raw_dir is None:
            if state.n_players > 2:
                raise IllegalAction(
                    ErrorCode.VALIDATION_ERROR,
                    'choose the direction of play: "left" or "right"',
                    "direction",
                )
            direction = 1
        elif raw_dir not in DIRECTIONS:
            raise IllegalAction(
                ErrorCode.VALIDATION_ERROR, 'direction must be "left" or "right"', "direction"
            )
        else:
            direction = DIRECTIONS[raw_dir]
    elif raw_dir is not None:
        raise illegal("only player one chooses the direction", "direction")
    record = {"seat": seat, "type": "bid", "hand": canonical_hand(named)}
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


def _reroll(state: State, r: PokerRound, seat: int, action: dict, rng: DiceSource):
    if r.phase != "reroll":
        raise illegal("accept the box before you reroll")
    hold = indexes(action.get("hold"), 5, "hold")
    if seat == r.player_one and sorted(hold) != sorted(r.shelf):
        shelf = ", ".join(str(i) for i in sorted(r.shelf)) or "none"
        raise IllegalAction(
            ErrorCode.ILLEGAL_ACTION,
            f"player one may not touch the dice: hold exactly the dice on the shelf ({shelf})",
            "hold",
        )
    log: list[int] = []
    fresh = iter(v - 1 for v in roll(rng, 5 - len(hold), log))
    box = tuple(v if i in hold else next(fresh) for i, v in enumerate(r.box))
    record = {"seat": seat, "type": "reroll", "rerolled": 5 - len(hold)}
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
    return new_state, [{"type": "reroll", **copy_action(record)}]


def _challenge(state: State, r: PokerRound, seat: int, rng: DiceSource):
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
    rec = poker_round_record(r, actions, result)
    # The event gets its own copy: the server annotates it (chips, salts).
    events.append({"type": "round_finished", "round": poker_round_record(r, actions, result)})
    lives = list(state.lives)
    lives[loser] -= 1
    events.append({"type": "life_lost", "seat": loser, "count": 1, "lives_left": lives[loser]})
    state = state.evolve(lives=tuple(lives), last_round=rec, version=state.version + 1)
    if lives[loser] == 0:
        return _end(state, loser, "lives", events)
    return _start_round(state, r.number + 1, loser, rng, events), events


def poker_round_record(r: PokerRound, actions, result: dict | None) -> dict:
    return {
        "number": r.number,
        "opener_seat": r.player_one,
        "actions": [copy_action(a) for a in actions],
        "dice": {"box": [RANKS[v] for v in r.box]},
        "shelf": list(r.shelf),
        "rolls": [[RANKS[v] for v in box] for box in r.rolls],
        "direction": DIRECTION_NAMES.get(r.direction),
        "result": copy_result(result),
    }


def _end(state: State, loser: int, reason: str, events: list[dict]):
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


def poker_forfeit(state: State, seat: int):
    r = state.round
    rec = poker_round_record(r, r.actions, None)
    rec["voided_by"] = seat
    events: list[dict] = [
        {"type": "round_voided", "number": r.number, "seat": seat, "round": json_copy(rec)}
    ]
    state = state.evolve(last_round=rec, version=state.version + 1)
    return _end(state, seat, "forfeit", events)


def poker_view_round(state: State, seat: int | None) -> dict:
    r = state.round
    view = {
        "number": r.number,
        "opener_seat": r.player_one,
        "turn_seat": r.turn,
        "phase": r.phase,
        "direction": DIRECTION_NAMES.get(r.direction),
        "current_bid": None
        if r.bid is None
        else {"hand": canonical_hand(r.bid), "seat": r.bidder, "text": describe_hand(r.bid)},
        "actions": [copy_action(a) for a in r.actions],
        "lives": {str(s): n for s, n in enumerate(state.lives)},
    }
    # Only the player holding the open box sees it: player one after rolling (until the
    # bid passes the box on), an accepting player from accepting until their bid.
    if seat is not None and seat == r.turn and r.phase in ("bid", "reroll"):
        view["box"] = [RANKS[v] for v in r.box]
        view["shelf"] = list(r.shelf)
    return view
