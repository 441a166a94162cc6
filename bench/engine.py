"""Engine benchmark: full games per CPU-second with random legal play, one core, no Django.

Run: python bench/engine.py [--games N] [--players N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import (
    PRESETS,
    apply,
    current_seat,
    legal_actions,
    new_match,
    random_action,
)


def run_plain(rules, players: int, games: int, seed: int) -> float:
    """Games per second for the whole loop: legal_actions, the bot's choice, apply."""
    rng = random.Random(seed)
    start = time.process_time()
    for _ in range(games):
        state, _ = new_match(rules, players, rng)
        while not state.finished:
            choices = legal_actions(state, current_seat(state))
            state, _ = apply(state, random_action(state, rng, choices=choices), rng)
    return games / (time.process_time() - start)


def run_timed(rules, players: int, games: int, seed: int) -> tuple[float, float, float]:
    """Microseconds per apply and per legal_actions, and actions per game."""
    rng = random.Random(seed)
    clock = time.process_time  # CPU time: steadier than wall time on a shared host
    t_apply = t_legal = 0.0
    n_apply = n_legal = 0
    for _ in range(games):
        state, _ = new_match(rules, players, rng)
        while not state.finished:
            seat = current_seat(state)
            t0 = clock()
            choices = legal_actions(state, seat)
            t1 = clock()
            action = random_action(state, rng, choices=choices)
            t2 = clock()
            state, _ = apply(state, action, rng)
            t3 = clock()
            t_legal += t1 - t0
            t_apply += t3 - t2
            n_legal += 1
            n_apply += 1
    return 1e6 * t_apply / n_apply, 1e6 * t_legal / n_legal, n_apply / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (noisy hosts)")
    args = parser.parse_args()
    print(
        f"{args.players} players, {args.games} games per preset, random legal play, one core, "
        f"best of {args.repeat}"
    )
    print(f"{'preset':16} {'games/s':>9} {'us/apply':>9} {'us/legal':>9} {'actions/game':>13}")
    for name, rules in PRESETS.items():
        run_plain(rules, args.players, max(10, args.games // 10), args.seed)  # warm caches
        gps = max(run_plain(rules, args.players, args.games, args.seed) for _ in range(args.repeat))
        timed = [run_timed(rules, args.players, args.games, args.seed) for _ in range(args.repeat)]
        us_apply = min(t[0] for t in timed)
        us_legal = min(t[1] for t in timed)
        apg = timed[0][2]
        print(f"{name:16} {gps:9.0f} {us_apply:9.1f} {us_legal:9.1f} {apg:13.1f}")


if __name__ == "__main__":
    main()
