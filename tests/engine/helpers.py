"""Building states with chosen dice for the engine tests."""

from __future__ import annotations

from dataclasses import replace

from games.engine import Rules, ScriptedDice, State, apply, new_match, rules_from_preset


def start(rules: Rules | str, hands: list[list[int]], opener: int = 0, **overrides) -> State:
    """A match whose first round has exactly `hands` (seat by seat); `opener` opens.

    Hands may have different sizes (players who already lost dice).
    """
    if isinstance(rules, str):
        rules = rules_from_preset(rules, overrides)
    rules = replace(rules, first_opener="creator")
    n = len(hands)
    script = [1] * (n * rules.dice_per_player)
    state, _ = new_match(rules, n, ScriptedDice(script), opener_seat=opener)
    return with_hands(state, hands)


def with_hands(state: State, hands: list[list[int]]) -> State:
    """Replace the current round's dice (and the dice counts) with `hands`."""
    dice = tuple(tuple(h) for h in hands)
    counts = tuple(len(h) for h in hands)
    live = tuple(c > 0 for c in counts)
    rnd = replace(state.round, dice=dice, rolls=tuple(((d,) if d else ()) for d in dice))
    return replace(state, dice_counts=counts, live=live, round=rnd)


def act(state: State, seat: int, kind: str, rng=None, **fields):
    """Apply one action; `rng` defaults to a source that fails if any die is rolled."""
    return apply(state, {"seat": seat, "type": kind, **fields}, rng or ScriptedDice([]))


def play(state: State, *actions, rng=None):
    """Apply several (seat, type, fields) actions; returns (state, all events)."""
    events = []
    for seat, kind, fields in actions:
        state, ev = act(state, seat, kind, rng=rng, **fields)
        events.extend(ev)
    return state, events


def event(events: list[dict], kind: str) -> dict:
    found = [e for e in events if e["type"] == kind]
    assert len(found) == 1, (kind, events)
    return found[0]


def bid(q: int, f: int) -> dict:
    return {"quantity": q, "face": f}


class Dice:
    """Endless deterministic dice (cycles through values) for rounds after the tested one."""

    def __init__(self, values=(2, 3, 4, 5, 6, 1)):
        self.values = values
        self.i = 0

    def randint(self, a, b):
        v = self.values[self.i % len(self.values)]
        self.i += 1
        return min(max(v, a), b)
