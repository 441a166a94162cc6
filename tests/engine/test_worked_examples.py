"""RULES.md section 4: every worked example from the rule sheets, one test each."""

from __future__ import annotations

import pytest

from games.engine import IllegalAction, legal_actions, rules_from_preset
from games.engine.poker_dice.hands import hand_key, parse_hand

from .helpers import Dice, act, bid, event, play, start


def test_000_ex1_challenger_loses_the_difference():
    # Eight 5s challenged; seven 5s and four wilds: 11, the challenger loses 3.
    state = start(
        "milton_bradley",
        [[5, 5, 5, 1, 1], [5, 5, 5, 1, 1], [5, 2, 3, 4, 6]],
    )
    state, events = play(state, (0, "bid", bid(8, 5)), (1, "challenge", {}), rng=Dice())
    result = event(events, "round_finished")["round"]["result"]
    assert result["actual_count"] == 11
    assert result["losses"] == {"1": 3}
    assert result["winner_seat"] == 0
    assert state.dice_counts == (5, 2, 5)


def test_000_ex2_bidder_loses_on_seven_wilds():
    state = start(
        "milton_bradley",
        [[1, 1, 1, 2, 3], [1, 1, 4, 4, 4], [2, 3, 4, 5, 6]],
    )
    state, events = play(state, (0, "bid", bid(7, 1)), (1, "challenge", {}), rng=Dice())
    result = event(events, "round_finished")["round"]["result"]
    assert result["actual_count"] == 5
    assert result["losses"] == {"0": 2}
    assert result["winner_seat"] == 1
    assert state.dice_counts == (3, 5, 5)


def _fourteen_twos(preset: str):
    # seat 0 bids, seat 1 challenges, seat 2 is on its last die, seat 3 a bystander.
    hands = [[2, 2, 2, 1, 1], [2, 2, 2, 2, 5], [2], [2, 2, 1, 1, 6]]
    state = start(preset, hands)
    return play(state, (0, "bid", bid(14, 2)), (1, "challenge", {}), rng=Dice())


def test_000_ex3_exact_everyone_but_bidder_loses_one_last_die_spared():
    state, events = _fourteen_twos("milton_bradley")
    result = event(events, "round_finished")["round"]["result"]
    assert result["actual_count"] == 14
    assert result["losses"] == {"1": 1, "3": 1}  # seat 2 keeps its last die
    assert result["winner_seat"] == 0
    assert state.dice_counts == (5, 4, 1, 4)


def test_000_ex3_challenger_on_last_die_is_not_spared():
    hands = [[2, 2, 2, 1, 1], [2], [2, 2, 2, 2, 5], [2, 2, 1, 1, 6]]
    state = start("milton_bradley", hands)
    state, events = play(state, (0, "bid", bid(14, 2)), (1, "challenge", {}), rng=Dice())
    assert event(events, "round_finished")["round"]["result"]["losses"] == {"1": 1, "2": 1, "3": 1}
    assert event(events, "player_out")["seat"] == 1


def test_000_ex3_without_spare_rule_last_die_is_lost():
    state, events = _fourteen_twos("wild_ones")
    assert event(events, "round_finished")["round"]["result"]["losses"] == {
        "1": 1,
        "2": 1,
        "3": 1,
    }
    assert event(events, "player_out")["seat"] == 2
    assert not state.live[2]


def test_000_show_and_reroll_after_reroll():
    # Bid ten 6s; seat 1 holds 6, 1, 4, 4, shows the 6 and the 1, rerolls the 4s.
    hands = [[6, 6, 6, 2, 3], [6, 1, 4, 4], [6, 6, 1, 5, 5]]
    state = start("milton_bradley", hands)
    state, _ = act(state, 0, "bid", **bid(10, 6))
    assert {"type": "show_reroll", "max_show": 3} in legal_actions(state, 1)
    state, events = act(state, 1, "show_reroll", rng=Dice((3, 2)), show=[0, 1])
    assert events[0]["shown"] == [6, 1] and "dice" not in events[0]
    assert state.round.dice[1] == (3, 2) and state.round.shown[1] == (6, 1)
    # Now the same player must raise: a challenge is no longer allowed.
    assert [a["type"] for a in legal_actions(state, 1)] == ["bid"]
    with pytest.raises(IllegalAction) as err:
        act(state, 1, "challenge")
    assert err.value.code == "illegal_action"
    state, _ = act(state, 1, "bid", **bid(11, 6))
    state, events = act(state, 2, "challenge", rng=Dice())
    result = event(events, "round_finished")["round"]
    # 6s and wilds: seat0 3, seat1 shown 6 and 1 = 2 (rerolled 3, 2 add none), seat2 3.
    assert result["result"]["actual_count"] == 8
    assert result["dice"]["1"] == [3, 2, 6, 1]
    assert result["shown"] == {"1": [6, 1]}
    assert result["rolls"] == {"1": [[6, 1, 4, 4], [3, 2]]}  # first roll, then the reroll
    assert result["result"]["losses"] == {"1": 3}


def test_000_show_and_reroll_before_raise():
    hands = [[6, 6, 6, 2, 3], [6, 1, 4, 4], [6, 6, 1, 5, 5]]
    state = start("milton_bradley", hands, show_and_reroll="before_raise")
    state, _ = act(state, 0, "bid", **bid(10, 6))
    entry = legal_actions(state, 1)[0]
    assert entry["type"] == "bid" and entry["can_show"] is True and entry["max_show"] == 3
    state, events = act(state, 1, "bid", rng=Dice((6, 6)), show=[0, 1], **bid(11, 6))
    assert events[0]["shown"] == [6, 1]
    assert state.round.dice[1] == (6, 6) and state.round.shown[1] == (6, 1)
    state, events = act(state, 2, "challenge", rng=Dice())
    assert event(events, "round_finished")["round"]["result"]["actual_count"] == 10


def test_000_no_show_on_opening_bid():
    state = start("milton_bradley", [[6, 1, 4, 4, 2], [2, 3, 4, 5, 6]])
    assert legal_actions(state, 0) == [
        {
            "type": "bid",
            "min_quantity_by_face": {str(f): 1 for f in range(1, 7)},
            "max_quantity": 10,
        }
    ]
    with pytest.raises(IllegalAction):
        act(state, 0, "show_reroll", show=[0])


@pytest.mark.parametrize(
    ("q", "f", "ones"),
    [(5, 4, 3), (6, 5, 4)],
)
def test_001_min_ones_bid(q, f, ones):
    state = start("wild_ones", [[2] * 5] * 4)
    state, _ = act(state, 0, "bid", **bid(q, f))
    assert legal_actions(state, 1)[0]["min_quantity_by_face"]["1"] == ones
    with pytest.raises(IllegalAction) as err:
        act(state, 1, "bid", **bid(ones - 1, 1))
    assert err.value.code == "bid_not_higher"
    act(state, 1, "bid", **bid(ones, 1))


def test_001_min_ones_message_is_readable():
    state = start("wild_ones", [[2] * 5] * 4)
    state, _ = act(state, 0, "bid", **bid(5, 4))
    with pytest.raises(IllegalAction) as err:
        act(state, 1, "bid", **bid(2, 1))
    assert err.value.detail == "after five 4s the lowest bid on ones is three 1s"


def test_001_four_ones_then_eight_threes():
    state = start("wild_ones", [[2] * 5] * 4)
    state, _ = act(state, 0, "bid", **bid(4, 1))
    assert legal_actions(state, 1)[0]["min_quantity_by_face"]["3"] == 8
    with pytest.raises(IllegalAction):
        act(state, 1, "bid", **bid(7, 3))
    act(state, 1, "bid", **bid(8, 3))


def test_002_exact_count_challenger_loses_one_and_loser_opens():
    rules = rules_from_preset("roll_off")
    state = start(rules, [[4, 4, 1, 2, 3], [4, 5, 6, 2, 3], [4, 5, 6, 2, 3]], opener=0)
    state, events = play(state, (0, "bid", bid(5, 4)), (1, "challenge", {}), rng=Dice())
    result = event(events, "round_finished")["round"]["result"]
    assert result["actual_count"] == 5
    assert result["losses"] == {"1": 1}
    assert result["winner_seat"] == 0
    assert state.round.opener == 1
    assert event(events, "round_started")["opener_seat"] == 1


def test_002_roll_off_highest_opens_ties_roll_again():
    from games.engine import ScriptedDice, new_match

    rules = rules_from_preset("roll_off")
    script = [6, 6, 2] + [3, 5] + [2] * 15
    state, events = new_match(rules, 3, ScriptedDice(script))
    assert state.round.opener == 1
    started = event(events, "round_started")
    assert started["roll_off"] == [{"0": 6, "1": 6, "2": 2}, {"0": 3, "1": 5}]
    state, events = play(state, (1, "bid", bid(3, 2)), (2, "challenge", {}), rng=Dice())
    assert event(events, "round_finished")["round"]["roll_off"] == started["roll_off"]


def test_003_bid_line_quantity_then_face():
    state = start("classic", [[2] * 5] * 3)
    state, _ = act(state, 0, "bid", **bid(1, 1))
    line = [(1, 2), (1, 3), (1, 4), (1, 5), (1, 6), (2, 1), (2, 2)]
    seat = 1
    for q, f in line:
        state, _ = act(state, seat, "bid", **bid(q, f))
        seat = (seat + 1) % 3


def test_003_after_two_twos_nothing_below_two_threes():
    state = start("classic", [[2] * 5] * 3)
    state, _ = act(state, 0, "bid", **bid(2, 2))
    mq = legal_actions(state, 1)[0]["min_quantity_by_face"]
    assert mq == {"1": 3, "2": 3, "3": 2, "4": 2, "5": 2, "6": 2}
    for q, f in [(2, 1), (2, 2), (1, 4), (1, 6)]:
        with pytest.raises(IllegalAction) as err:
            act(state, 1, "bid", **bid(q, f))
        assert err.value.code == "bid_not_higher"
    act(state, 1, "bid", **bid(2, 3))


def test_004_four_jacks_and_a_ten_beats_four_jacks():
    assert hand_key(parse_hand(["J", "J", "J", "J", "10"])) > hand_key(
        parse_hand(["J", "J", "J", "J", None])
    )


def test_004_high_straight_beats_low_straight():
    high = hand_key(parse_hand(["A", "K", "Q", "J", "10"]))
    low = hand_key(parse_hand(["K", "Q", "J", "10", "9"]))
    assert high > low


def test_004_raises_through_the_engine():
    from games.engine import ScriptedDice, new_match

    rules = rules_from_preset("poker_dice")
    state, _ = new_match(rules, 3, ScriptedDice([3, 3, 3, 3, 2]), opener_seat=0)
    state, _ = act(state, 0, "bid", hand=["J", "J", "J", "J", None], direction="left")
    state, _ = act(state, 1, "accept")
    state, _ = act(state, 1, "reroll", hold=[0, 1, 2, 3, 4])
    with pytest.raises(IllegalAction) as err:
        act(state, 1, "bid", hand=["J", "J", "J", "J", None])
    assert err.value.code == "bid_not_higher"
    assert err.value.detail == "after four jacks the lowest bid is four jacks and a 9"
    state, _ = act(state, 1, "bid", hand=["J", "J", "J", "J", "10"])
    assert state.round.turn == 2
