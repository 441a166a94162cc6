"""Play many games with random legal play and summarise them (the `simulate` command)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..presets import rules_from_preset
from ..registry import engine_for
from .random_play import random_action


def simulate(
    ruleset: str,
    players: int,
    games: int,
    *,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    progress: Callable[[int], None] | None = None,
    max_actions: int = 100_000,
) -> dict[str, Any]:
    """Play `games` full games; return summary statistics (JSON-compatible).

    `progress(1)` is called after every game (the command passes tqdm's update).
    """
    rules = rules_from_preset(ruleset, options or {})
    engine = engine_for(rules)
    rng = random.Random(seed)
    rounds = actions = challenges = lost = 0
    wins = [0.0] * players
    losses_by_seat = [0] * players
    named_losers = False
    for _ in range(games):
        state, _events = engine.new_match(rules, players, rng)
        n = 0
        while not state.finished:
            state, events = engine.apply(state, random_action(state, rng), rng)
            n += 1
            if n > max_actions:
                raise RuntimeError("a game did not end")  # the property tests guard this
            for ev in events:
                if ev["type"] == "round_finished":
                    rounds += 1
                    challenges += 1
                    lost += sum(ev["round"]["result"]["losses"].values())
        actions += n
        # Shared wins count fractionally so that the rates add up to 1.
        for s in state.winners:
            wins[s] += 1 / len(state.winners)
        loser = engine.loser(state)
        if loser is not None:
            named_losers = True
            losses_by_seat[loser] += 1
        if progress is not None:
            progress(1)
    summary: dict[str, Any] = {
        "ruleset": ruleset,
        "options": rules.options(),
        "players": players,
        "games": games,
        "seed": seed,
        "rounds_per_game": rounds / games if games else 0.0,
        "actions_per_game": actions / games if games else 0.0,
        "win_rate_by_seat": {str(s): (w / games if games else 0.0) for s, w in enumerate(wins)},
    }
    summary[f"{rules.loss_unit}_lost_per_challenge"] = lost / challenges if challenges else 0.0
    if named_losers:
        summary["loss_rate_by_seat"] = {
            str(s): (n / games if games else 0.0) for s, n in enumerate(losses_by_seat)
        }
    return summary
