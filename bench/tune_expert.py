"""Tune the expert's parameters per preset against the bots built to exploit it (issue 27).

A double oracle in parameter space, per preset, heads-up:
1. an exploiter (bench/exploiters.py) is tuned on the current expert by the exploit
   tuner's search and joins the population;
2. the expert's parameters are searched against the whole population: the previous expert
   (`hard`), `cautious` and every exploiter found so far. A candidate scores the mean of
   its shares plus its worst share (halved), so a candidate that one opponent reads well
   scores low however well it does against the others.
Every candidate plays the same deals (common random numbers). The search budget, seeds
and every improvement are printed; the result (JSON) goes into the expert's tables
(`PARAMS_BY_PRESET` in games/engine/bots/pool_expert.py, `TUNED` in poker_expert.py).
A search is in sample: the report that counts is bench/bots.py's, which tunes a fresh
exploiter on the result on other seeds and plays 2,000 games a cell.

Run: python bench/tune_expert.py --presets classic,perudo [--rounds 2] [--budget 24]
     [--games 250] [--exploit-budget 40] [--exploit-games 300] [--processes 2] [--seed 3]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.arena import tuned_expert_params
from bench.exploit_tuner import PRESETS, Match, Runner, search
from bench.exploiters import params_to_dict
from games.engine import rules_from_preset
from games.engine.poker_dice.rules import POKER_DICE

# The range searched for each parameter.
POOL_SPACE = {
    "first_bid_weight": (0.0, 2.5),
    "same_face_weight": (-0.5, 1.5),
    "new_face_weight": (-0.5, 1.5),
    "jump_weight": (-1.0, 1.5),
    "wild_share": (0.0, 1.0),
    "belief_cap": (1.5, 30.0),
    "open_confidence": (0.3, 0.9),
    "jump_confidence": (0.5, 0.95),
    "bluff_rate": (0.0, 0.5),
    "bluff_floor": (0.1, 0.6),
    "bluff_jump": (0.0, 1.0),
    "open_bluff": (0.0, 0.5),
    "sandbag": (0.0, 0.6),
    "call_margin": (-0.2, 0.2),
    "exact_bonus": (-0.1, 0.3),
}
POKER_SPACE = {
    "sandbag": (0.0, 0.8),
    "bluff_jump": (0.0, 0.95),
    "jump_lie": (0.05, 0.95),
    "min_truth": (0.05, 0.9),
    "caught_rate": (0.1, 1.0),
    "open_doubt": (0.0, 1.5),
}
BASELINES = ("hard", "cautious")


def expert_shares(
    runner: Runner, preset: str, expert: dict, population: list, games: int, seed: int
) -> list[float]:
    """The expert's heads-up share against each member: a strategy name or exploiter params."""
    shares = []
    for member in population:
        if isinstance(member, str):
            match = Match(preset, member, {}, 2, seed, hero_params=expert)
            shares.append(runner.wins(match, games) / games)
        else:
            match = Match(preset, "expert", member, 2, seed, target_params=expert)
            shares.append(1 - runner.wins(match, games) / games)
    return shares


def score(shares: list[float]) -> float:
    return (sum(shares) / len(shares) + min(shares)) / 2


def neighbour(space: dict, params: dict, scale: float, rng: random.Random) -> dict:
    """`params` with about half the coordinates moved by Gaussian steps."""
    moved = dict(params)
    for name, (low, high) in space.items():
        if rng.random() < 0.5:
            value = moved[name] + rng.gauss(0, scale * (high - low))
            moved[name] = round(min(high, max(low, value)), 3)
    return moved


def tune_preset(runner: Runner, preset: str, args: argparse.Namespace) -> dict:
    family = rules_from_preset(preset).family
    space = POKER_SPACE if family == POKER_DICE else POOL_SPACE
    expert = tuned_expert_params(preset)
    population: list = list(BASELINES)
    rng = random.Random(args.seed)
    t0 = time.perf_counter()

    def log(line: str) -> None:
        print(f"[{preset} {time.perf_counter() - t0:5.0f} s] {line}", flush=True)

    for round_ in range(args.rounds):
        found = search(
            runner,
            preset,
            "expert",
            args.exploit_budget,
            args.exploit_games,
            args.seed * 100 + round_,
            log=log,
            target_params=expert,
        )
        population.append(params_to_dict(found.params))
        log(f"round {round_}: exploiter scores {found.score:.3f} on the expert; searching")
        seed = args.seed * 100 + 50 + round_
        shares = expert_shares(runner, preset, expert, population, args.games, seed)
        best = score(shares)
        log(f"  start {best:.3f} {[round(s, 3) for s in shares]}")
        for i in range(args.budget):
            scale = 0.25 if i < args.budget // 2 else 0.1
            candidate = neighbour(space, expert, scale, rng)
            shares = expert_shares(runner, preset, candidate, population, args.games, seed)
            if score(shares) > best:
                best, expert = score(shares), candidate
                log(f"  candidate {i}: {best:.3f} {[round(s, 3) for s in shares]}")
    log(f"tuned: {json.dumps(expert)}")
    return expert


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--rounds", type=int, default=2, help="exploiters added per preset")
    parser.add_argument("--budget", type=int, default=24, help="expert candidates per round")
    parser.add_argument("--games", type=int, default=250, help="games per opponent")
    parser.add_argument("--exploit-budget", type=int, default=40)
    parser.add_argument("--exploit-games", type=int, default=300)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    print(
        f"double oracle: {args.rounds} rounds; exploiter search {args.exploit_budget} x "
        f"{args.exploit_games} games, expert search {args.budget} x {args.games} games per "
        f"opponent; seed {args.seed}; {args.processes} processes",
        flush=True,
    )
    runner = Runner(args.processes)
    try:
        results = {p: tune_preset(runner, p, args) for p in args.presets.split(",")}
    finally:
        runner.close()
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
