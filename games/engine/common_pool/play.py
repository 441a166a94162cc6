"""Common-pool Liar's Dice (RULES 1): round flow, legal actions, resolution, forfeit."""

from __future__ import annotations

from itertools import chain
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
    opt_int,
    unknown_type,
)
from ..dice import DiceSource, roll
from ..errors import ErrorCode, IllegalAction
from ..limits import MAX_FACE, MAX_PLAYERS, MIN_FACE
from ..seats import check_new_match, check_seat, live_from, next_live, placements
from .bids import bid_key, describe_bid, min_quantities, min_quantity_by_face
from .rules import CommonPoolRules
from .state import CommonPoolRound, CommonPoolState

Outcome = tuple[CommonPoolState, list[dict]]

FACE_NAMES = {1: "ones", 2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes"}
_BLANK_ROUND = CommonPoolRound(number=0, opener=0, turn=0, dice=(), shown=(), rolls=())
_SEAT_KEYS = tuple(str(s) for s in range(MAX_PLAYERS))  # a seat as a JSON object key
BID_FIELDS = BidFields(
    family="common-pool",
    takes=f"quantity and face (integers, face from {MIN_FACE} to {MAX_FACE}), and show to "
    "show dice with it where the rules allow",
    required=("quantity", "face"),
    integers=("quantity", "face"),
    foreign=frozenset(("hand", "direction")),
    foreign_family="poker-dice",
)

# --- starting ------------------------------------------------------------------------


def new_match(
    rules: CommonPoolRules,
    n_players: int,
    rng: DiceSource,
    *,
    creator_seat: int = 0,
    opener_seat: int | None = None,
) -> Outcome:
    """Choose the first opener (RULES 1.4) and roll round 1. Returns (state, events).

    `opener_seat` is the seat the creator names (first_opener `creator`); it is ignored
    for `random` and `roll_off`.
    """
    check_new_match(n_players, creator_seat, opener_seat)
    log: list[int] = []
    roll_off: tuple[dict, ...] = ()
    if rules.first_opener == "creator":
        opener = creator_seat if opener_seat is None else opener_seat
    elif rules.first_opener == "random":
        opener = rng.randint(0, n_players - 1)
        log.append(opener)
    else:
        opener, roll_off = _roll_off(rng, tuple(range(n_players)), log)
    state = CommonPoolState(
        rules=rules,
        n_players=n_players,
        creator_seat=creator_seat,
        dice_counts=(rules.dice_per_player,) * n_players,
        live=(True,) * n_players,
        eliminations=(),
        round=None,
        last_round=None,
    )
    events: list[dict] = [
        {"type": "match_started", "n_players": n_players, "rules": rules.to_dict()}
    ]
    state = _start_round(state, 1, opener, rng, log, events, roll_off)
    return state, events


def _roll_off(rng: DiceSource, seats: tuple[int, ...], log: list[int]) -> tuple[int, tuple]:
    """Everyone rolls one die; the tied highest roll again until one is highest (RULES 1.4)."""
    rounds = []
    while True:
        values = roll(rng, len(seats), log)
        rounds.append({str(s): v for s, v in zip(seats, values, strict=True)})
        top = max(values)
        seats = tuple(s for s, v in zip(seats, values, strict=True) if v == top)
        if len(seats) == 1:
            return seats[0], tuple(rounds)


def _start_round(
    state: CommonPoolState,
    number: int,
    opener: int,
    rng: DiceSource,
    log: list[int],
    events: list[dict],
    roll_off: tuple[dict, ...] = (),
    *,
    palifico: bool = False,
    changes: dict[str, Any] | None = None,
) -> CommonPoolState:
    """Roll every live player's dice and open round `number` (a palifico round when
    `palifico`); `changes` go into the new state (one copy of it for the whole turn)."""
    changes = {} if changes is None else changes
    counts = changes.get("dice_counts", state.dice_counts)
    live = changes.get("live", state.live)
    # One roll call for the whole table, then split by seat (seat order).
    values = roll(rng, sum(counts), log)
    dice = []
    rolls = []
    pos = 0
    for c in counts:
        if c:
            cup = values[pos : pos + c]
            dice.append(cup)
            rolls.append((cup,))
            pos += c
        else:
            dice.append(())
            rolls.append(())
    rnd = _BLANK_ROUND.evolve(  # evolve: cheaper than the frozen __init__ (hot path)
        number=number,
        opener=opener,
        turn=opener,
        dice=tuple(dice),
        shown=((),) * state.n_players,
        rolls=tuple(rolls),
        roll_off=roll_off,
        palifico=palifico,
    )
    event = {
        "type": "round_started",
        "number": number,
        "opener_seat": opener,
        "dice_counts": {_SEAT_KEYS[s]: c for s, c in enumerate(counts) if live[s]},
    }
    if roll_off:
        event["roll_off"] = [dict(r) for r in roll_off]
    if palifico:
        event["palifico"] = True
    events.append(event)
    changes["round"] = rnd
    changes["rolls"] = state.rolls + tuple(log)
    return state.evolve(**changes)


# --- legal actions -------------------------------------------------------------------


def challenge_targets(r: CommonPoolRound, seat: int) -> list[int]:
    """Who `seat` may challenge: the last bidder (unless it is themself) and passers since."""
    targets = [] if r.bidder == seat or r.bidder < 0 else [r.bidder]
    if r.passes_since_bid:
        targets.extend(p for p in r.passes_since_bid if p != seat)
    return targets


def legal_actions(state: CommonPoolState, seat: int | None) -> list[dict]:
    """What `seat` may do now (empty when it is not their turn or the match is over)."""
    r = state.round
    if r is None or seat != r.turn:
        return []
    rules = state.rules
    total = sum(state.dice_counts)
    mq = bid_minimums(rules, r, total)
    # No bid may name more dice than are in play, whatever the face.
    if r.must_raise or r.bid is None:
        return [{"type": "bid", "min_quantity_by_face": mq, "max_quantity": total}]
    out: list[dict] = []
    cup = len(r.dice[seat])
    if mq:
        show = rules.show_and_reroll
        if show == "before_raise" and cup >= 2:
            out.append(
                {
                    "type": "bid",
                    "min_quantity_by_face": mq,
                    "max_quantity": total,
                    "can_show": True,
                    "max_show": cup - 1,
                }
            )
        else:
            out.append({"type": "bid", "min_quantity_by_face": mq, "max_quantity": total})
            if show == "after_reroll" and cup >= 2:
                out.append({"type": "show_reroll", "max_show": cup - 1})
    targets = challenge_targets(r, seat)
    if targets:
        out.append({"type": "challenge", "target_seats": targets})
    if r.bidder != seat:
        if rules.exact_call:
            out.append({"type": "exact"})
        if rules.pass_call and seat not in r.passed:
            out.append({"type": "pass"})
    return out


def bid_minimums(rules: CommonPoolRules, r: CommonPoolRound, total: int) -> dict[str, int]:
    """The API's `min_quantity_by_face` now: the order's lowest raises, less the faces
    Perudo closes (aces on an opening bid outside palifico; in palifico every face but
    the opening bid's)."""
    mq = min_quantity_by_face(rules.ones_bids, r.bid_key, total)
    if r.palifico:
        if r.bid is not None:
            face = str(r.bid[1])
            return {face: mq[face]} if face in mq else {}
    elif r.bid is None and rules.ones_bids == "perudo":
        del mq["1"]
    return mq


# --- applying ------------------------------------------------------------------------


def apply(state: CommonPoolState, action: dict, rng: DiceSource) -> Outcome:
    """Apply one action (API body plus "seat"). Returns (new state, events).

    Raises IllegalAction for anything malformed or not allowed; never changes `state`.
    """
    seat, kind = action_header(state, action)
    r = state.round
    if seat != r.turn:
        raise not_your_turn(r.turn)
    if kind == "bid":
        return _bid(state, r, seat, action, rng)
    if r.must_raise:
        raise illegal("you have shown and rerolled: now you must raise the bid")
    if kind == "challenge":
        return _challenge(state, r, seat, action, rng)
    if kind == "exact":
        return _exact(state, r, seat, rng)
    if kind == "pass":
        return _pass(state, r, seat)
    if kind == "show_reroll":
        return _show_reroll(state, r, seat, action, rng)
    if kind in ("accept", "reroll"):
        raise illegal(f"'{kind}' is a poker-dice action; this is a common-pool game", "type")
    raise unknown_type(kind)


def _bid(
    state: CommonPoolState, r: CommonPoolRound, seat: int, action: dict, rng: DiceSource
) -> Outcome:
    rules = state.rules
    quantity = action.get("quantity")
    face = action.get("face")
    if (
        type(quantity) is not int
        or type(face) is not int
        or not BID_FIELDS.foreign.isdisjoint(action)
    ):
        raise bid_fields_error(action, BID_FIELDS)
    if not MIN_FACE <= face <= MAX_FACE:
        raise IllegalAction(
            ErrorCode.VALIDATION_ERROR, f"face must be from {MIN_FACE} to {MAX_FACE}", "face"
        )
    if quantity < 1:
        raise IllegalAction(ErrorCode.VALIDATION_ERROR, "quantity must be at least 1", "quantity")
    if face == 1 and rules.ones_bids == "forbidden":
        raise IllegalAction(ErrorCode.INVALID_BID, "bids on ones are not allowed here", "face")
    total = sum(state.dice_counts)
    if quantity > total:
        raise IllegalAction(
            ErrorCode.INVALID_BID,
            f"there are only {total} dice in play; {describe_bid(quantity, face)} cannot be bid",
            "quantity",
        )
    if r.palifico:
        if r.bid is not None and face != r.bid[1]:
            raise IllegalAction(
                ErrorCode.INVALID_BID,
                f"in a palifico round every bid stays on {FACE_NAMES[r.bid[1]]}: "
                "only the quantity rises",
                "face",
            )
    elif face == 1 and r.bid is None and rules.ones_bids == "perudo":
        raise IllegalAction(
            ErrorCode.INVALID_BID, "no opening bid on aces outside a palifico round", "face"
        )
    key = bid_key(rules.ones_bids, quantity, face)
    if key <= r.bid_key:
        raise IllegalAction(ErrorCode.BID_NOT_HIGHER, _not_higher(r, face, rules, total))
    record = {"seat": seat, "type": "bid", "quantity": quantity, "face": face}
    show = action.get("show")
    if show is None or show == []:  # the usual bid: only the round's bid and turn change
        new_round = r.evolve(
            bid=(quantity, face),
            bid_key=key,
            bidder=seat,
            passes_since_bid=(),
            must_raise=False,
            turn=next_live(state.live, seat),
            actions=(*r.actions, record),
        )
        event = {"type": "bid", "seat": seat, "quantity": quantity, "face": face}
        return state.evolve(round=new_round, version=state.version + 1), [event]
    log: list[int] = []
    shown_values, cup_changes = _show_with_bid(state, r, seat, show, rng, log)
    record["shown"] = list(shown_values)
    new_round = r.evolve(
        bid=(quantity, face),
        bid_key=key,
        bidder=seat,
        passes_since_bid=(),
        must_raise=False,
        turn=next_live(state.live, seat),
        actions=(*r.actions, record),
        **cup_changes,
    )
    new_state = state.evolve(
        round=new_round, version=state.version + 1, rolls=state.rolls + tuple(log)
    )
    return new_state, [{"type": "bid", **copy_action(record)}]


def _show_with_bid(
    state: CommonPoolState,
    r: CommonPoolRound,
    seat: int,
    show: object,
    rng: DiceSource,
    log: list[int],
) -> tuple[tuple[int, ...], dict[str, tuple]]:
    """A raise that shows dice and rerolls the rest of the cup (`before_raise`): the
    dice shown and the round's changed cups."""
    rule = state.rules.show_and_reroll
    if rule != "before_raise":
        raise illegal(
            "showing dice with a bid is not allowed here"
            + (" (use show_reroll first)" if rule == "after_reroll" else ""),
            "show",
        )
    if r.bid is None:
        raise illegal("you may not show and reroll on an opening bid", "show")
    cup = r.dice[seat]
    idx = indexes(show, len(cup), "show")
    if len(idx) >= len(cup):
        raise illegal("keep at least one die in the cup to reroll", "show")
    shown_values = tuple(cup[i] for i in idx)
    new_cup = roll(rng, len(cup) - len(shown_values), log)  # the 1987 order: raise, then reroll
    return shown_values, _reroll_cup(r, seat, shown_values, new_cup)


def _reroll_cup(
    r: CommonPoolRound, seat: int, shown_values: tuple[int, ...], new_cup: tuple[int, ...]
) -> dict[str, tuple]:
    """The round's cups after `seat` showed `shown_values` and rolled `new_cup`."""
    return {
        "dice": _set(r.dice, seat, new_cup),
        "shown": _set(r.shown, seat, r.shown[seat] + shown_values),
        "rolls": _set(r.rolls, seat, (*r.rolls[seat], new_cup)),
    }


def _not_higher(r: CommonPoolRound, face: int, rules: CommonPoolRules, total: int) -> str:
    q, f = r.bid
    what = describe_bid(q, f)
    for ff, mq in min_quantities(rules.ones_bids, r.bid_key, total):
        if ff == face:
            return f"after {what} the lowest bid on {FACE_NAMES[face]} is {describe_bid(mq, face)}"
    return f"after {what} no bid on {FACE_NAMES[face]} fits the {total} dice in play"


def _set(t: tuple, i: int, value: object) -> tuple:
    return (*t[:i], value, *t[i + 1 :])


def _show_reroll(
    state: CommonPoolState, r: CommonPoolRound, seat: int, action: dict, rng: DiceSource
) -> Outcome:
    rules = state.rules
    if rules.show_and_reroll != "after_reroll":
        raise illegal("show_reroll is not part of this ruleset", "type")
    if r.bid is None:
        raise illegal("you may not show and reroll on an opening bid")
    cup = r.dice[seat]
    idx = indexes(action.get("show"), len(cup), "show")
    if not idx:
        raise IllegalAction(ErrorCode.VALIDATION_ERROR, "show at least one die", "show")
    if len(idx) >= len(cup):
        raise illegal("keep at least one die in the cup to reroll", "show")
    if not bid_minimums(rules, r, sum(state.dice_counts)):
        raise illegal("no raise is possible, so you may not show and reroll")
    shown_values = tuple(cup[i] for i in idx)
    log: list[int] = []
    new_cup = roll(rng, len(cup) - len(idx), log)
    record = {
        "seat": seat,
        "type": "show_reroll",
        "shown": list(shown_values),
        "rerolled": len(new_cup),
    }
    new_round = r.evolve(
        must_raise=True, actions=(*r.actions, record), **_reroll_cup(r, seat, shown_values, new_cup)
    )
    new_state = state.evolve(
        round=new_round, version=state.version + 1, rolls=state.rolls + tuple(log)
    )
    return new_state, [{"type": "show_reroll", **copy_action(record)}]


def _pass(state: CommonPoolState, r: CommonPoolRound, seat: int) -> Outcome:
    if not state.rules.pass_call:
        raise illegal("passing is not part of this ruleset", "type")
    if r.bid is None:
        raise illegal("the opener may not pass: make an opening bid")
    if r.bidder == seat:
        raise illegal("you may not pass on your own bid")
    if seat in r.passed:
        raise illegal("you have already passed this round")
    record = {"seat": seat, "type": "pass"}
    new_round = r.evolve(
        passed=(*r.passed, seat),
        passes_since_bid=(*r.passes_since_bid, seat),
        turn=next_live(state.live, seat),
        actions=(*r.actions, record),
    )
    return state.evolve(round=new_round, version=state.version + 1), [{"type": "pass", **record}]


def _challenge_target(r: CommonPoolRound, seat: int, action: dict) -> int:
    """The seat `seat` challenges: `target_seat`, else the bidder or the only passer."""
    if r.bid is None:
        raise illegal("there is no bid to challenge yet")
    targets = challenge_targets(r, seat)
    if not targets:
        raise illegal(
            "there is nobody to challenge: the standing bid is yours and nobody has passed"
        )
    target = opt_int(action, "target_seat")
    if target is None:
        if r.bidder != seat:
            return r.bidder
        if len(targets) == 1:
            return targets[0]
        raise IllegalAction(
            ErrorCode.VALIDATION_ERROR,
            f"choose target_seat: one of {', '.join(map(str, targets))}",
            "target_seat",
        )
    if target not in targets:
        allowed = ", ".join(map(str, targets))
        raise illegal(f"you may challenge seat {allowed} only", "target_seat")
    return target


def _challenge(
    state: CommonPoolState, r: CommonPoolRound, seat: int, action: dict, rng: DiceSource
) -> Outcome:
    target = _challenge_target(r, seat, action)
    record = {"seat": seat, "type": "challenge", "target_seat": target}
    events = [{"type": "challenge", "seat": seat, "target_seat": target}]
    if target != r.bidder:
        # RULES 1.7: a challenged passer loses one die if two of their dice match.
        dice = r.dice[target] + r.shown[target]
        most = max(dice.count(v) for v in set(dice))
        loser, winner = (target, seat) if most >= 2 else (seat, target)
        result = _result("pass_challenge", r, seat, target, most, {loser: 1}, {}, winner)
        return _finish(state, r, record, result, seat, events, rng)
    q, f = r.bid
    rules = state.rules
    actual = _count(state, r, f)
    counts = state.dice_counts
    losses: dict[int, int] = {}
    if actual != q:
        loser = seat if actual > q else r.bidder
        amount = abs(q - actual) if rules.loss == "difference" else 1
        losses[loser] = min(amount, counts[loser])
    elif rules.exact_outcome == "challenger_loses_one":
        losses[seat] = 1
    else:
        for s, ok in enumerate(state.live):
            if not ok or s == r.bidder:
                continue
            if rules.exact_spares_last_die and counts[s] == 1 and s != seat:
                continue  # sheet 000: not directly part of the challenge, keeps the last die
            losses[s] = 1
    winner = r.bidder if actual >= q else seat
    result = _result("challenge", r, seat, target, actual, losses, {}, winner)
    return _finish(state, r, record, result, seat, events, rng)


def _exact(state: CommonPoolState, r: CommonPoolRound, seat: int, rng: DiceSource) -> Outcome:
    rules = state.rules
    if not rules.exact_call:
        raise illegal("calling exact is not part of this ruleset", "type")
    if r.bid is None:
        raise illegal("there is no bid to call exact on yet")
    if r.bidder == seat:
        raise illegal("you may not call exact on your own bid")
    q, f = r.bid
    actual = _count(state, r, f)
    record = {"seat": seat, "type": "exact"}
    if actual == q:
        gains = {seat: 1} if state.dice_counts[seat] < rules.dice_per_player else {}
        result = _result("exact", r, seat, r.bidder, actual, {}, gains, seat)
    else:
        result = _result("exact", r, seat, r.bidder, actual, {seat: 1}, {}, r.bidder)
    return _finish(state, r, record, result, seat, [{"type": "exact", **record}], rng)


def _count(state: CommonPoolState, r: CommonPoolRound, face: int) -> int:
    table = (*chain.from_iterable(r.dice), *chain.from_iterable(r.shown))
    if state.rules.ones_wild and face != 1 and not r.palifico:
        return table.count(face) + table.count(1)
    return table.count(face)


def _result(
    kind: str,
    r: CommonPoolRound,
    challenger: int,
    target: int,
    actual: int,
    losses: dict[int, int],
    gains: dict[int, int],
    winner: int,
) -> dict:
    q, f = r.bid
    return {
        "type": kind,
        "bid": {"quantity": q, "face": f},
        "bidder_seat": r.bidder,
        "challenger_seat": challenger,
        "target_seat": target,
        "actual_count": actual,
        "losses": losses,  # int keys until _finish turns them into "<seat>"
        "gains": gains,
        "winner_seat": winner,
    }


def round_record(
    n_players: int, r: CommonPoolRound, actions: tuple[dict, ...], result: dict | None
) -> dict:
    """The API round record with every die revealed (finished or voided rounds only).

    It shares the (never changed) action records with the round; `copy_round_record`
    makes the copy that leaves the engine in an event.
    """
    dice, shown, rolls = {}, {}, {}
    for key, cup, up, seat_rolls in zip(
        _SEAT_KEYS[:n_players], r.dice, r.shown, r.rolls, strict=True
    ):
        if up:
            dice[key] = [*cup, *up]
            shown[key] = list(up)
        elif cup:
            dice[key] = list(cup)
        else:
            continue
        # Only seats that showed and rerolled have more than their first roll.
        if len(seat_rolls) > 1:
            rolls[key] = [list(x) for x in seat_rolls]
    record = {
        "number": r.number,
        "opener_seat": r.opener,
        "actions": list(actions),
        "dice": dice,
        "shown": shown,
        "rolls": rolls,
        "result": result,
    }
    if r.roll_off:
        record["roll_off"] = [dict(x) for x in r.roll_off]
    if r.palifico:
        record["palifico"] = True
    return record


def copy_round_record(record: dict) -> dict:
    """A copy of a round record that shares nothing with the original."""
    out = dict(record)
    out["actions"] = [copy_action(a) for a in record["actions"]]
    out["dice"] = {s: list(d) for s, d in record["dice"].items()}
    out["shown"] = {s: list(d) for s, d in record["shown"].items()}
    out["rolls"] = {s: [list(x) for x in seat] for s, seat in record["rolls"].items()}
    out["result"] = copy_result(record["result"])
    if "roll_off" in record:
        out["roll_off"] = [dict(x) for x in record["roll_off"]]
    return out


def _finish(
    state: CommonPoolState,
    r: CommonPoolRound,
    record: dict,
    result: dict,
    challenger: int,
    events: list[dict],
    rng: DiceSource,
) -> Outcome:
    losses: dict[int, int] = result["losses"]
    gains: dict[int, int] = result["gains"]
    result["losses"] = {_SEAT_KEYS[s]: n for s, n in losses.items()}
    result["gains"] = {_SEAT_KEYS[s]: n for s, n in gains.items()} if gains else {}
    actions = (*r.actions, record)
    # The event gets its own record (the server annotates it: chips, salts); the state's
    # is made when first read.
    copies = tuple([copy_action(a) for a in actions])
    event_record = round_record(state.n_players, r, copies, copy_result(result))
    events.append({"type": "round_finished", "round": event_record})
    record_parts = (state.n_players, r, actions, result)
    counts = list(state.dice_counts)
    for s, n in losses.items():
        counts[s] -= n
        events.append({"type": "dice_lost", "seat": s, "count": n, "dice_left": counts[s]})
    for s, n in gains.items():
        counts[s] += n
        events.append({"type": "dice_gained", "seat": s, "count": n, "dice_left": counts[s]})
    changes = {"dice_counts": tuple(counts), "version": state.version + 1}
    live = state.live
    out = [s for s in losses if counts[s] == 0]
    if out:
        out.sort()
        live = tuple(ok and counts[s] > 0 for s, ok in enumerate(live))
        changes["live"] = live
        changes["eliminations"] = (*state.eliminations, tuple(out))
        for s in out:
            events.append({"type": "player_out", "seat": s, "reason": "dice"})
        alive = [s for s, ok in enumerate(live) if ok]
        if len(alive) <= 1:
            state = defer_last_round(state.evolve(**changes), round_record, *record_parts)
            return _end(state, tuple(alive), events)
    palifico = False
    if state.rules.palifico:
        # Perudo: a player who first drops to one die makes the next round palifico.
        first = [s for s in losses if counts[s] == 1 and s not in state.palifico_seats]
        if first:
            palifico = True
            changes["palifico_seats"] = (*state.palifico_seats, *sorted(first))
    opener = _next_opener(state, r, result, losses, challenger, counts, live)
    state = _start_round(
        state, r.number + 1, opener, rng, [], events, palifico=palifico, changes=changes
    )
    return defer_last_round(state, round_record, *record_parts), events


def _end(state: CommonPoolState, winners: tuple[int, ...], events: list[dict]) -> Outcome:
    state = state.evolve(round=None, winners=winners, finished=True)
    events.append(
        {
            "type": "match_finished",
            "winner_seats": list(winners),
            "elimination_order": [s for g in state.eliminations for s in g],
            "placements": placements(state.n_players, winners, state.eliminations),
        }
    )
    return state, events


def _next_opener(
    state: CommonPoolState,
    r: CommonPoolRound,
    result: dict,
    losses: dict[int, int],
    challenger: int,
    counts: list[int],
    live: tuple[bool, ...],
) -> int:
    rule = state.rules.next_opener
    n = state.n_players
    if rule == "challenge_winner":
        chosen = result["winner_seat"]
    elif rule == "challenger":
        chosen = challenger
    elif not losses:
        chosen = challenger  # a correct exact call: nobody lost; the caller opens (RULES 1.4)
    else:
        # RULES 1.4, sheet 000: "If more than one loser, the one with the least number of
        # Player's Dice opens". Among the losers still in play, fewest dice, ties to the
        # first clockwise from the bidder; when every loser is out, the next live seat
        # clockwise from the last of them.
        clockwise = sorted(losses, key=lambda s: (s - r.bidder) % n)
        playing = [s for s in clockwise if live[s]]
        if playing:
            return min(playing, key=counts.__getitem__)  # min keeps the first of a tie
        chosen = clockwise[-1]
    return live_from(live, chosen)


def forfeit(state: CommonPoolState, seat: int, rng: DiceSource) -> Outcome:
    """The seat leaves at once (timeouts, a ban); the round is voided and a new one starts
    when two or more players are left. Not an action: only the server calls it."""
    check_seat(state.n_players, seat)
    check_playing(state, seat)
    r = state.round
    counts = list(state.dice_counts)
    counts[seat] = 0
    live = tuple(ok and s != seat for s, ok in enumerate(state.live))
    rec = round_record(state.n_players, r, r.actions, None)
    rec["voided_by"] = seat
    events: list[dict] = [
        {"type": "round_voided", "number": r.number, "seat": seat, "round": copy_round_record(rec)},
        {"type": "player_out", "seat": seat, "reason": "forfeit"},
    ]
    changes = {
        "dice_counts": tuple(counts),
        "live": live,
        "eliminations": (*state.eliminations, (seat,)),
        "last_round": rec,
        "version": state.version + 1,
    }
    alive = tuple(s for s, ok in enumerate(live) if ok)
    if len(alive) <= 1:
        return _end(state.evolve(**changes), alive, events)
    opener = live_from(live, r.opener)
    # A voided palifico round is played again as a palifico round.
    state = _start_round(
        state, r.number + 1, opener, rng, [], events, palifico=r.palifico, changes=changes
    )
    return state, events
