"""Common-pool Liar's Dice (RULES 1): round flow, legal actions, resolution."""

from __future__ import annotations

from ._common import (
    DiceSource,
    copy_action,
    copy_result,
    illegal,
    indexes,
    json_copy,
    live_from,
    next_live,
    opt_int,
    placements,
    req_int,
    roll,
)
from .bids import bid_key, describe_bid, min_quantities, min_quantity_by_face
from .errors import ErrorCode, IllegalAction
from .rules import Rules
from .state import PoolRound, State

FACE_NAMES = {1: "ones", 2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes"}
_BLANK_ROUND = PoolRound(number=0, opener=0, turn=0, dice=(), shown=(), rolls=())

# --- starting ------------------------------------------------------------------------


def new_pool_match(
    rules: Rules, n_players: int, rng: DiceSource, creator_seat: int, opener_seat: int | None
) -> tuple[State, list[dict]]:
    log: list[int] = []
    roll_off: tuple[dict, ...] = ()
    if rules.first_opener == "creator":
        opener = creator_seat if opener_seat is None else opener_seat
    elif rules.first_opener == "random":
        opener = rng.randint(0, n_players - 1)
        log.append(opener)
    else:
        opener, roll_off = _roll_off(rng, tuple(range(n_players)), log)
    state = State(
        rules=rules,
        n_players=n_players,
        creator_seat=creator_seat,
        dice_counts=(rules.dice_per_player,) * n_players,
        lives=(),
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
    state: State,
    number: int,
    opener: int,
    rng: DiceSource,
    log: list[int],
    events: list[dict],
    roll_off: tuple[dict, ...] = (),
    **changes,
) -> State:
    """Roll every live player's dice and open round `number`; `changes` go into the new state."""
    counts = changes.get("dice_counts", state.dice_counts)
    live = changes.get("live", state.live)
    # One roll call for the whole table, then split by seat (seat order).
    values = roll(rng, sum(counts), log)
    dice = []
    pos = 0
    for c in counts:
        dice.append(values[pos : pos + c])
        pos += c
    dice = tuple(dice)
    rnd = _BLANK_ROUND.evolve(  # evolve: cheaper than the frozen __init__ (hot path)
        number=number,
        opener=opener,
        turn=opener,
        dice=dice,
        shown=((),) * state.n_players,
        rolls=tuple([(d,) if d else () for d in dice]),
        roll_off=roll_off,
    )
    event = {
        "type": "round_started",
        "number": number,
        "opener_seat": opener,
        "dice_counts": {str(s): c for s, c in enumerate(counts) if live[s]},
    }
    if roll_off:
        event["roll_off"] = json_copy(roll_off)
    events.append(event)
    return state.evolve(round=rnd, rolls=state.rolls + tuple(log), **changes)


# --- legal actions -------------------------------------------------------------------


def challenge_targets(r: PoolRound, seat: int) -> list[int]:
    """Who `seat` may challenge: the last bidder (unless it is themself) and passers since."""
    targets = [] if r.bidder == seat or r.bidder < 0 else [r.bidder]
    targets.extend(p for p in r.passes_since_bid if p != seat)
    return targets


def pool_legal_actions(state: State, seat: int) -> list[dict]:
    r = state.round
    rules = state.rules
    mq = min_quantity_by_face(rules.ones_bids, r.bid_key, sum(state.dice_counts))
    if r.must_raise or r.bid is None:
        return [{"type": "bid", "min_quantity_by_face": mq}]
    out: list[dict] = []
    cup = len(r.dice[seat])
    if mq:
        entry: dict = {"type": "bid", "min_quantity_by_face": mq}
        if rules.show_and_reroll == "before_raise" and cup >= 2:
            entry["can_show"] = True
            entry["max_show"] = cup - 1
        out.append(entry)
        if rules.show_and_reroll == "after_reroll" and cup >= 2:
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


# --- applying ------------------------------------------------------------------------


def pool_apply(state: State, seat: int, kind: str, action: dict, rng: DiceSource):
    r = state.round
    if seat != r.turn:
        raise IllegalAction(ErrorCode.NOT_YOUR_TURN, f"it is seat {r.turn}'s turn, not yours")
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
    raise IllegalAction(ErrorCode.VALIDATION_ERROR, f"unknown action type {kind!r}", "type")


def _bid(state: State, r: PoolRound, seat: int, action: dict, rng: DiceSource):
    rules = state.rules
    quantity = req_int(action, "quantity")
    face = req_int(action, "face")
    if not 1 <= face <= 6:
        raise IllegalAction(ErrorCode.VALIDATION_ERROR, "face must be from 1 to 6", "face")
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
    key = bid_key(rules.ones_bids, quantity, face)
    if key <= r.bid_key:
        raise IllegalAction(ErrorCode.BID_NOT_HIGHER, _not_higher(r, face, rules, total))
    show = action.get("show")
    cup = r.dice[seat]
    shown_values: tuple[int, ...] = ()
    if show is not None and show != []:
        if rules.show_and_reroll != "before_raise":
            raise illegal(
                "showing dice with a bid is not allowed here"
                + (" (use show_reroll first)" if rules.show_and_reroll == "after_reroll" else ""),
                "show",
            )
        if r.bid is None:
            raise illegal("you may not show and reroll on an opening bid", "show")
        idx = indexes(show, len(cup), "show")
        if len(idx) >= len(cup):
            raise illegal("keep at least one die in the cup to reroll", "show")
        shown_values = tuple(cup[i] for i in idx)
    record = {"seat": seat, "type": "bid", "quantity": quantity, "face": face}
    log: list[int] = []
    dice, shown, rolls = r.dice, r.shown, r.rolls
    if shown_values:
        record["shown"] = list(shown_values)
        keep = len(cup) - len(shown_values)
        new_cup = roll(rng, keep, log)  # the 1987 order: raise, then reroll
        dice = _set(dice, seat, new_cup)
        shown = _set(shown, seat, shown[seat] + shown_values)
        rolls = _set(rolls, seat, rolls[seat] + (new_cup,))
    new_round = r.evolve(
        bid=(quantity, face),
        bid_key=key,
        bidder=seat,
        passes_since_bid=(),
        must_raise=False,
        turn=next_live(state.live, seat),
        dice=dice,
        shown=shown,
        rolls=rolls,
        actions=(*r.actions, record),
    )
    new_state = state.evolve(
        round=new_round,
        version=state.version + 1,
        rolls=state.rolls + tuple(log) if log else state.rolls,
    )
    return new_state, [{"type": "bid", **copy_action(record)}]


def _not_higher(r: PoolRound, face: int, rules: Rules, total: int) -> str:
    q, f = r.bid
    what = describe_bid(q, f)
    for ff, mq in min_quantities(rules.ones_bids, r.bid_key, total):
        if ff == face:
            return f"after {what} the lowest bid on {FACE_NAMES[face]} is {describe_bid(mq, face)}"
    return f"after {what} no bid on {FACE_NAMES[face]} fits the {total} dice in play"


def _set(t: tuple, i: int, value) -> tuple:
    return (*t[:i], value, *t[i + 1 :])


def _show_reroll(state: State, r: PoolRound, seat: int, action: dict, rng: DiceSource):
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
    if not min_quantities(rules.ones_bids, r.bid_key, sum(state.dice_counts)):
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
        dice=_set(r.dice, seat, new_cup),
        shown=_set(r.shown, seat, r.shown[seat] + shown_values),
        rolls=_set(r.rolls, seat, r.rolls[seat] + (new_cup,)),
        must_raise=True,
        actions=(*r.actions, record),
    )
    new_state = state.evolve(
        round=new_round, version=state.version + 1, rolls=state.rolls + tuple(log)
    )
    return new_state, [{"type": "show_reroll", **copy_action(record)}]


def _pass(state: State, r: PoolRound, seat: int):
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


def _challenge(state: State, r: PoolRound, seat: int, action: dict, rng: DiceSource):
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
            target = r.bidder
        elif len(targets) == 1:
            target = targets[0]
        else:
            raise IllegalAction(
                ErrorCode.VALIDATION_ERROR,
                f"choose target_seat: one of {', '.join(map(str, targets))}",
                "target_seat",
            )
    if target not in targets:
        allowed = ", ".join(map(str, targets))
        raise illegal(f"you may challenge seat {allowed} only", "target_seat")
    record = {"seat": seat, "type": "challenge", "target_seat": target}
    events = [{"type": "challenge", **record}]
    q, f = r.bid
    rules = state.rules
    if target != r.bidder:
        # RULES 1.7: a challenged passer loses one die if two of their dice match.
        dice = r.dice[target] + r.shown[target]
        most = max(dice.count(v) for v in set(dice))
        loser, winner = (target, seat) if most >= 2 else (seat, target)
        result = _result("pass_challenge", r, seat, target, most, {loser: 1}, {}, winner)
        return _finish(state, r, record, result, seat, events, rng)
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


def _exact(state: State, r: PoolRound, seat: int, rng: DiceSource):
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


def _count(state: State, r: PoolRound, face: int) -> int:
    wild = state.rules.ones_wild and face != 1
    n = 0
    for cup, shown in zip(r.dice, r.shown, strict=True):
        for group in (cup, shown):
            n += group.count(face)
            if wild:
                n += group.count(1)
    return n


def _result(kind, r, challenger, target, actual, losses, gains, winner) -> dict:
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


def round_record(state: State, r: PoolRound, actions: tuple[dict, ...], result: dict | None):
    """The API round record with every die revealed (finished or voided rounds only)."""
    live_seats = [s for s in range(state.n_players) if r.dice[s] or r.shown[s]]
    record = {
        "number": r.number,
        "opener_seat": r.opener,
        "actions": [copy_action(a) for a in actions],
        "dice": {str(s): list(r.dice[s] + r.shown[s]) for s in live_seats},
        "shown": {str(s): list(r.shown[s]) for s in live_seats if r.shown[s]},
        # Only seats that showed and rerolled have more than their first roll.
        "rolls": {str(s): [list(x) for x in r.rolls[s]] for s in live_seats if len(r.rolls[s]) > 1},
        "result": copy_result(result),
    }
    if r.roll_off:
        record["roll_off"] = json_copy(r.roll_off)
    return record


def _finish(state: State, r: PoolRound, record: dict, result: dict, challenger: int, events, rng):
    losses: dict[int, int] = result["losses"]
    gains: dict[int, int] = result["gains"]
    result["losses"] = {str(s): n for s, n in losses.items()}
    result["gains"] = {str(s): n for s, n in gains.items()}
    actions = (*r.actions, record)
    rec = round_record(state, r, actions, result)
    # The event gets its own copy: the server annotates it (chips, salts).
    events.append({"type": "round_finished", "round": round_record(state, r, actions, result)})
    counts = list(state.dice_counts)
    for s, n in losses.items():
        counts[s] -= n
        events.append({"type": "dice_lost", "seat": s, "count": n, "dice_left": counts[s]})
    for s, n in gains.items():
        counts[s] += n
        events.append({"type": "dice_gained", "seat": s, "count": n, "dice_left": counts[s]})
    out = tuple(s for s in sorted(losses) if counts[s] == 0)
    live = state.live
    eliminations = state.eliminations
    if out:
        live = tuple(ok and counts[s] > 0 for s, ok in enumerate(live))
        eliminations = (*eliminations, out)
        for s in out:
            events.append({"type": "player_out", "seat": s, "reason": "dice"})
    changes = {
        "dice_counts": tuple(counts),
        "live": live,
        "eliminations": eliminations,
        "last_round": rec,
        "version": state.version + 1,
    }
    alive = [s for s, ok in enumerate(live) if ok]
    if len(alive) <= 1:
        return _end(state.evolve(**changes), tuple(alive), events)
    opener = _next_opener(state, r, result, losses, challenger, counts, live)
    return _start_round(state, r.number + 1, opener, rng, [], events, **changes), events


def _end(state: State, winners: tuple[int, ...], events: list[dict]):
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


def _next_opener(state, r, result, losses, challenger, counts, live) -> int:
    rule = state.rules.next_opener
    n = state.n_players
    if rule == "challenge_winner":
        chosen = result["winner_seat"]
    elif rule == "challenger":
        chosen = challenger
    elif not losses:
        chosen = r.bidder  # a correct exact call: nobody lost; see the decisions in README
    else:
        # The loser; among several, fewest dice left (a loser now out has the fewest: then
        # live_from passes the opening on clockwise), ties to the first clockwise from the
        # challenger (distance 0 = the challenger). RULES 1.4.
        chosen = min(losses, key=lambda s: (counts[s], (s - challenger) % n))
    return live_from(live, chosen)


def pool_forfeit(state: State, seat: int, rng: DiceSource):
    """The seat leaves at once; the round is voided and a new one starts (2+ players left)."""
    r = state.round
    counts = list(state.dice_counts)
    counts[seat] = 0
    live = tuple(ok and s != seat for s, ok in enumerate(state.live))
    rec = round_record(state, r, r.actions, None)
    rec["voided_by"] = seat
    events: list[dict] = [
        {"type": "round_voided", "number": r.number, "seat": seat, "round": json_copy(rec)},
        {"type": "player_out", "seat": seat, "reason": "forfeit"},
    ]
    state = state.evolve(
        dice_counts=tuple(counts),
        live=live,
        eliminations=(*state.eliminations, (seat,)),
        last_round=rec,
        version=state.version + 1,
    )
    alive = tuple(s for s, ok in enumerate(live) if ok)
    if len(alive) <= 1:
        return _end(state, alive, events)
    opener = live_from(live, r.opener)
    return _start_round(state, r.number + 1, opener, rng, [], events), events


def pool_view_round(state: State, seat: int | None) -> dict:
    r = state.round
    view = {
        "number": r.number,
        "opener_seat": r.opener,
        "turn_seat": r.turn,
        "current_bid": None
        if r.bid is None
        else {"quantity": r.bid[0], "face": r.bid[1], "seat": r.bidder},
        "actions": [copy_action(a) for a in r.actions],
        "shown_dice": {str(s): list(d) for s, d in enumerate(r.shown) if d},
        "dice_counts": {str(s): c for s, c in enumerate(state.dice_counts) if state.live[s]},
        "passed": list(r.passed),
        "must_raise": r.must_raise,
    }
    if r.roll_off:
        view["roll_off"] = json_copy(r.roll_off)
    if seat is not None and 0 <= seat < state.n_players and state.live[seat]:
        view["your_dice"] = list(r.dice[seat])
    return view


def min_bids(state: State) -> dict[str, int]:
    """min_quantity_by_face for the current round (helper for bots)."""
    r = state.round
    return min_quantity_by_face(state.rules.ones_bids, r.bid_key, sum(state.dice_counts))
