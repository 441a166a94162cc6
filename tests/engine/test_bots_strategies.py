"""Bot strategies: always legal (random playouts of every option), sensible, fast."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    PRESETS,
    Rules,
    State,
    apply,
    legal_actions,
    new_match,
    rules_from_preset,
    view_for,
)
from games.engine.bots import (
    STRATEGIES,
    challenge_or_lowest_bid,
    challenge_policy_action,
    choose_action,
    timeout_policy_action,
)
from games.engine.bots.common_pool_strategies import (
    HARD,
    PoolParams,
    Table,
    binomial_pmf,
    infer_weights,
)
from games.engine.bots.poker_dice_strategies import best_hold, outcomes, p_meets
from games.engine.bots.view_play import key_of_hand
from games.engine.common_pool import CommonPoolRules
from games.engine.common_pool.rules import CHOICES
from games.engine.poker_dice import PokerDiceRules
from games.engine.poker_dice.hands import RANK_INDEX, hand_key

from .helpers import act, start

NAMES = sorted(STRATEGIES)
MAX_ACTIONS = 20_000


def play_game(rules: Rules, names: list[str], rng: random.Random) -> State:
    """A whole game of bots; every action goes through the engine's apply (never raises)."""
    state, _ = new_match(rules, len(names), rng)
    for _ in range(MAX_ACTIONS):
        if state.finished:
            return state
        seat = state.round.turn
        legal = legal_actions(state, seat)
        action = choose_action(names[seat], view_for(state, seat), legal, rng)
        assert "seat" not in action
        assert action["type"] in {a["type"] for a in legal}
        state, _ = apply(state, {**action, "seat": seat}, rng)
    raise AssertionError("the game did not end")


# --- every returned action is legal ------------------------------------------------------


@st.composite
def pool_rules(draw) -> Rules:
    opts = {name: draw(st.sampled_from(choices)) for name, choices in CHOICES.items()}
    opts["ones_wild"] = draw(st.booleans()) if opts["ones_bids"] != "face" else False
    opts["exact_spares_last_die"] = draw(st.booleans())
    opts["exact_call"] = draw(st.booleans())
    opts["pass_call"] = draw(st.booleans())
    opts["dice_per_player"] = draw(st.sampled_from([1, 2, 3, 5]))
    return CommonPoolRules(**opts)


seats = st.lists(st.sampled_from(NAMES), min_size=2, max_size=6)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(rules=pool_rules(), names=seats, seed=st.integers(0, 2**32 - 1))
def test_pool_bots_only_play_legal_actions(rules, names, seed):
    state = play_game(rules, names, random.Random(seed))
    assert len(state.winners) == 1


@settings(max_examples=30, deadline=None)
@given(lives=st.integers(1, 3), names=seats, seed=st.integers(0, 2**32 - 1))
def test_poker_bots_only_play_legal_actions(lives, names, seed):
    rules = PokerDiceRules(lives=lives)
    state = play_game(rules, names, random.Random(seed))
    assert state.loser >= 0


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_with_every_strategy_at_8_players(preset):
    rng = random.Random(preset)
    play_game(rules_from_preset(preset), [NAMES[i % 3] for i in range(8)], rng)


@pytest.mark.parametrize(
    "options",
    [
        {"show_and_reroll": "before_raise"},
        {"show_and_reroll": "after_reroll", "exact_call": True, "pass_call": True},
        {"ones_bids": "forbidden", "ones_wild": False, "dice_per_player": 10},
    ],
)
def test_options_heads_up_experts(options):
    rules = rules_from_preset("milton_bradley", options)
    for seed in range(3):
        play_game(rules, ["expert", "cautious"], random.Random(seed))


def test_timeout_policies_are_legal():
    rng = random.Random(7)
    for preset in sorted(PRESETS):
        rules = rules_from_preset(preset)
        state, _ = new_match(rules, 3, rng)
        while not state.finished:
            seat = state.round.turn
            legal = legal_actions(state, seat)
            view = view_for(state, seat)
            if rng.random() < 0.5:
                action = challenge_policy_action(view, legal)
            else:
                action = timeout_policy_action(view, legal, rng)
            state, _ = apply(state, {**action, "seat": seat}, rng)


# --- decisions ----------------------------------------------------------------------


def cautious_view(state: State, seat: int) -> tuple[dict, list[dict]]:
    return view_for(state, seat), legal_actions(state, seat)


def test_cautious_challenges_an_impossible_looking_bid():
    state = start("classic", [[2, 3, 4, 5, 6], [2, 3, 4, 5, 6]])
    state, _ = act(state, 0, "bid", quantity=8, face=6)
    action = choose_action("cautious", *cautious_view(state, 1), random.Random(1))
    assert action == {"type": "challenge", "target_seat": 0}


def test_cautious_raises_on_the_face_it_holds():
    state = start("milton_bradley", [[2, 3, 4, 5, 6], [5, 5, 5, 1, 2]])
    state, _ = act(state, 0, "bid", quantity=2, face=3)
    action = choose_action("cautious", *cautious_view(state, 1), random.Random(1))
    assert action["type"] == "bid" and action["face"] == 5


def test_cautious_opening_is_likely_and_uses_its_dice():
    state = start("milton_bradley", [[6, 6, 6, 1, 2], [2, 3, 4, 5, 6]])
    action = choose_action("cautious", *cautious_view(state, 0), random.Random(1))
    assert action["face"] == 6 and action["quantity"] >= 4


def test_table_counts_shown_dice_and_wild_ones():
    state = start("milton_bradley", [[6, 1, 4, 4, 2], [2, 3, 4, 5, 6]])
    state, _ = act(state, 0, "bid", quantity=2, face=6)
    state, _ = act(state, 1, "show_reroll", rng=random.Random(3), show=[4])
    table = Table.from_view(view_for(state, 0))
    assert table.known(6) == 3  # 6 and a wild one in the cup, the shown 6
    assert table.hidden == {1: 4}
    assert table.p_at_least(3, 6) == 1.0
    assert table.p_at_least(7, 6) == pytest.approx((1 / 3) ** 4)
    assert table.p_at_least(8, 6) == 0.0


def test_binomial_sums_to_one():
    assert sum(binomial_pmf(35, 1 / 3)) == pytest.approx(1.0)


def test_hard_reads_bids_as_evidence():
    state = start("classic", [[2, 3, 4, 5, 6], [2, 3, 4, 5, 6]])
    state, _ = act(state, 0, "bid", quantity=2, face=4)
    view = view_for(state, 1)
    table = Table.from_view(view)
    plain = table.p_at_least(4, 4)
    table.set_weights(infer_weights(view, table, HARD))
    assert table.p_at_least(4, 4) > plain


def test_each_kind_of_bid_has_its_own_weight_and_the_cap_bounds_them():
    state = start("classic", [[2, 3, 4, 5, 6], [2, 3, 4, 5, 6], [2, 3, 4, 5, 6]])
    state, _ = act(state, 0, "bid", quantity=2, face=4)  # a first bid
    state, _ = act(state, 1, "bid", quantity=4, face=5)  # a first bid, a jump
    state, _ = act(state, 2, "bid", quantity=5, face=5)
    state, _ = act(state, 0, "bid", quantity=6, face=5)  # seat 0 follows the standing face
    view = view_for(state, 2)
    table = Table.from_view(view)
    params = PoolParams(first_bid_weight=0.5, same_face_weight=0.2, jump_weight=0.3)
    weights = infer_weights(view, table, params)
    assert weights[0][4] == pytest.approx(math.exp(0.5))
    assert weights[0][5] == pytest.approx(math.exp(0.2))
    assert weights[1][5] == pytest.approx(math.exp(0.5 + 0.3))
    capped = infer_weights(view, table, PoolParams(first_bid_weight=5.0, belief_cap=3.0))
    assert capped[1][5] == 3.0  # however sure a bid sounds, bluffs happen


@pytest.mark.parametrize("name", ["hard", "expert"])
def test_passes_without_a_pair_and_calls_likely_exact(name):
    state = start("classic", [[2, 2, 4, 5, 6], [1, 2, 3, 4, 6]], pass_call=True)
    state, _ = act(state, 0, "bid", quantity=3, face=6)
    action = choose_action(name, *cautious_view(state, 1), random.Random(1))
    assert action["type"] == "pass"
    state = start("classic", [[3], [2, 2, 2, 2, 2]], exact_call=True)
    state, _ = act(state, 0, "bid", quantity=5, face=2)
    action = choose_action(name, *cautious_view(state, 1), random.Random(1))
    assert action == {"type": "exact"}


# --- poker dice -----------------------------------------------------------------------


def key(*names: str):
    return hand_key(tuple(sorted((RANK_INDEX[n] for n in names), reverse=True)))


def test_outcome_tables_are_exact():
    _keys, tail = outcomes(())
    assert tail[0] == pytest.approx(1.0)
    assert p_meets((), key("9")) == pytest.approx(1.0)  # every real hand beats "a 9 high"
    assert p_meets((), key("9", "9", "9", "9", "9")) == pytest.approx(6 / 7776)
    assert p_meets((), key("A", "A", "A", "A", "A")) == pytest.approx(1 / 7776)
    assert p_meets((5, 5, 5, 5), key("A", "A", "A", "A", "A")) == pytest.approx(1 / 6)


def test_best_hold_keeps_the_four_of_a_kind():
    p, hold = best_hold([5, 5, 5, 5, 0], key("A", "A", "A", "A", "A"))
    assert hold == [0, 1, 2, 3] and p == pytest.approx(1 / 6)
    p, hold = best_hold([3, 3, 1, 2, 0], key("Q", "Q", "Q"))
    assert set(hold) >= {0, 1}


def test_poker_hard_opens_with_the_whole_truth():
    rules = rules_from_preset("poker_dice")
    rng = random.Random(5)
    for _ in range(50):
        state, _ = new_match(rules, 2, rng)
        seat = state.round.turn
        view, legal = view_for(state, seat), legal_actions(state, seat)
        action = choose_action("hard", view, legal, rng)
        named = tuple(sorted((RANK_INDEX[h] for h in action["hand"] if h), reverse=True))
        assert hand_key(named) == hand_key(tuple(sorted(state.round.box, reverse=True)))


def test_poker_expert_claims_are_mixed():
    """With a true hand it sometimes claims less than its whole hand; without one it
    sometimes claims a jump, and not always the lowest raise."""
    rules = rules_from_preset("poker_dice")
    rng = random.Random(5)
    kinds: set[str] = set()
    for _ in range(300):
        state, _ = new_match(rules, 2, rng)
        opening = {"seat": state.round.turn, "type": "bid", "hand": ["Q", "Q", None, None, None]}
        state, _ = apply(state, opening, rng)
        state, _ = apply(state, {"seat": state.round.turn, "type": "accept"}, rng)
        state, _ = apply(state, {"seat": state.round.turn, "type": "reroll", "hold": []}, rng)
        seat = state.round.turn
        view, legal = view_for(state, seat), legal_actions(state, seat)
        claimed = key_of_hand(choose_action("expert", view, legal, rng)["hand"])
        real = hand_key(tuple(sorted(state.round.box, reverse=True)))
        lowest = key_of_hand(legal[0]["min_hand"])
        if real >= lowest:
            kinds.add("whole truth" if claimed == real else "less than the truth")
        else:
            kinds.add("lowest raise" if claimed == lowest else "jump bluff")
    assert kinds == {"whole truth", "less than the truth", "lowest raise", "jump bluff"}


def test_poker_expert_challenges_an_opening_no_fresh_roll_is_likely_to_reach():
    """An opening of four aces and a king is a bluff far more often than a roll (`hard`,
    the expert before, accepts every opening: one of the leaks it keeps)."""
    rules = rules_from_preset("poker_dice")
    rng = random.Random(2)
    for _ in range(20):
        state, _ = new_match(rules, 2, rng)
        opening = {"seat": state.round.turn, "type": "bid", "hand": ["A", "A", "A", "A", "K"]}
        state, _ = apply(state, opening, rng)
        seat = state.round.turn
        action = choose_action("expert", view_for(state, seat), legal_actions(state, seat), rng)
        assert action == {"type": "challenge"}


def test_challenge_or_lowest_bid():
    assert challenge_or_lowest_bid([{"type": "challenge", "target_seats": [2]}]) == {
        "type": "challenge",
        "target_seat": 2,
    }
    opening = [{"type": "bid", "min_quantity_by_face": {str(f): 1 for f in range(1, 7)}}]
    assert challenge_or_lowest_bid(opening, ones_bids="face") == {
        "type": "bid",
        "quantity": 1,
        "face": 1,
    }
    assert challenge_or_lowest_bid(opening)["face"] == 2  # half: 1 two < 1 one
    poker = [{"type": "bid", "min_hand": ["junk"], "needs_direction": True}]
    assert challenge_or_lowest_bid(poker) == {"type": "bid", "hand": ["junk"], "direction": "left"}


def test_unknown_strategy_is_a_key_error():
    with pytest.raises(KeyError):
        choose_action("nope", {}, [{"type": "challenge"}], random.Random())
