"""`manage.py simulate`: random legal play of many games, with a summary.

The work is done by games.engine.bots.simulation.simulate (pure, tested); this only parses
arguments, shows progress and prints.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from games.engine import PRESETS, EngineError
from games.engine.bots.simulation import simulate


def parse_option(text: str) -> tuple[str, Any]:
    """`k=v` with v read as JSON when it parses (true, 3, "x"), else as a plain string."""
    if "=" not in text:
        raise CommandError(f"--option expects key=value, got {text!r}")
    key, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key.strip(), value


class Command(BaseCommand):
    help = "Play G games of a ruleset with random legal play and print statistics."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--ruleset", required=True, choices=sorted(PRESETS))
        parser.add_argument("--players", type=int, default=4)
        parser.add_argument("--games", type=int, default=100)
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="override one rule option, e.g. --option loss=one (repeatable)",
        )
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--json", action="store_true", help="print the summary as JSON")

    def handle(self, *args, **opts) -> None:
        options = dict(parse_option(o) for o in opts["option"])
        if opts["games"] < 1:
            raise CommandError("--games must be at least 1")
        with tqdm(total=opts["games"], unit="game", disable=opts["json"]) as bar:
            try:
                summary = simulate(
                    opts["ruleset"],
                    opts["players"],
                    opts["games"],
                    options=options,
                    seed=opts["seed"],
                    progress=bar.update,
                )
            except EngineError as exc:
                raise CommandError(str(exc)) from exc
        if opts["json"]:
            self.stdout.write(json.dumps(summary, indent=2))
            return
        self.stdout.write(self.format(summary))

    @staticmethod
    def format(summary: dict[str, Any]) -> str:
        lines = [
            f"ruleset {summary['ruleset']}, {summary['players']} players, "
            f"{summary['games']} games (seed {summary['seed']})",
            "options: " + ", ".join(f"{k}={v}" for k, v in summary["options"].items()),
            f"rounds per game:  {summary['rounds_per_game']:.2f}",
            f"actions per game: {summary['actions_per_game']:.2f}",
        ]
        if "dice_lost_per_challenge" in summary:
            lines.append(f"dice lost per challenge: {summary['dice_lost_per_challenge']:.3f}")
        if "lives_lost_per_challenge" in summary:
            lines.append(f"lives lost per challenge: {summary['lives_lost_per_challenge']:.3f}")
        lines.append("win rate by seat:")
        for seat, rate in summary["win_rate_by_seat"].items():
            lines.append(f"  seat {seat}: {rate:6.1%}")
        if "loss_rate_by_seat" in summary:
            lines.append("loss rate by seat (buys the jug):")
            for seat, rate in summary["loss_rate_by_seat"].items():
                lines.append(f"  seat {seat}: {rate:6.1%}")
        return "\n".join(lines)
