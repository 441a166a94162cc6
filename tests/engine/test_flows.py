"""Turn flow, passes, exact calls, forfeits, poker dice, views, malformed actions."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from games.engine import (
    IllegalAction,
    ScriptedDice,
    apply,
    current_seat,
    forfeit,
    is_over,
    legal_actions,
    new_match,
    rules_from_preset,
    state_from_json,
    view_for,
    winners,
)

from .helpers import Dice, act, bid, event, play, start

# --- seat order and elimination --------------------------------------------------------


def test_turn_skips_players_who_are_out():
    state = start("wild_ones", [[2, 2, 3], [], [4, 4, 4], [5, 5, 5]], opener=3)
    state, _ = act(state, 3, "bid", **bid(2, 2))
    assert current_seat(state) == 0
    state, _ = act(state, 0, "bid", **bid(3, 2))
    assert current_seat(state) == 2


def test_not_your_turn_and_out_players():
    state = start("wild_ones", [[2, 2, 3], [], [4, 4, 4]], opener=0)
    with pytest.raises(IllegalAction) as err:
        act(state, 2, "bid", **bid(1, 2))
    assert err.value.code == "not_your_turn"
    with pytest.raises(IllegalAction) as err:
        act(state, 1, "bid", **bid(1, 2))
    assert err.value.code == "illegal_action"
    assert legal_actions(state, 2) == [] and legal_actions(state, None) == []


def test_opener_who_is_out_is_skipped_challenge_winner():
    # seat 1 bids too high, seat 2 challenges and wins; seat 1 (one die) is out.
    state = start("milton_bradley", [[3, 3], [2], [4, 4]], opener=1)
    state, events = play(state, (1, "bid", bid(5, 6)), (2, "challenge", {}), rng=Dice())
    assert event(events, "player_out")["seat"] == 1
    assert state.round.opener == 2  # challenge winner


def test_round_loser_out_passes_to_next_live():
    state = start("wild_ones", [[3, 3], [2], [4, 4]], opener=1)
    state, _ = play(state, (1, "bid", bid(5, 6)), (2, "challenge", {}), rng=Dice())
    assert state.round.opener == 2


def test_challenger_opens_next_under_classic():
    state = start("classic", [[3, 3], [2, 2], [4, 4]], opener=0)
    state, _ = play(state, (0, "bid", bid(1, 3)), (1, "challenge", {}), rng=Dice())
    assert state.dice_counts == (2, 1, 2)  # bid held: challenger loses one
    assert state.round.opener == 1


def test_loss_capped_at_dice_held_and_match_finishes():
    state = start("milton_bradley", [[3, 3], [2]], opener=0)
    state, events = play(state, (0, "bid", bid(3, 6)), (1, "challenge", {}), rng=Dice())
    assert event(events, "dice_lost") == {
        "type": "dice_lost",
        "seat": 0,
        "count": 2,
        "dice_left": 0,
    }
    finished = event(events, "match_finished")
    assert finished["winner_seats"] == [1]
    assert finished["elimination_order"] == [0]
    assert finished["placements"] == {"1": 1, "0": 2}
    assert is_over(state) and winners(state) == [1] and current_seat(state) is None
    with pytest.raises(IllegalAction) as err:
        act(state, 1, "bid", **bid(1, 2))
    assert err.value.code == "match_over"


def test_bid_above_dice_in_play_rejected():
    state = start("milton_bradley", [[3, 3], [2]], opener=0)
    with pytest.raises(IllegalAction) as err:
        act(state, 0, "bid", **bid(4, 6))
    assert err.value.code == "invalid_bid" and "only 3 dice" in err.value.detail


def test_forbidden_ones():
    state = start("milton_bradley", [[3, 3], [2]], opener=0, ones_bids="forbidden")
    assert "1" not in legal_actions(state, 0)[0]["min_quantity_by_face"]
    with pytest.raises(IllegalAction) as err:
        act(state, 0, "bid", **bid(1, 1))
    assert err.value.code == "invalid_bid"


# --- exact calls -----------------------------------------------------------------------


def test_exact_right_regains_a_die_never_above_maximum():
    hands = [[4, 4, 1], [4, 2, 2, 3], [5, 5, 5, 5, 5]]
    state = start("classic", hands, exact_call=True, ones_wild=False)
    state, _ = act(state, 0, "bid", **bid(3, 4))
    assert {"type": "exact"} in legal_actions(state, 1)
    s2, events = act(state, 1, "exact", rng=Dice())
    result = event(events, "round_finished")["round"]["result"]
    assert result["type"] == "exact" and result["gains"] == {"1": 1} and result["losses"] == {}
    assert result["winner_seat"] == 1
    assert s2.dice_counts == (3, 5, 5)
    assert event(events, "dice_gained")["dice_left"] == 5
    assert s2.round.opener == 1  # classic: the caller counts as the challenger
    # At the maximum already: right, but nothing to regain.
    state, _ = act(state, 1, "bid", **bid(5, 5))
    s3, events = act(state, 2, "exact", rng=Dice())
    result = event(events, "round_finished")["round"]["result"]
    assert result["gains"] == {} and s3.dice_counts == (3, 4, 5)


def test_exact_wrong_caller_loses_one():
    state = start("classic", [[4, 4, 1], [4, 2, 2, 3]], exact_call=True)
    state, _ = act(state, 0, "bid", **bid(2, 4))
    state, events = act(state, 1, "exact", rng=Dice())
    result = event(events, "round_finished")["round"]["result"]
    assert result["losses"] == {"1": 1} and result["winner_seat"] == 0


def test_exact_not_enabled():
    state = start("classic", [[4, 4, 1], [4, 2, 2, 3]])
    state, _ = act(state, 0, "bid", **bid(2, 4))
    assert all(a["type"] != "exact" for a in legal_actions(state, 1))
    with pytest.raises(IllegalAction) as err:
        act(state, 1, "exact")
    assert err.value.code == "illegal_action"


# --- passes ----------------------------------------------------------------------------


def _pass_game(hands):
    return start("classic", hands, pass_call=True)


def test_opener_may_not_pass_and_pass_once_per_round():
    state = _pass_game([[2, 3], [4, 5], [6, 6]])
    assert [a["type"] for a in legal_actions(state, 0)] == ["bid"]
    with pytest.raises(IllegalAction):
        act(state, 0, "pass")
    state, _ = play(state, (0, "bid", bid(1, 2)), (1, "pass", {}), (2, "bid", bid(1, 3)))
    assert "pass" in [a["type"] for a in legal_actions(state, 0)]
    assert "pass" not in [a["type"] for a in legal_actions(act(state, 0, "bid", **bid(1, 4))[0], 1)]


def test_challenge_target_choice_after_passes():
    state = _pass_game([[2, 3], [4, 5], [6, 6], [1, 2]])
    state, _ = play(state, (0, "bid", bid(2, 2)), (1, "pass", {}), (2, "pass", {}))
    challenge = next(a for a in legal_actions(state, 3) if a["type"] == "challenge")
    assert challenge["target_seats"] == [0, 1, 2]
    with pytest.raises(IllegalAction):
        act(state, 3, "challenge", target_seat=3)
    # Seat 2 passed holding 6, 6: two alike, so the passer loses one die.
    _s2, events = act(state, 3, "challenge", rng=Dice(), target_seat=2)
    result = event(events, "round_finished")["round"]["result"]
    assert result["type"] == "pass_challenge" and result["target_seat"] == 2
    assert result["losses"] == {"2": 1} and result["winner_seat"] == 3
    # Seat 1 passed holding 4, 5: no pair, so the challenger loses one die.
    _s3, events = act(state, 3, "challenge", rng=Dice(), target_seat=1)
    result = event(events, "round_finished")["round"]["result"]
    assert result["losses"] == {"3": 1} and result["winner_seat"] == 1
    # Default target is the last bidder.
    _s4, events = act(state, 3, "challenge", rng=Dice())
    assert event(events, "challenge")["target_seat"] == 0


def test_ones_are_not_wild_for_a_pass_challenge():
    state = start("milton_bradley", [[2, 3], [1, 5], [4, 6]], pass_call=True, show_and_reroll="off")
    state, _ = play(state, (0, "bid", bid(1, 2)), (1, "pass", {}))
    state, events = act(state, 2, "challenge", rng=Dice(), target_seat=1)
    assert event(events, "round_finished")["round"]["result"]["losses"] == {"2": 1}


def test_turn_returns_to_bidder_after_everyone_passed():
    state = _pass_game([[2, 3], [4, 5]])
    state, _ = play(state, (0, "bid", bid(1, 2)), (1, "pass", {}))
    assert current_seat(state) == 0
    types = {a["type"]: a for a in legal_actions(state, 0)}
    assert set(types) == {"bid", "challenge"}
    assert types["challenge"]["target_seats"] == [1]
    state, events = act(state, 0, "challenge", rng=Dice())
    assert event(events, "challenge")["target_seat"] == 1


def test_challenge_with_nobody_to_challenge_is_an_illegal_action():
    # Not reachable by play (the turn only returns to the bidder after passes); a stored
    # state where it is the bidder's turn and nobody passed must still fail cleanly.
    state, _ = act(_pass_game([[2, 3], [4, 5], [6, 6]]), 0, "bid", **bid(1, 2))
    state = replace(state, round=replace(state.round, turn=0))
    assert [a["type"] for a in legal_actions(state, 0)] == ["bid"]
    for fields in ({}, {"target_seat": 1}):
        with pytest.raises(IllegalAction) as err:
            act(state, 0, "challenge", **fields)
        assert err.value.code == "illegal_action"
        assert err.value.detail == (
            "there is nobody to challenge: the standing bid is yours and nobody has passed"
        )


# --- forfeits --------------------------------------------------------------------------


def test_forfeit_voids_round_and_starts_new_one():
    state = start("milton_bradley", [[2, 3, 4], [4, 5, 6], [6, 6, 1]], opener=0)
    state, _ = act(state, 0, "bid", **bid(2, 2))
    state, events = forfeit(state, 2, Dice())
    types = [e["type"] for e in events]
    assert types == ["round_voided", "player_out", "round_started"]
    assert events[0]["number"] == 1 and events[0]["round"]["result"] is None
    assert state.round.number == 2 and state.round.opener == 0
    assert state.dice_counts == (3, 3, 0) and not state.live[2]
    state, events = forfeit(state, 0, Dice())
    finished = event(events, "match_finished")
    assert finished["winner_seats"] == [1] and finished["elimination_order"] == [2, 0]
    assert finished["placements"] == {"1": 1, "0": 2, "2": 3}


def test_forfeit_by_out_seat_rejected_and_never_listed():
    state = start("milton_bradley", [[2, 3], [], [6, 6]], opener=0)
    assert all(a["type"] != "forfeit" for a in legal_actions(state, 0))
    with pytest.raises(IllegalAction):
        forfeit(state, 1, Dice())


@pytest.mark.parametrize("preset", ["milton_bradley", "poker_dice"])
def test_forfeit_is_not_an_action(preset):
    """Only the server forfeits a seat (timeouts, bans): a player's action cannot."""
    state, _ = new_match(rules_from_preset(preset), 3, random.Random(1))
    with pytest.raises(IllegalAction) as err:
        act(state, current_seat(state), "forfeit")
    assert err.value.code == "validation_error" and err.value.field == "type"


def test_poker_forfeit_loses_the_match():
    state, _ = new_match(rules_from_preset("poker_dice"), 3, ScriptedDice([1] * 5), opener_seat=0)
    state, events = forfeit(state, 1, ScriptedDice([]))
    finished = event(events, "match_finished")
    assert finished["loser_seat"] == 1 and finished["winner_seats"] == [0, 2]
    assert state.finished and state.loser == 1


# --- poker dice ------------------------------------------------------------------------


def _poker(box, n=3, opener=0):
    return new_match(rules_from_preset("poker_dice"), n, ScriptedDice(box), opener_seat=opener)[0]


def test_poker_round_flow_and_direction():
    state = _poker([3, 3, 3, 3, 2])  # J J J J 10
    assert legal_actions(state, 0) == [
        {"type": "bid", "min_hand": ["junk"], "needs_direction": True}
    ]
    with pytest.raises(IllegalAction) as err:
        act(state, 0, "bid", hand=["J", "J", None, None, None])
    assert err.value.field == "direction"
    state, _ = act(state, 0, "bid", hand=["J", "J", "J", None, None], direction="right")
    assert current_seat(state) == 2
    assert legal_actions(state, 2) == [{"type": "accept"}, {"type": "challenge"}]
    state, _ = act(state, 2, "accept")
    assert legal_actions(state, 2) == [{"type": "reroll", "max_hold": 5}]
    with pytest.raises(IllegalAction):
        act(state, 2, "bid", hand=["A", "A", "A", "A", "A"])
    state, events = act(state, 2, "reroll", rng=ScriptedDice([6]), hold=[0, 1, 2, 3])
    assert events == [{"type": "reroll", "seat": 2, "rerolled": 1}]
    assert state.round.box == (2, 2, 2, 2, 5)  # the 10 became an ace
    entry = legal_actions(state, 2)[0]
    assert entry["min_hand"] == ["J", "J", "J", "9", None] and entry["needs_direction"] is False
    with pytest.raises(IllegalAction) as err:
        act(state, 2, "bid", hand=["junk"])
    assert err.value.code == "invalid_bid"
    with pytest.raises(IllegalAction):
        act(state, 2, "bid", hand=["J", "J", "J", "J", None], direction="left")
    state, _ = act(state, 2, "bid", hand=["J", "J", "J", "J", "A"])
    assert current_seat(state) == 1
    # Truthful bid: the challenger loses a life and is player one next round.
    state, events = act(state, 1, "challenge", rng=ScriptedDice([1] * 5))
    rec = event(events, "round_finished")["round"]
    assert rec["dice"] == {"box": ["J", "J", "J", "J", "A"]} and rec["shelf"] == [0, 1, 2, 3]
    assert rec["result"]["losses"] == {"1": 1} and rec["result"]["winner_seat"] == 2
    assert rec["result"]["bid"] == {"hand": ["J", "J", "J", "J", "A"]}
    assert state.lives == (3, 2, 3) and state.round.player_one == 1


def test_poker_junk_opening_and_lie_loses_life():
    state = _poker([1, 2, 3, 4, 6], n=2)  # 9 10 J Q A
    assert legal_actions(state, 0)[0]["needs_direction"] is False
    state, _ = act(state, 0, "bid", hand=["junk"])
    assert state.round.direction == 1
    state, _ = act(state, 1, "accept")
    state, _ = act(state, 1, "reroll", rng=ScriptedDice([]), hold=[0, 1, 2, 3, 4])
    state, _ = act(state, 1, "bid", hand=["A", "A", None, None, None])
    state, events = act(state, 0, "challenge", rng=ScriptedDice([1] * 5))
    assert event(events, "round_finished")["round"]["result"]["losses"] == {"1": 1}


def test_poker_player_one_reshakes_without_touching_the_shelf_when_the_box_comes_back():
    # RULES 2: player one may not touch the dice again; on the box's return they may
    # accept and re-shake, but the shelf stays exactly as the last player left it.
    state = _poker([1, 1, 2, 2, 3], n=2)  # 9 9 10 10 J
    state, _ = act(state, 0, "bid", hand=["10", "10", "9", "9", None])
    state, _ = act(state, 1, "accept")
    state, _ = act(state, 1, "reroll", rng=ScriptedDice([6]), hold=[0, 1, 2, 3])
    state, _ = act(state, 1, "bid", hand=["10", "10", "9", "9", "A"])
    assert current_seat(state) == 0 and state.round.player_one == 0
    assert legal_actions(state, 0) == [{"type": "accept"}, {"type": "challenge"}]
    state, _ = act(state, 0, "accept")
    assert view_for(state, 0)["round"]["your_dice"] == ["9", "9", "10", "10", "A"]
    assert legal_actions(state, 0) == [
        {"type": "reroll", "max_hold": 5, "hold_required": [0, 1, 2, 3]}
    ]
    for hold in ([2, 3], [0, 1, 2, 3, 4], []):
        with pytest.raises(IllegalAction) as error:
            act(state, 0, "reroll", rng=ScriptedDice([6] * 5), hold=hold)
        assert error.value.code == "illegal_action" and "shelf (0, 1, 2, 3)" in str(error.value)
    state, events = act(state, 0, "reroll", rng=ScriptedDice([6]), hold=[3, 2, 1, 0])
    assert events == [{"type": "reroll", "seat": 0, "rerolled": 1}]
    assert state.round.box == (0, 0, 1, 1, 5)  # 9 9 10 10 A: the shelf kept, one die shaken
    state, _ = act(state, 0, "bid", hand=["J", "J", "9", "9", None])
    assert state.round.bidder == 0 and current_seat(state) == 1


def test_poker_last_life_loses_match():
    rules = rules_from_preset("poker_dice", {"lives": 1})
    state, _ = new_match(rules, 3, ScriptedDice([1] * 5), opener_seat=0)
    state, _ = act(state, 0, "bid", hand=["A", "A", "A", "A", "A"], direction="left")
    assert legal_actions(state, 1) == [{"type": "challenge"}]  # nothing beats five aces
    with pytest.raises(IllegalAction):
        act(state, 1, "accept")
    state, events = act(state, 1, "challenge")
    finished = event(events, "match_finished")
    assert finished["loser_seat"] == 0 and finished["winner_seats"] == [1, 2]
    assert finished["placements"] == {"1": 1, "2": 1, "0": 3}


def test_poker_view_only_box_holder_sees_box():
    state = _poker([3, 3, 3, 3, 2])
    assert view_for(state, 0)["round"]["your_dice"] == ["J", "J", "J", "J", "10"]
    assert view_for(state, 0)["round"]["your_hand"] == "four jacks and a 10"
    for seat in (1, 2, None):
        assert "box" not in view_for(state, seat)["round"]
        assert view_for(state, seat)["round"]["your_hand"] is None
    state, _ = act(state, 0, "bid", hand=["J", "J", None, None, None], direction="left")
    for seat in (0, 1, 2, None):
        assert "box" not in view_for(state, seat)["round"]
    assert view_for(state, 0)["round"]["your_hand"] is None  # the box has left player one
    state, _ = act(state, 1, "accept")
    assert view_for(state, 1)["round"]["your_dice"] == ["J", "J", "J", "J", "10"]
    assert view_for(state, 1)["round"]["your_hand"] == "four jacks and a 10"
    assert "box" not in view_for(state, 0)["round"]


# --- views -----------------------------------------------------------------------------


def test_view_hides_other_dice_and_shows_shown_dice():
    hands = [[6, 6, 6, 2, 3], [6, 1, 4, 4], [6, 6, 1, 5, 5]]
    state = start("milton_bradley", hands)
    state, _ = act(state, 0, "bid", **bid(10, 6))
    state, _ = act(state, 1, "show_reroll", rng=Dice((3, 2)), show=[0, 1])
    v1 = view_for(state, 1)
    assert v1["round"]["your_dice"] == [3, 2]
    assert v1["round"]["shown_dice"] == {"1": [6, 1]}
    v0 = view_for(state, 0)
    assert v0["round"]["your_dice"] == [6, 6, 6, 2, 3]
    assert view_for(state, None)["round"]["your_dice"] is None
    text = json.dumps(view_for(state, None))
    assert "[3, 2]" not in text and "[6, 6, 6, 2, 3]" not in text
    assert v0["seats"][1] == {"seat": 1, "status": "playing", "dice_count": 4}


def test_finished_round_is_public():
    state = start("milton_bradley", [[2, 3, 4], [4, 5, 6]], opener=0)
    state, _ = play(state, (0, "bid", bid(1, 2)), (1, "challenge", {}), rng=Dice())
    assert view_for(state, None)["last_round"]["dice"] == {"0": [2, 3, 4], "1": [4, 5, 6]}


# --- malformed actions -----------------------------------------------------------------

BAD_ACTIONS = [
    None,
    [],
    "bid",
    {},
    {"type": "bid"},
    {"seat": "0", "type": "bid", "quantity": 1, "face": 2},
    {"seat": True, "type": "bid", "quantity": 1, "face": 2},
    {"seat": 9, "type": "bid", "quantity": 1, "face": 2},
    {"seat": -1, "type": "bid", "quantity": 1, "face": 2},
    {"seat": 0, "type": 5},
    {"seat": 0, "type": "dance"},
    {"seat": 0, "type": "bid"},
    {"seat": 0, "type": "bid", "quantity": True, "face": 2},
    {"seat": 0, "type": "bid", "quantity": 1.0, "face": 2},
    {"seat": 0, "type": "bid", "quantity": 1, "face": 7},
    {"seat": 0, "type": "bid", "quantity": 1, "face": 0},
    {"seat": 0, "type": "bid", "quantity": 0, "face": 2},
    {"seat": 0, "type": "bid", "quantity": -3, "face": 2},
    {"seat": 0, "type": "bid", "quantity": "2", "face": 2},
    {"seat": 0, "type": "bid", "quantity": 2, "face": 2, "show": [0]},
    {"seat": 0, "type": "challenge"},
    {"seat": 0, "type": "accept"},
    {"seat": 0, "type": "reroll", "hold": [0]},
    {"seat": 0, "type": "show_reroll", "show": "0"},
    {"seat": 0, "type": "exact"},
    {"seat": 0, "type": "pass"},
]


@pytest.mark.parametrize("action", BAD_ACTIONS)
def test_malformed_actions_raise_illegal_action(action):
    state = start("milton_bradley", [[2, 3, 4], [4, 5, 6]], opener=0)
    before = state.to_json()
    with pytest.raises(IllegalAction):
        apply(state, action, ScriptedDice([]))
    assert state.to_json() == before


@pytest.mark.parametrize(
    "extra",
    [
        {"show": [0, 0]},
        {"show": [5]},
        {"show": [True]},
        {"show": [0, 1, 2]},
        {"show": None},
        {"show": {}},
        {"show": [-1]},
    ],
)
def test_malformed_show_reroll(extra):
    state = start("milton_bradley", [[2, 3, 4], [4, 5, 6]], opener=0)
    state, _ = act(state, 0, "bid", **bid(1, 2))
    with pytest.raises(IllegalAction):
        apply(state, {"seat": 1, "type": "show_reroll", **extra}, ScriptedDice([1, 1, 1]))


@pytest.mark.parametrize(
    "action",
    [
        {"type": "bid", "hand": "AAAAA"},
        {"type": "bid", "hand": ["A", "A"], "direction": "left"},
        {"type": "bid", "hand": ["A"] * 5, "direction": "up"},
        {"type": "bid", "hand": ["A"] * 5, "direction": 1},
        {"type": "bid", "quantity": 1, "face": 2},
        {"type": "reroll", "hold": [0]},
        {"type": "challenge"},
        {"type": "accept"},
        {"type": "exact"},
    ],
)
def test_malformed_poker_actions(action):
    state = _poker([1, 2, 3, 4, 5])
    with pytest.raises(IllegalAction):
        apply(state, {"seat": 0, **action}, ScriptedDice([]))


def test_state_json_round_trip_is_plain_json():
    rng = random.Random(5)
    state, _ = new_match(rules_from_preset("milton_bradley"), 4, rng)
    data = json.loads(json.dumps(state.to_json()))
    assert state_from_json(data) == state


def test_events_and_views_do_not_share_objects_with_the_state():
    hands = [[6, 6, 6, 2, 3], [6, 1, 4, 4], [6, 6, 1, 5, 5]]
    state = start("milton_bradley", hands, show_and_reroll="before_raise")
    state, _ = act(state, 0, "bid", **bid(10, 6))
    state, events = act(state, 1, "bid", rng=Dice((6, 6)), show=[0, 1], **bid(11, 6))
    before = json.dumps(state.to_json(), sort_keys=True)
    events[0]["shown"].append(99)
    view = view_for(state, 1)
    view["round"]["actions"][1]["shown"].append(99)
    state2, events = act(state, 2, "challenge", rng=Dice())
    assert json.dumps(state.to_json(), sort_keys=True) == before
    after = json.dumps(state2.to_json(), sort_keys=True)
    event(events, "round_finished")["round"]["result"]["chips"] = []
    view_for(state2, None)["last_round"]["dice"]["0"].append(7)
    assert json.dumps(state2.to_json(), sort_keys=True) == after


@pytest.mark.parametrize("preset", ["milton_bradley", "poker_dice"])
def test_states_stored_before_the_family_packages_still_load(preset):
    """Rows written when one State carried both families' fields (and a round `kind`)."""
    state, _ = new_match(rules_from_preset(preset), 3, random.Random(4))
    old = json.loads(json.dumps(state.to_json()))
    old.setdefault("dice_counts", [])
    old.setdefault("lives", [])
    old.setdefault("loser", -1)
    old["round"]["kind"] = "poker" if preset == "poker_dice" else "pool"
    assert state_from_json(old) == state
