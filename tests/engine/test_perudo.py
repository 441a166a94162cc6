"""Perudo (RULES 1.10): the order around aces, dudo, calza, the loser opens, palifico."""

from __future__ import annotations

from dataclasses import replace

import pytest

from games.engine import (
    IllegalAction,
    forfeit,
    legal_actions,
    rules_from_preset,
    view_for,
)
from games.engine.common_pool.bids import bid_key

from .helpers import Dice, act, bid, event, play, start

TWELVE = [[2, 3, 4, 5, 6], [2, 3, 4, 5, 6], [2, 2]]  # twelve dice, no aces


def mins(state, seat):
    return {int(f): q for f, q in legal_actions(state, seat)[0]["min_quantity_by_face"].items()}


def refused(state, seat, quantity, face, code):
    with pytest.raises(IllegalAction) as err:
        act(state, seat, "bid", **bid(quantity, face))
    assert err.value.code == code
    return err.value


# --- bids around aces -------------------------------------------------------------------


def test_switching_to_aces_needs_half_the_quantity_rounded_up():
    # gamerules.com: "out of 9 four, announce 5 Pacos for example (9/2=4,5 so 5 Pacos)".
    state = start("perudo", TWELVE, opener=0)
    state, _ = act(state, 0, "bid", **bid(9, 4))
    assert mins(state, 1)[1] == 5
    refused(state, 1, 4, 1, "bid_not_higher")
    act(state, 1, "bid", **bid(5, 1))
    # An even quantity halves exactly: after eight 4s, four aces.
    state = start("perudo", TWELVE, opener=0)
    state, _ = act(state, 0, "bid", **bid(8, 4))
    assert mins(state, 1)[1] == 4
    act(state, 1, "bid", **bid(4, 1))


def test_switching_back_from_aces_needs_double_plus_one():
    # gamerules.com: "on 5 Pacos, outbid 11 three (5x2=10, and add 1)".
    state = start("perudo", [[2, 3, 4, 5, 6]] * 3, opener=0)
    state, _ = act(state, 0, "bid", **bid(3, 6))
    state, _ = act(state, 1, "bid", **bid(5, 1))
    assert mins(state, 2) == {1: 6, 2: 11, 3: 11, 4: 11, 5: 11, 6: 11}
    refused(state, 2, 10, 6, "bid_not_higher")
    act(state, 2, "bid", **bid(11, 3))


def test_number_bids_rise_by_quantity_or_face_and_the_order_is_total():
    state = start("perudo", TWELVE, opener=0)
    state, _ = act(state, 0, "bid", **bid(3, 4))
    assert mins(state, 1) == {1: 2, 2: 4, 3: 4, 4: 4, 5: 3, 6: 3}
    keys = sorted(bid_key("perudo", q, f) for q in range(1, 13) for f in range(1, 7))
    assert len(set(keys)) == len(keys)


def test_no_opening_bid_on_aces_outside_palifico():
    state = start("perudo", TWELVE, opener=0)
    assert 1 not in mins(state, 0)
    error = refused(state, 0, 2, 1, "invalid_bid")
    assert "palifico" in error.detail and error.field == "face"


# --- dudo and calza ---------------------------------------------------------------------


def test_dudo_costs_the_loser_one_die_and_the_loser_opens():
    state = start("perudo", [[2, 2, 1, 5, 5], [3, 3, 3, 3, 3], [6, 6, 6, 6, 6]], opener=0)
    state, events = play(state, (0, "bid", bid(6, 2)), (1, "challenge", {}), rng=Dice())
    result = event(events, "round_finished")["round"]["result"]
    assert result["actual_count"] == 3 and result["losses"] == {"0": 1}  # not the difference
    assert state.dice_counts == (4, 5, 5) and state.round.opener == 0


def test_dudo_on_an_exact_count_costs_the_challenger():
    state = start("perudo", [[2, 2, 1, 5, 5], [3, 3, 3, 3, 3], [6, 6, 6, 6, 6]], opener=0)
    state, _ = play(state, (0, "bid", bid(3, 2)), (1, "challenge", {}), rng=Dice())
    assert state.dice_counts == (5, 4, 5) and state.round.opener == 1


def test_the_loser_out_the_next_player_clockwise_opens():
    state = start("perudo", [[2, 2, 3], [4], [6, 6]], opener=1)
    state, events = play(state, (1, "bid", bid(3, 4)), (2, "challenge", {}), rng=Dice())
    assert event(events, "player_out")["seat"] == 1
    assert state.round.opener == 2


def test_calza_right_regains_a_die_and_the_caller_opens():
    state = start("perudo", [[2, 2, 1, 5, 5], [3, 3, 3], [6, 6, 6, 6, 6]], opener=0)
    state, events = play(state, (0, "bid", bid(3, 2)), (1, "exact", {}), rng=Dice())
    result = event(events, "round_finished")["round"]["result"]
    assert result["type"] == "exact" and result["gains"] == {"1": 1} and result["losses"] == {}
    assert event(events, "dice_gained") == {
        "type": "dice_gained",
        "seat": 1,
        "count": 1,
        "dice_left": 4,
    }
    assert state.dice_counts == (5, 4, 5) and state.round.opener == 1


def test_calza_right_never_above_five_dice():
    state = start("perudo", [[2, 2, 1, 5, 5], [3, 3, 3, 3, 3], [6, 6, 6, 6, 6]], opener=0)
    state, events = play(state, (0, "bid", bid(3, 2)), (1, "exact", {}), rng=Dice())
    assert event(events, "round_finished")["round"]["result"]["gains"] == {}
    assert not [e for e in events if e["type"] == "dice_gained"]
    assert state.dice_counts == (5, 5, 5)


def test_calza_wrong_costs_the_caller_one_die():
    state = start("perudo", [[2, 2, 1, 5, 5], [3, 3, 3], [6, 6, 6, 6, 6]], opener=0)
    state, events = play(state, (0, "bid", bid(2, 2)), (1, "exact", {}), rng=Dice())
    assert event(events, "round_finished")["round"]["result"]["losses"] == {"1": 1}
    assert state.dice_counts == (5, 2, 5) and state.round.opener == 1


def test_calza_and_palifico_can_be_turned_off():
    rules = rules_from_preset("perudo", {"exact_call": False, "palifico": False})
    state = start(rules, [[2, 2, 1, 5, 5], [3, 3], [6, 6, 6, 6, 6]], opener=0)
    state, _ = act(state, 0, "bid", **bid(3, 2))
    assert [a["type"] for a in legal_actions(state, 1)] == ["bid", "challenge"]
    state, events = act(state, 1, "challenge", rng=Dice())
    assert state.dice_counts == (5, 1, 5)
    assert not state.round.palifico and "palifico" not in event(events, "round_started")


# --- palifico ---------------------------------------------------------------------------


def test_first_drop_to_one_die_makes_the_next_round_palifico():
    state = start("perudo", [[3, 3, 3, 3, 3], [2, 2], [4, 4, 4, 4, 4]], opener=1)
    state, events = play(state, (1, "bid", bid(5, 6)), (2, "challenge", {}), rng=Dice())
    assert state.dice_counts == (5, 1, 5)
    assert event(events, "round_started")["palifico"] is True
    assert state.round.palifico and state.round.opener == 1  # the palifico player opens
    assert view_for(state, 0)["round"]["palifico"] is True
    assert view_for(state, None)["round"]["palifico"] is True
    # The finished round was not palifico; its record says nothing of it.
    assert "palifico" not in event(events, "round_finished")["round"]
    # Its record says so once the palifico round ends.
    state, events = play(state, (1, "bid", bid(1, 6)), (2, "challenge", {}), rng=Dice())
    assert event(events, "round_finished")["round"]["palifico"] is True
    assert view_for(state, 0)["last_round"]["palifico"] is True


def test_palifico_only_once_per_player():
    rules = rules_from_preset("perudo")
    state = start(rules, [[3, 3, 3, 3, 3], [2, 2], [4, 4, 4, 4, 4]], opener=1)
    state = replace(state, palifico_seats=(1,))  # seat 1 had its palifico earlier
    state, _ = play(state, (1, "bid", bid(5, 6)), (2, "challenge", {}), rng=Dice())
    assert state.dice_counts == (5, 1, 5) and not state.round.palifico
    assert view_for(state, 0)["round"]["palifico"] is False


def palifico_round(hands, opener=0):
    state = start("perudo", hands, opener=opener)
    return replace(state, round=replace(state.round, palifico=True))


def test_palifico_opening_may_be_on_aces_and_then_the_face_is_fixed():
    state = palifico_round([[1], [3, 1, 4], [5, 5]])
    assert set(mins(state, 0)) == {1, 2, 3, 4, 5, 6}
    state, _ = act(state, 0, "bid", **bid(1, 1))
    assert mins(state, 1) == {1: 2}
    refused(state, 1, 4, 3, "invalid_bid")
    state, _ = act(state, 1, "bid", **bid(2, 1))
    state, events = act(state, 2, "challenge", rng=Dice())
    assert event(events, "round_finished")["round"]["result"]["actual_count"] == 2


def test_palifico_face_lock_only_the_quantity_rises():
    state = palifico_round([[5], [3, 1, 4], [5, 5]])
    state, _ = act(state, 0, "bid", **bid(1, 5))
    assert mins(state, 1) == {5: 2}
    error = refused(state, 1, 2, 6, "invalid_bid")
    assert "fives" in error.detail and error.field == "face"
    refused(state, 1, 2, 1, "invalid_bid")  # not even to aces
    act(state, 1, "bid", **bid(3, 5))


def test_palifico_ones_are_not_wild():
    state = palifico_round([[3], [3, 1, 1], [5, 5]])
    state, _ = act(state, 0, "bid", **bid(2, 3))
    state, events = act(state, 1, "challenge", rng=Dice())
    result = event(events, "round_finished")["round"]["result"]
    assert result["actual_count"] == 2  # the two 3s; the aces do not count
    assert result["losses"] == {"1": 1}
    state = palifico_round([[3], [3, 1, 1], [5, 5]])
    state, _ = act(state, 0, "bid", **bid(3, 3))
    state, events = act(state, 1, "challenge", rng=Dice())
    assert event(events, "round_finished")["round"]["result"]["losses"] == {"0": 1}


def test_a_voided_palifico_round_is_played_again_as_palifico():
    state = palifico_round([[3], [3, 1, 1], [5, 5], [2, 2]])
    state, events = forfeit(state, 3, Dice())
    assert event(events, "round_voided")["round"]["palifico"] is True
    assert state.round.palifico
