"""Rules found wrong against the rule sheets (issue 14), each checked against the sheet."""

from __future__ import annotations

from games.engine import current_seat, legal_actions, rules_from_preset, view_for

from .helpers import Dice, act, bid, event, play, start

# Sheet 000, "Game Variations": "The loser of the previous round opens the bidding in the
# new round. If more than one loser, the one with the least number of Player's Dice opens
# the bidding in the new round."


def test_several_losers_one_out_the_loser_in_play_with_fewest_dice_opens():
    # An exact "ten 2s" under others_lose_one: seats 1, 2 and 3 lose one die; seat 2 is out.
    hands = [[2, 2], [2, 2, 2], [2], [2, 2, 2, 2]]
    state = start("wild_ones", hands, opener=0)
    state, events = play(state, (0, "bid", bid(10, 2)), (1, "challenge", {}), rng=Dice())
    assert event(events, "round_finished")["round"]["result"]["losses"] == {
        "1": 1,
        "2": 1,
        "3": 1,
    }
    assert state.dice_counts == (2, 2, 0, 3)
    # Seat 1 (2 dice) opens: not seat 3 (3 dice), the next seat after the one knocked out.
    assert state.round.opener == 1 and current_seat(state) == 1


def test_several_losers_the_one_out_is_not_the_fewest():
    # Seat 3 is knocked out; of the losers still in play seat 2 has fewest dice (1).
    hands = [[2, 2], [2, 2, 2], [2, 2], [2]]
    state = start("wild_ones", hands, opener=0)
    state, _ = play(state, (0, "bid", bid(8, 2)), (1, "challenge", {}), rng=Dice())
    assert state.dice_counts == (2, 2, 1, 0)
    assert state.round.opener == 2  # not the bidder, seat 0, the next live seat after seat 3


def test_several_losers_tied_the_first_clockwise_from_the_bidder_opens():
    hands = [[2, 2], [2, 2, 2], [2, 2], [2, 2]]
    state = start("wild_ones", hands, opener=0)
    state, _ = play(state, (0, "bid", bid(9, 2)), (1, "challenge", {}), rng=Dice())
    assert state.dice_counts == (2, 2, 1, 1)
    assert state.round.opener == 2  # seats 2 and 3 tie at one die; seat 2 comes first


def test_every_loser_out_the_opening_passes_clockwise_from_the_last_of_them():
    # Sheet 000's spared last die: seats 2 and 3 keep theirs, the challenger (seat 1) loses
    # its only die; the opening passes on clockwise from it.
    rules = rules_from_preset("milton_bradley", {"next_opener": "round_loser"})
    state = start(rules, [[2, 2], [2], [2], [2]], opener=0)
    state, events = play(state, (0, "bid", bid(5, 2)), (1, "challenge", {}), rng=Dice())
    assert event(events, "round_finished")["round"]["result"]["losses"] == {"1": 1}
    assert state.dice_counts == (2, 0, 1, 1)
    assert state.round.opener == 2


# Sheets 000-002 make ones wild and use the half order for bids on them; sheet 003 lists
# wild ones as a "Common Variant": "Ones are often counted as 'wild dice' and count toward
# any value of of dice called."


def test_classic_with_wild_ones_alone_is_playable_with_the_half_order():
    rules = rules_from_preset("classic", {"ones_wild": True})
    assert rules.ones_wild and rules.ones_bids == "half"
    named = rules_from_preset("classic", {"ones_wild": True, "ones_bids": "forbidden"})
    assert named.ones_bids == "forbidden"  # a named order is kept
    state = start(rules, [[4, 1, 1], [4, 2, 2], [3, 3, 3]], opener=0)
    state, _ = act(state, 0, "bid", **bid(5, 4))
    assert legal_actions(state, 1)[0]["min_quantity_by_face"]["1"] == 3  # sheet 001's check
    state, events = act(state, 1, "challenge", rng=Dice())
    result = event(events, "round_finished")["round"]["result"]
    assert result["actual_count"] == 4  # two 4s and two wild ones
    assert result["losses"] == {"0": 1}  # classic's loss of one die stands


# Sheet 003, the pass variant: "If challenged, the passing player reveals their hand. ...
# Either way, return to step two, with everyone rolling a new set of dice." RULES 1.7,
# Decision: the round record publishes every cup (the round is over and every die is
# rerolled), so each seat's dice commitment can be checked against its salt at once.


def test_a_challenged_pass_ends_the_round_and_its_record_publishes_every_cup():
    state = start("classic", [[2, 5], [3, 3], [4, 6]], opener=0, pass_call=True)
    state, _ = play(state, (0, "bid", bid(1, 2)), (1, "pass", {}))
    state, events = act(state, 2, "challenge", target_seat=1, rng=Dice())
    record = event(events, "round_finished")["round"]
    assert record["result"]["type"] == "pass_challenge"
    assert record["result"]["losses"] == {"1": 1}  # two 3s: the passer loses one
    assert record["dice"] == {"0": [2, 5], "1": [3, 3], "2": [4, 6]}
    # Everyone rerolls: the new round's cups are hidden again from the other seats.
    view = view_for(state, 0)
    assert view["round"]["number"] == 2 and "your_dice" in view["round"]
    assert view["last_round"]["dice"] == record["dice"]
