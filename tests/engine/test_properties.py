"""Random playouts over random option combinations (OpenSpiel's random_sim_test idea)."""

from __future__ import annotations

import json
import random
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    IllegalAction,
    Rules,
    State,
    apply,
    legal_actions,
    new_match,
    random_action,
    replay,
    view_for,
)
from games.engine.rules import CHOICES, COMMON_OPTIONS

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_ACTIONS = 5000


@st.composite
def pool_rules(draw) -> Rules:
    opts = {name: draw(st.sampled_from(choices)) for name, choices in CHOICES.items()}
    opts["ones_wild"] = draw(st.booleans()) if opts["ones_bids"] != "face" else False
    opts["exact_spares_last_die"] = draw(st.booleans())
    opts["exact_call"] = draw(st.booleans())
    opts["pass_call"] = draw(st.booleans())
    opts["dice_per_player"] = draw(st.sampled_from([1, 2, 3, 5, 5, 10]))
    assert set(opts) == set(COMMON_OPTIONS)
    return Rules(**opts)


@st.composite
def poker_rules(draw) -> Rules:
    return Rules(family="poker_dice", lives=draw(st.integers(1, 4)))


players = st.sampled_from([2, 2, 3, 4, 5, 8])
seeds = st.integers(0, 2**32 - 1)


# --- fuzzing: random, mostly wrong actions --------------------------------------------


def fuzz_action(rng: random.Random, state: State) -> dict:
    seat = rng.choice([state.round.turn, rng.randrange(state.n_players)])
    kind = rng.choice(
        ["bid", "challenge", "exact", "pass", "show_reroll", "accept", "reroll", "bid", "bid"]
    )
    action = {"seat": seat, "type": kind}
    n_dice = sum(state.dice_counts) if state.dice_counts else 5
    if kind == "bid":
        if state.rules.is_poker:
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
    if state.rules.is_poker:
        from games.engine.poker import hand_key, parse_hand

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
            return all(0 <= i < 5 for i in action["hold"])
        return True
    if kind == "bid":
        mq = entry["min_quantity_by_face"]
        q, f = action["quantity"], action["face"]
        if str(f) not in mq or not mq[str(f)] <= q <= sum(state.dice_counts):
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
    total = sum(state.dice_counts)
    for entry in legal_actions(state, seat):
        kind = entry["type"]
        if kind == "bid" and "min_quantity_by_face" in entry:
            for face, low in entry["min_quantity_by_face"].items():
                for q in range(low, total + 1):
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
            from games.engine.poker import (
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
        elif kind == "reroll":
            yield {"seat": seat, "type": "reroll", "hold": []}
            yield {"seat": seat, "type": "reroll", "hold": [0, 1, 2, 3, 4]}
        else:
            yield {"seat": seat, "type": kind}


# --- invariants ------------------------------------------------------------------------


def check_views(state: State, rng: random.Random) -> None:
    """A seat's view does not change when any dice it may not see change."""
    seats = [None, *range(state.n_players)]
    r = state.round
    if r is None:
        return
    for viewer in seats:
        view = view_for(state, viewer)
        json.dumps(view)
        if state.rules.is_poker:
            if viewer == r.turn and r.phase in ("bid", "reroll"):
                continue
            other_box = tuple(rng.randrange(6) for _ in range(5))
            other = replace(state, round=replace(r, box=other_box))
        else:
            dice = tuple(
                d if s == viewer else tuple(rng.randint(1, 6) for _ in d)
                for s, d in enumerate(r.dice)
            )
            other = replace(state, round=replace(r, dice=dice))
        assert view_for(other, viewer) == view, viewer


def play_out(rules: Rules, n: int, seed: int, forfeits: bool) -> None:
    rng = random.Random(seed)
    state, _ = new_match(rules, n, rng)
    actions: list[dict] = []
    midpoint = None
    steps = 0
    dpp = rules.dice_per_player
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
            assert State.from_json(json.loads(json.dumps(state.to_json()))) == state
        if steps % 5 == 1:
            for listed in listed_actions(state):
                apply(state, listed, random.Random(1))  # must not raise
        if forfeits and rng.random() < 0.01:
            live = [s for s, ok in enumerate(state.live) if ok]
            action = {"seat": rng.choice(live), "type": "forfeit"}
        else:
            action = random_action(state, rng)
        before = state
        state, events = apply(state, action, rng)
        actions.append(action)
        if midpoint is None and rng.random() < 0.1:
            midpoint = (len(actions), state)
        json.dumps(events)
        if not rules.is_poker:
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
    assert State.from_json(json.loads(json.dumps(state.to_json()))) == state
    assert replay(rules, n, state.rolls, actions) == state
    # a mid-game state replays too, from its own record of the dice
    k, mid = midpoint
    assert replay(rules, n, mid.rolls, actions[:k]) == mid
    assert State.from_json(json.loads(json.dumps(mid.to_json()))) == mid


@SETTINGS
@given(rules=pool_rules(), n=players, seed=seeds, forfeits=st.booleans())
def test_random_common_pool_games(rules, n, seed, forfeits):
    play_out(rules, n, seed, forfeits)


@settings(max_examples=150, deadline=None)
@given(rules=poker_rules(), n=players, seed=seeds, forfeits=st.booleans())
def test_random_poker_games(rules, n, seed, forfeits):
    play_out(rules, n, seed, forfeits)
