"""What no reader may see of a match in play, and the check that a response shows none
of it: the hidden-dice tests' and the spectator's browser test's."""

from collections import Counter
from typing import NamedTuple

from games import engine
from games.models import Match

# Lists under these keys are seat numbers, die indexes or claims, not dice anyone holds.
NOT_DICE = {
    "show",
    "hold",
    "shelf",
    "target_seats",
    "winner_seats",
    "passed",
    "elimination_order",
    "seats",
    "losses",
    "gains",
    "hand",  # a poker bid: what the bidder claims
    "min_hand",
}
# Finished rounds are public: every die in them has been revealed.
REVEALED = {"last_round", "rounds", "round_finished", "round_voided"}


def _dice_lists(node, path=(), revealed=False):
    """(path, list) for every list of dice-like values (ints, poker ranks) outside the
    finished rounds."""
    if revealed:
        return
    if isinstance(node, dict):
        inner = node.get("type") in REVEALED
        for k, v in node.items():
            yield from _dice_lists(v, (*path, k), inner or k in REVEALED)
    elif isinstance(node, list):
        if node and all(type(x) in (int, str) for x in node):
            if path[-1] not in NOT_DICE:
                yield path, node
        else:
            for item in node:
                yield from _dice_lists(item, path)


def _contains(values: list, dice: list) -> bool:
    """Whether every die of `dice` is among `values` (in any order, among others)."""
    return not Counter(map(str, dice)) - Counter(map(str, values))


class Hidden(NamedTuple):
    cups: dict[int, list[int]]  # common pool: what each live seat has in its cup
    shown: dict[int, list[int]]  # common pool: the dice each seat shows face up
    box: list[str] | None  # poker: the dice in the box
    box_holder: int | None  # poker: the one seat that may look into it now
    salts: list[str]


def hidden_now(match: Match) -> Hidden:
    state = engine.state_from_json(match.state)
    r = state.round
    salts = list((match.secrets or {}).get("salts", {}).values())
    if r is None:
        return Hidden({}, {}, None, None, salts)
    if state.rules.family == "poker_dice":
        box = engine.held_dice(state)["box"]["box"]
        holder = r.turn if r.phase in ("bid", "reroll") else None
        return Hidden({}, {}, box, holder, salts)
    live = [s for s in range(state.n_players) if state.live[s]]
    cups = {s: list(r.dice[s]) for s in live}
    shown = {s: list(r.shown[s]) for s in live if r.shown[s]}
    return Hidden(cups, shown, None, None, salts)


def assert_nothing_hidden(body, hidden: Hidden, viewer: int | None, where) -> None:
    """Nothing in `body` (for `viewer`; None = spectator) shows dice it may not see."""
    for path, values in _dice_lists(body):
        if path[-1] == "your_dice":  # the viewer's own cup, or the box it holds
            if hidden.box is not None:
                assert viewer == hidden.box_holder and values == hidden.box, (where, path)
            else:
                assert viewer is not None and values == hidden.cups[viewer], (where, path)
            continue
        if "shown_dice" in path:  # public: exactly what that seat shows
            assert values == hidden.shown.get(int(path[-1])), (where, path)
            continue
        if path[-1] == "shown":  # dice an action put face up: public from then on
            continue
        # Anything else may not hold another seat's cup (as a whole, reordered, or among
        # other values) nor the box.
        for seat, cup in hidden.cups.items():
            if seat != viewer and len(cup) >= 2:
                assert not _contains(values, cup), (where, path, seat)
        if hidden.box is not None:
            assert not _contains(values, hidden.box), (where, path)
