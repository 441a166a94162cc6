"""Random playouts over random option combinations (OpenSpiel's random_sim_test idea)."""

from __future__ import annotations

import json
import random
from dataclasses import fields, replace
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    IllegalAction,
    Rules,
    State,
    apply,
    forfeit,
    legal_actions,
    new_match,
    replay,
    state_from_json,
    view_for,
)
from games.engine.bots.random_play import random_action
from games.engine.common_pool import CommonPoolRules
from games.engine.common_pool.rules import CHOICES, COMMON_OPTIONS
from games.engine.poker_dice import PokerDiceRules

from .helpers import Dice, act, bid, start

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_ACTIONS = 5000


@st.composite
def pool_rules(draw) -> Rules:
    opts = {name: draw(st.sampled_from(choices)) for name, choices in CHOICES.items()}
    opts["ones_wild"] = draw(st.booleans()) if opts["ones_bids"] != "face" else False
    opts["exact_spares_last_die"] = draw(st.booleans())
    opts["exact_call"] = draw(st.booleans())
    opts["pass_call"] = draw(st.booleans())
    opts["palifico"] = draw(st.booleans())
    opts["dice_per_player"] = draw(st.sampled_from([1, 2, 3, 5, 5, 10]))
    assert set(opts) == set(COMMON_OPTIONS)
    return CommonPoolRules(**opts)


@st.composite
def poker_rules(draw) -> Rules:
    return PokerDiceRules(lives=draw(st.integers(1, 4)))


players = st.sampled_from([2, 2, 3, 4, 5, 8])
seeds = st.integers(0, 2**32 - 1)


# --- fuzzing: random, mostly wrong actions --------------------------------------------


def fuzz_action(rng: random.Random, state: State) -> dict:
    seat = rng.choice([state.round.turn, rng.randrange(state.n_players)])
    kind = rng.choice(
        ["bid", "challenge", "exact", "pass", "show_reroll", "accept", "reroll", "bid", "bid"]
    )
    action = {"seat": seat, "type": kind}
    n_dice = sum(getattr(state, "dice_counts", (5,)))
    if kind == "bid":
        if state.rules.family == "poker_dice":
            ranks = ["9", "10", "J", "Q", "K", "A", None, None]
            action["hand"] = (
                ["junk"] if rng.random() < 0.1 else [rng.choice(ranks) for _ in range(5)]
            )
            if rng.random() < 0.5:
                action["direction"] = rng.choice(["left", "right"])
        else:
            action["quantity"] = rng.randint(0, n_dice + 1)
            action["face"] = rng.randint(0, 7)
            if rng.random() < 0.2:
                action["show"] = sorted(rng.sample(range(6), rng.randint(0, 3)))
    elif kind == "challenge" and rng.random() < 0.5:
        action["target_seat"] = rng.randrange(state.n_players)
    elif kind == "show_reroll":
        action["show"] = sorted(rng.sample(range(6), rng.randint(0, 3)))
    elif kind == "reroll":
        action["hold"] = sorted(rng.sample(range(6), rng.randint(0, 4)))
    return action


def predicted_legal(state: State, action: dict) -> bool:
    """Is `action` allowed according to legal_actions alone?"""
    entries = {e["type"]: e for e in legal_actions(state, action["seat"])}
    kind = action["type"]
    if kind not in entries:
        return False
    entry = entries[kind]
    r = state.round
    seat = action["seat"]
    if state.rules.family == "poker_dice":
        from games.engine.poker_dice.hands import hand_key, parse_hand

        if kind == "bid":
            hand = action["hand"]
            if hand != ["junk"] and all(h is None for h in hand):
                return False
            named = parse_hand(hand)
            if hand_key(named) < hand_key(parse_hand(entry["min_hand"])):
                return False
            if not named and entry["min_hand"] != ["junk"]:
                return False
            if entry["needs_direction"]:
                return "direction" in action
            return "direction" not in action or r.bid is None
        if kind == "reroll":
            required = entry.get("hold_required")
            if required is not None and sorted(action["hold"]) != sorted(required):
                return False
            return all(0 <= i < 5 for i in action["hold"])
        return True
    if kind == "bid":
        mq = entry["min_quantity_by_face"]
        q, f = action["quantity"], action["face"]
        if str(f) not in mq or not mq[str(f)] <= q <= entry["max_quantity"]:
            return False
        show = action.get("show")
        if show:
            cup = len(r.dice[seat])
            return (
                bool(entry.get("can_show")) and len(show) <= entry["max_show"] and max(show) < cup
            )
        return True
    if kind == "show_reroll":
        show = action["show"]
        return 0 < len(show) <= entry["max_show"] and max(show) < len(r.dice[seat])
    if kind == "challenge":
        target = action.get("target_seat")
        targets = entry["target_seats"]
        if target is None:
            return r.bidder in targets or len(targets) == 1
        return target in targets
    return True


def listed_actions(state: State):
    """Every concrete action that legal_actions describes (bids spelled out)."""
    seat = state.round.turn
    for entry in legal_actions(state, seat):
        kind = entry["type"]
        if kind == "bid" and "min_quantity_by_face" in entry:
            assert entry["max_quantity"] == sum(state.dice_counts)
            for face, low in entry["min_quantity_by_face"].items():
                for q in range(low, entry["max_quantity"] + 1):
                    yield {"seat": seat, "type": "bid", "quantity": q, "face": int(face)}
                    if entry.get("can_show"):
                        show = list(range(entry["max_show"]))
                        yield {
                            "seat": seat,
                            "type": "bid",
                            "quantity": q,
                            "face": int(face),
                            "show": show,
                        }
        elif kind == "bid":
            from games.engine.poker_dice.hands import (
                BID_BY_KEY,
                BID_KEYS,
                canonical_hand,
                hand_key,
                parse_hand,
            )

            low = hand_key(parse_hand(entry["min_hand"]))
            for key in BID_KEYS[BID_KEYS.index(low) :: 7]:
                action = {"seat": seat, "type": "bid", "hand": canonical_hand(BID_BY_KEY[key])}
                if entry["needs_direction"]:
                    action["direction"] = "right"
                yield action
        elif kind == "challenge" and "target_seats" in entry:
            for target in entry["target_seats"]:
                yield {"seat": seat, "type": "challenge", "target_seat": target}
        elif kind == "show_reroll":
            yield {"seat": seat, "type": "show_reroll", "show": list(range(entry["max_show"]))}
            yield {"seat": seat, "type": "show_reroll", "show": [entry["max_show"]]}
        elif kind == "reroll" and "hold_required" in entry:
            yield {"seat": seat, "type": "reroll", "hold": entry["hold_required"]}
        elif kind == "reroll":
            yield {"seat": seat, "type": "reroll", "hold": []}
            yield {"seat": seat, "type": "reroll", "hold": [0, 1, 2, 3, 4]}
        else:
            yield {"seat": seat, "type": kind}


# --- invariants ------------------------------------------------------------------------


# Every field of the state, sorted into what some seat may not see and the rest. A new
# field fails these sets until someone decides whether it is hidden (and perturbs it).
STATE_HIDDEN = {"rolls"}  # the replay log: every die ever rolled
POOL_HIDDEN = {"dice", "rolls"}  # per seat: the cup and every roll this round
POKER_HIDDEN = {"box", "shelf", "rolls"}  # hidden from everyone but the box holder
STATE_PUBLIC = {
    "rules",
    "n_players",
    "creator_seat",
    "live",
    "eliminations",
    "round",
    "last_round",
    "winners",
    "finished",
    "version",
}
POOL_STATE_PUBLIC = STATE_PUBLIC | {"dice_counts", "palifico_seats"}
POKER_STATE_PUBLIC = STATE_PUBLIC | {"lives", "loser"}
POOL_PUBLIC = {
    "number",
    "opener",
    "turn",
    "shown",
    "bid",
    "bid_key",
    "bidder",
    "passed",
    "passes_since_bid",
    "must_raise",
    "actions",
    "roll_off",
    "palifico",
}
POKER_PUBLIC = {"number", "player_one", "turn", "phase", "direction", "bid", "bidder", "actions"}


def _names(obj) -> set[str]:
    return {f.name for f in fields(obj)}


def _other(rng: random.Random, value: int, lo: int, hi: int) -> int:
    """A value in lo..hi that differs from `value` (every hidden die really changes)."""
    return rng.choice([v for v in range(lo, hi + 1) if v != value])


def _other_dice(rng: random.Random, dice: tuple[int, ...], lo: int, hi: int) -> tuple[int, ...]:
    return tuple(_other(rng, v, lo, hi) for v in dice)


def hidden_twin(state: State, viewer: int | None, rng: random.Random) -> State:
    """`state` with everything `viewer` may not see replaced by different values."""
    r = state.round
    if state.rules.family == "poker_dice":
        assert _names(state) == STATE_HIDDEN | POKER_STATE_PUBLIC
        assert _names(r) == POKER_HIDDEN | POKER_PUBLIC
        holder = viewer == r.turn and r.phase in ("bid", "reroll")
        if holder:  # sees the box and shelf now, never the earlier shakes
            box, shelf = r.box, r.shelf
        else:
            box = _other_dice(rng, r.box, 0, 5)
            # How many dice were held is public (`rerolled`); which ones is not.
            others = [c for c in combinations(range(5), len(r.shelf)) if c != r.shelf]
            shelf = rng.choice(others) if others else r.shelf
        rolls = (*(_other_dice(rng, b, 0, 5) for b in r.rolls[:-1]), box)
        new_round = replace(r, box=box, shelf=shelf, rolls=rolls)
    else:
        assert _names(state) == STATE_HIDDEN | POOL_STATE_PUBLIC
        assert _names(r) == POOL_HIDDEN | POOL_PUBLIC
        dice, rolls = list(r.dice), list(r.rolls)
        for s in range(state.n_players):
            if s != viewer:
                dice[s] = _other_dice(rng, r.dice[s], 1, 6)
                rolls[s] = tuple(_other_dice(rng, x, 1, 6) for x in r.rolls[s])
        new_round = replace(r, dice=tuple(dice), rolls=tuple(rolls))
    # The log is never shown to anyone: changing every entry (cheaply) is enough.
    return replace(state, round=new_round, rolls=tuple(v + 1 for v in state.rolls))


def check_views(state: State, rng: random.Random, view=view_for) -> None:
    """A seat's view is the same for every state that differs only in what it may not see."""
    if state.round is None:
        return
    for viewer in [None, *range(state.n_players)]:
        seen = view(state, viewer)
        json.dumps(seen)
        assert view(hidden_twin(state, viewer, rng), viewer) == seen, viewer


def play_out(rules: Rules, n: int, seed: int, forfeits: bool) -> None:
    rng = random.Random(seed)
    state, _ = new_match(rules, n, rng)
    actions: list[dict] = []
    midpoint = None
    steps = 0
    dpp = getattr(rules, "dice_per_player", 0)
    while not state.finished:
        steps += 1
        assert steps < MAX_ACTIONS, "game did not end"
        # Fuzz: a random action is accepted exactly when legal_actions allows it.
        fuzz = fuzz_action(rng, state)
        expected = predicted_legal(state, fuzz)
        try:
            apply(state, fuzz, random.Random(0))
            accepted = True
        except IllegalAction:
            accepted = False
        assert accepted == expected, (fuzz, legal_actions(state, fuzz["seat"]))
        if steps % 7 == 0:
            check_views(state, rng)
            assert state_from_json(json.loads(json.dumps(state.to_json()))) == state
        if steps % 5 == 1:
            for listed in listed_actions(state):
                apply(state, listed, random.Random(1))  # must not raise
        if forfeits and rng.random() < 0.01:
            live = [s for s, ok in enumerate(state.live) if ok]
            # The server's forfeit, logged for the replay as replay() expects it.
            action = {"seat": rng.choice(live), "type": "forfeit"}
            before = state
            state, events = forfeit(state, action["seat"], rng)
        else:
            action = random_action(state, rng)
            before = state
            state, events = apply(state, action, rng)
        actions.append(action)
        if midpoint is None and rng.random() < 0.1:
            midpoint = (len(actions), state)
        json.dumps(events)
        if rules.family != "poker_dice":
            assert all(0 <= c <= dpp for c in state.dice_counts)
            assert all((c > 0) == ok for c, ok in zip(state.dice_counts, state.live, strict=True))
            for ev in events:
                if ev["type"] == "round_finished":
                    result = ev["round"]["result"]
                    if result["type"] == "exact" and not result["losses"]:
                        assert sum(state.dice_counts) >= sum(before.dice_counts)
                    else:
                        assert sum(state.dice_counts) < sum(before.dice_counts)
                    assert sum(result["losses"].values()) == sum(before.dice_counts) - sum(
                        state.dice_counts
                    ) + sum(result["gains"].values())
            if state.round is not None:
                assert [
                    len(d) + len(s)
                    for d, s in zip(state.round.dice, state.round.shown, strict=True)
                ] == list(state.dice_counts)
        else:
            assert all(0 <= x <= rules.lives for x in state.lives)
    assert len(state.winners) >= 1
    if midpoint is None:
        midpoint = (len(actions), state)
    assert state_from_json(json.loads(json.dumps(state.to_json()))) == state
    assert replay(rules, n, state.rolls, actions) == state
    # a mid-game state replays too, from its own record of the dice
    k, mid = midpoint
    assert replay(rules, n, mid.rolls, actions[:k]) == mid
    assert state_from_json(json.loads(json.dumps(mid.to_json()))) == mid


@SETTINGS
@given(rules=pool_rules(), n=players, seed=seeds, forfeits=st.booleans())
def test_random_common_pool_games(rules, n, seed, forfeits):
    play_out(rules, n, seed, forfeits)


@settings(max_examples=150, deadline=None)
@given(rules=poker_rules(), n=players, seed=seeds, forfeits=st.booleans())
def test_random_poker_games(rules, n, seed, forfeits):
    play_out(rules, n, seed, forfeits)


# --- the view check itself catches leaks -----------------------------------------------


def _pool_state_after_show_reroll() -> State:
    # Seat 1 showed two dice and rerolled: its roll history now differs from its cup.
    state = start("milton_bradley", [[6, 6, 6, 2, 3], [6, 1, 4, 4], [6, 6, 1, 5, 5]])
    state, _ = act(state, 0, "bid", **bid(10, 6))
    state, _ = act(state, 1, "show_reroll", rng=Dice((3, 2)), show=[0, 1])
    return state


def _poker_state_after_reroll() -> State:
    state, _ = new_match(PokerDiceRules(), 3, Dice((1, 2, 3, 4, 6)), opener_seat=0)
    state, _ = act(state, 0, "bid", hand=["junk"], direction="left")
    state, _ = act(state, 1, "accept")
    state, _ = act(state, 1, "reroll", rng=Dice((5, 5)), hold=[0, 1, 2])
    state, _ = act(state, 1, "bid", hand=["K", "K", None, None, None])
    return state


def _with_round(view: dict, key: str, value) -> dict:
    view["round"][key] = value
    return view


LEAKS = {
    # earlier rolls of another seat (seat 1's first roll, now partly shown)
    "pool_roll_history": (
        _pool_state_after_show_reroll,
        lambda st, seat: _with_round(view_for(st, seat), "leak", list(st.round.rolls[1][0])),
    ),
    # only a fact derived from another seat's cup
    "pool_derived": (
        _pool_state_after_show_reroll,
        lambda st, seat: _with_round(view_for(st, seat), "leak", st.round.dice[2].count(6)),
    ),
    "replay_log": (
        _pool_state_after_show_reroll,
        lambda st, seat: {**view_for(st, seat), "leak": list(st.rolls)},
    ),
    "poker_shelf": (
        _poker_state_after_reroll,
        lambda st, seat: _with_round(view_for(st, seat), "leak", list(st.round.shelf)),
    ),
    "poker_first_shake": (
        _poker_state_after_reroll,
        lambda st, seat: _with_round(view_for(st, seat), "leak", list(st.round.rolls[0])),
    ),
}


@pytest.mark.parametrize("leak", list(LEAKS))
def test_check_views_fails_on_a_leaky_view(leak):
    make, leaky_view = LEAKS[leak]
    state = make()
    check_views(state, random.Random(0))  # the real view_for passes
    with pytest.raises(AssertionError):
        check_views(state, random.Random(0), view=leaky_view)
