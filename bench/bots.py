"""Bot tournament benchmark: engine only (no Django, no database), multiprocessing.

For every preset, table size and pairing "A vs B", seats alternate A, B, A, B, ... and
the benchmark reports A's win rate with a 95% confidence interval (Wilson). A "win" for
A is a game won by an A seat (common pool: the last player with dice; poker dice: the
jug is bought by a B seat), so 50% means equal strength at every table size. Then it
times the bots' decisions at 8 players of 5 dice (p50 / p99).

Run: python bench/bots.py [--games 10000] [--quick] [--processes 2] [--seed 1]

`--ladder` plays each level against the one below it, heads-up in all six presets: each
must win more than half, its whole interval above 50%.

`--report` is issue 27's table, per preset: `expert`'s heads-up share against an
exploiter tuned on it now (budget and seeds printed) and that exploiter's share alone at
a table of 3 experts, then `expert` against the previous expert (`hard`) and against
`cautious`, heads-up and alone at a table of 3 of them, all out of sample, e.g.
    python bench/bots.py --report --games 2000 --search-budget 60 --processes 2

With `--exploit TARGET` it only tunes an exploiter on TARGET per preset (or loads the
saved one with `--tuned`) and prints TARGET's heads-up share and the exploiter's 4-seat
share out of sample (bench/exploit_tuner.py), e.g.
    python bench/bots.py --exploit expert --presets classic,perudo --games 2000 \
        --search-budget 60 --processes 1
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import arena, exploit_tuner
from bench.arena import wilson
from games.engine import rules_from_preset
from games.engine.bots import LEVELS, STRATEGIES, Strategy

PRESETS = ("milton_bradley", "classic", "perudo", "poker_dice")
PLAYERS = (2, 4, 6)
PAIRINGS = (("expert", "cautious"), ("cautious", "random"), ("expert", "random"))
GOALS = {("expert", "cautious", 2): 0.60, ("cautious", "random", 2): 0.85}
# Each level against the one below it (bots.LEVELS, weakest first).
LADDER = tuple(zip(LEVELS[1:], LEVELS[:-1], strict=True))
CHUNK = 250  # games per task sent to a worker


def play(
    rules, seats: list[str | Strategy], rng: random.Random, timings: dict | None = None
) -> tuple[list[int], int | None]:
    """Play one game; a seat is a name in STRATEGIES or any Strategy callable.

    Returns (the seats that won, the seat that lost when the family names one); `timings`
    collects decision times per strategy name (a callable's function name).
    """
    strategies = [STRATEGIES[s] if isinstance(s, str) else s for s in seats]
    labels = [s if isinstance(s, str) else s.__name__ for s in seats]
    return arena.play(rules, strategies, rng, timings, labels=labels)


def _seats(a: str, b: str, players: int, flip: bool) -> list[str]:
    pair = (b, a) if flip else (a, b)
    return [pair[i % 2] for i in range(players)]


def run_chunk(task: tuple[str, int, str, str, int, int]) -> tuple[tuple, int, int, float]:
    """Play `games` games of one configuration; return (config, A wins, games, seconds)."""
    preset, players, a, b, games, seed = task
    rules = rules_from_preset(preset)
    rng = random.Random(seed)
    wins = 0
    start = time.perf_counter()
    for g in range(games):
        names = _seats(a, b, players, flip=bool(g % 2))
        winners, lost = play(rules, names, rng)
        if lost is not None:
            wins += names[lost] == b
        else:
            wins += names[winners[0]] == a
    return (preset, players, a, b), wins, games, time.perf_counter() - start


def tournament(
    games: int, processes: int, seed: int, presets, players_list, pairings, progress=None
) -> dict:
    """Play every configuration over `processes` workers; `progress(config, acc)` per finish."""
    tasks = []
    for preset in presets:
        for players in players_list:
            for a, b in pairings:
                for i, start in enumerate(range(0, games, CHUNK)):
                    n = min(CHUNK, games - start)
                    tasks.append((preset, players, a, b, n, seed * 1_000_003 + len(tasks) + i))
    totals: dict[tuple, list[float]] = {}
    with multiprocessing.Pool(processes) as pool:
        for config, wins, n, secs in pool.imap_unordered(run_chunk, tasks):
            acc = totals.setdefault(config, [0, 0, 0.0])
            acc[0] += wins
            acc[1] += n
            acc[2] += secs
            if progress is not None and acc[1] == games:
                progress(config, acc)
    return totals


def decision_times(games: int, seed: int) -> dict[tuple[str, str], list[float]]:
    """Decision times per (preset, strategy) at 8 players of 5 dice, mixed tables."""
    rng = random.Random(seed)
    out: dict[tuple[str, str], list[float]] = {}
    names = ["expert", "hard", "medium", "easy", "expert", "hard", "random", "expert"]
    for preset in exploit_tuner.PRESETS:
        rules = rules_from_preset(preset)
        timings: dict[str, list[float]] = {}
        for _ in range(games):
            rng.shuffle(names)
            play(rules, names, rng, timings)
        for name, ts in timings.items():
            out[(preset, name)] = ts
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="games per pairing")
    parser.add_argument("--quick", action="store_true", help="500 games per pairing")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--presets", help=f"default {','.join(PRESETS)} (--exploit: all six)")
    parser.add_argument("--players", default=",".join(map(str, PLAYERS)))
    parser.add_argument(
        "--pairings", default=",".join(f"{a}:{b}" for a, b in PAIRINGS), help="A:B,..."
    )
    parser.add_argument("--timing-games", type=int, default=30)
    parser.add_argument("--exploit", choices=sorted(STRATEGIES), help="tune exploiters on it")
    parser.add_argument("--report", action="store_true", help="issue 27's table for expert")
    parser.add_argument("--ladder", action="store_true", help="each level vs the one below")
    exploit_tuner.add_arguments(parser)
    args = parser.parse_args()
    if args.exploit:
        exploit(args)
        return
    if args.report:
        report(args)
        return
    games = 500 if args.quick else args.games
    presets = args.presets.split(",") if args.presets else PRESETS
    players_list = [int(p) for p in args.players.split(",")]
    pairings = [tuple(p.split(":")) for p in args.pairings.split(",")]
    if args.ladder:
        presets = args.presets.split(",") if args.presets else exploit_tuner.PRESETS
        players_list, pairings = [2], LADDER

    started = time.perf_counter()
    print(f"{games} games per pairing, {args.processes} processes, seed {args.seed}")
    header = f"{'preset':15} {'players':>7} {'A vs B':20} {'A wins':>7} {'95% CI':>17}"
    print(f"{header} {'cpu s':>7} {'goal':>6}", flush=True)

    def line(config: tuple, acc: list) -> None:
        preset, players, a, b = config
        p, lo, hi = wilson(int(acc[0]), int(acc[1]))
        goal = 0.5 if (a, b) in LADDER else GOALS.get((a, b, players))
        mark = "" if goal is None else (f">{goal:.0%}" + (" ok" if lo > goal else " ??"))
        print(
            f"{preset:15} {players:7} {a + ' vs ' + b:20} {p:7.1%}"
            f"  [{lo:6.1%}, {hi:6.1%}] {acc[2]:7.0f} {mark}",
            flush=True,
        )

    tournament(games, args.processes, args.seed, presets, players_list, pairings, line)
    print(f"tournament: {time.perf_counter() - started:.0f} s wall", flush=True)

    print(f"\ndecision time at 8 players of 5 dice ({args.timing_games} games per preset)")
    print(f"{'preset':15} {'strategy':10} {'decisions':>9} {'p50 ms':>8} {'p99 ms':>8} {'max':>8}")
    times = decision_times(args.timing_games, args.seed)
    for (preset, name), ts in sorted(times.items()):
        print(
            f"{preset:15} {name:10} {len(ts):9} {1e3 * percentile(ts, 0.5):8.3f}"
            f" {1e3 * percentile(ts, 0.99):8.3f} {1e3 * max(ts):8.3f}"
        )


def report(args: argparse.Namespace) -> None:
    """Issue 27's table: expert against a fresh exploiter, `hard` and `cautious`."""
    presets = args.presets.split(",") if args.presets else list(exploit_tuner.PRESETS)
    games = 500 if args.quick else args.games
    plan = exploit_tuner.plan_from_args(games, args)
    print(
        f"expert: exploiter search {plan.budget} candidates x {plan.search_games} games at "
        f"{plan.search_players} seats, search seed {plan.search_seed}; every cell "
        f"{games} games out of sample, eval seed {plan.eval_seed}; {args.processes} processes",
        flush=True,
    )
    runner = exploit_tuner.Runner(args.processes)
    rows = []
    try:
        for preset in presets:
            started = time.perf_counter()
            (*_, exploited, _), *_ = exploit_tuner.preset_rows(
                runner, "expert", preset, plan, exploit_tuner.load_tuned("expert")
            )
            tuned = arena.tuned_expert_params(preset)
            against = {}
            for other in ("hard", "cautious"):
                for players in (2, 4):
                    match = exploit_tuner.Match(
                        preset, other, {}, players, plan.eval_seed, hero_params=tuned
                    )
                    against[other, players] = (runner.wins(match, games), games)
            rows.append((preset, exploited, against, time.perf_counter() - started))
    finally:
        runner.close()
    print_report(rows)


def print_report(rows: list) -> None:
    """Shares with Wilson 95% intervals; at 4 seats one bot is alone among three others."""

    def cell(wins: int, n: int) -> str:
        p, lo, hi = wilson(wins, n)
        return f"{p:6.1%} [{lo:5.1%}, {hi:5.1%}]"

    print(
        f"\n{'preset':15} {'expert vs exploiter 2':>24} {'exploiter alone at 4':>24}"
        f" {'expert vs hard 2':>24} {'expert alone vs 3 hard':>24}"
        f" {'expert vs cautious 2':>24} {'expert alone vs 3 cautious':>26} {'s':>5}"
    )
    for preset, exploited, against, secs in rows:
        (w2, n2), (w4, n4) = exploited[2], exploited[4]
        print(
            f"{preset:15} {cell(n2 - w2, n2):>24} {cell(w4, n4):>24}"
            f" {cell(*against['hard', 2]):>24} {cell(*against['hard', 4]):>24}"
            f" {cell(*against['cautious', 2]):>24} {cell(*against['cautious', 4]):>26}"
            f" {secs:5.0f}",
            flush=True,
        )
    print("(alone at 4 seats: a fair share is 25%, in poker dice 75%: not buying the jug)")


def exploit(args: argparse.Namespace) -> None:
    """The --exploit report; its presets default to all six."""
    presets = args.presets.split(",") if args.presets else list(exploit_tuner.PRESETS)
    games = 500 if args.quick else args.games
    exploit_tuner.report_from_args(args.exploit, presets, games, args)


if __name__ == "__main__":
    main()
