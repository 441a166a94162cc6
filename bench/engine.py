"""Engine benchmark: actions per CPU-second with random legal play, one core, no Django.

Runs the engine as it was before the family packages (issue 10; extracted from git at
BASELINE with `git archive`, imported as `engine_before`) and the engine of this checkout
side by side, in the same Python driver loop: legal_actions, a random legal action,
apply. Both play the same seeded games, so equal actions per game also checks that the
two engines behave the same.

Run: python bench/engine.py [--games N] [--players N] [--seed S] [--repeat R]
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import random
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games import engine  # noqa: E402
from games.engine.bots.random_play import random_action  # noqa: E402

# main just before the engine became one interface with a package per family. (The
# first baseline, 14f1116, did not survive the recovery of sessions 17-18 in b9e8a58;
# ce14dba is the last commit of main with the flat engine.)
BASELINE = "ce14dbad7a951705b81f1630d224366dc6467e27"


def load_engine_before(commit: str, into: Path) -> ModuleType:
    """`games/engine` at `commit`, imported as the package `engine_before`."""
    archive = subprocess.run(
        ["git", "archive", commit, "games/engine"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    package = into / "games" / "engine"
    spec = importlib.util.spec_from_file_location(
        "engine_before", package / "__init__.py", submodule_search_locations=[str(package)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["engine_before"] = module
    spec.loader.exec_module(module)
    return module


def drive(
    new_match: Any, legal_actions: Any, apply: Any, choose: Any, rules: Any, args: Any
) -> tuple[float, int]:
    """(actions per CPU-second, actions) of `args.games` games: the same loop for both."""
    rng = random.Random(args.seed)
    actions = 0
    start = time.process_time()  # CPU time: steadier than wall time on a shared host
    for _ in range(args.games):
        state, _ = new_match(rules, args.players, rng)
        while not state.finished:
            choices = legal_actions(state, state.round.turn)
            state, _ = apply(state, choose(state, rng, choices=choices), rng)
            actions += 1
    return actions / (time.process_time() - start), actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (noisy hosts)")
    parser.add_argument("--before", default=BASELINE, help="commit of the engine to compare")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        before = load_engine_before(args.before, Path(tmp))
        engines = {
            "before": (before.new_match, before.legal_actions, before.apply, before.random_action),
            "now": (engine.new_match, engine.legal_actions, engine.apply, random_action),
        }
        print(
            f"{args.players} players, {args.games} games per preset, random legal play, "
            f"one core, best of {args.repeat}; before = {args.before[:10]}"
        )
        print(
            f"{'preset':16} {'before act/s':>13} {'now act/s':>11} {'ratio':>6} "
            f"{'actions/game':>13} {'same games':>11}"
        )
        for name in engine.PRESETS:
            if name not in before.PRESETS:
                continue  # a ruleset added since (perudo): nothing to compare with
            best: dict[str, float] = {}
            counts: dict[str, int] = {}
            for label, (new_match, legal, apply, choose) in engines.items():
                presets = before.PRESETS if label == "before" else engine.PRESETS
                rules = presets[name]
                for _ in range(args.repeat):
                    rate, counts[label] = drive(new_match, legal, apply, choose, rules, args)
                    best[label] = max(best.get(label, 0.0), rate)
            ratio = best["now"] / best["before"]
            same = "yes" if counts["now"] == counts["before"] else "NO"
            print(
                f"{name:16} {best['before']:13.0f} {best['now']:11.0f} {ratio:6.2f} "
                f"{counts['now'] / args.games:13.1f} {same:>11}"
            )


if __name__ == "__main__":
    main()
