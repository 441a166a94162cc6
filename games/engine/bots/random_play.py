"""A random legal player over the full state: simulations, the benchmark, property tests.

(`view_play.random_choice` is its twin for the server's `random` bot, which sees only a
seat's view.)"""

from __future__ import annotations

import random

from ..poker_dice.hands import BID_HANDS, TOP_INDEX, bid_index
from ..registry import State, engine_of


def random_action(
    state: State, rng: random.Random, *, spread: int = 2, choices: list[dict] | None = None
) -> dict:
    """A uniformly chosen legal action type, with a bid a little above the minimum.

    `spread` bounds how far above the lowest legal bid the bot goes (uniform random
    quantities up to all the dice would make every game a string of certain losses).
    `choices` may pass in legal_actions(state, seat) when the caller already has it.
    """
    seat = state.round.turn
    if choices is None:
        choices = engine_of(state).legal_actions(state, seat)
    pick = rng.random  # one float per choice: randint costs ~10x more and bots run hot
    entry = choices[int(pick() * len(choices))]
    kind = entry["type"]
    action: dict = {"seat": seat, "type": kind}
    if kind == "bid":
        low_by_face = entry.get("min_quantity_by_face")
        if low_by_face is not None:
            faces = list(low_by_face)
            face = faces[int(pick() * len(faces))]
            top = entry["max_quantity"]  # every die in play
            action["quantity"] = min(top, low_by_face[face] + int(pick() * (spread + 1)))
            action["face"] = int(face)
            if entry.get("can_show") and pick() < 0.3:
                action["show"] = _subset(rng, len(state.round.dice[seat]), entry["max_show"])
        else:
            r = state.round
            start = 0 if r.bid is None else bid_index(r.bid) + 1
            i = min(TOP_INDEX, start + int(pick() * (8 * spread + 1)))
            action["hand"] = list(BID_HANDS[i])
            if entry["needs_direction"]:
                action["direction"] = "left" if pick() < 0.5 else "right"
    elif kind == "challenge" and "target_seats" in entry:
        targets = entry["target_seats"]
        action["target_seat"] = targets[int(pick() * len(targets))]
    elif kind == "show_reroll":
        action["show"] = _subset(rng, len(state.round.dice[seat]), entry["max_show"])
    elif kind == "reroll":
        required = entry.get("hold_required")
        action["hold"] = (
            required if required is not None else sorted(rng.sample(range(5), rng.randint(0, 5)))
        )
    return action


def _subset(rng: random.Random, size: int, most: int) -> list[int]:
    return sorted(rng.sample(range(size), rng.randint(1, most)))
