"""One request at a time: the latency of the hot requests, two checkouts side by side.

    .venv/bin/python bench/latency.py --server-root /path/to/other/checkout  # before/after
    .venv/bin/python bench/latency.py --rounds 300

Starts this checkout's server and, with --server-root, another checkout's (each as
bench/api_load.py starts one: `scripts.stack run` in a temporary DATA_DIR, here with one
web process), then sends the same sequence of requests to each in turn, one request at a
time, alternating which server goes first: a machine shared with other work slows both
alike, so their figures stay comparable. Measured, over real HTTP:

    GET me           the cheapest authenticated read
    GET match        the view of a two-seat match (the player to move's)
    POST bid         an action that does not end the round
    POST challenge   an action that ends the round (reveal, settle, the next round)

Prints p50 and p90 per request and server, the ratios the acceptance names, and the CPU
time the web process and the whole stack (web, Celery, PostgreSQL, Redis) used per
request: on a busy machine latencies wait for a core, CPU time much less so.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import sys
import uuid
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.api_load import PASSWORD, local_server  # noqa: E402
from examples.client import Api, create_match, join_match, register  # noqa: E402

ROUTES = ("GET me", "GET match", "POST bid", "POST challenge")


class Table:
    """Two players of one server at a two-seat match; each step is one timed request."""

    def __init__(self, base_url: str, rng: random.Random) -> None:
        self.timings: dict[str, list[float]] = defaultdict(list)
        self.rng = rng
        self.players = [Api(base_url, observer=self.observe) for _ in range(2)]
        prefix = f"l{uuid.uuid4().hex[:8]}"
        for i, api in enumerate(self.players):
            register(api, f"{prefix}_{i}", PASSWORD)
        self.match_id = 0
        self.new_match()

    def observe(self, route: str, response, seconds: float) -> None:
        if response.is_success and route in ROUTES:
            self.timings[route].append(seconds)

    def new_match(self) -> None:
        host, guest = self.players
        self.match_id = create_match(host, "milton_bradley", turn_seconds=120)["id"]
        join_match(guest, self.match_id)

    def step(self) -> None:
        """GET me, GET match as each player, then the mover bids or challenges."""
        self.players[0].get("/me/", route="GET me")
        for api in self.players:
            match = api.get(f"/matches/{self.match_id}/", route="GET match")
            if match["status"] == "finished":
                self.new_match()
                return
            if match["legal_actions"]:
                break
        else:
            raise RuntimeError("nobody may act")
        legal = {entry["type"]: entry for entry in match["legal_actions"]}
        path = f"/matches/{self.match_id}/actions/"
        version = match["version"]
        if "challenge" in legal and (self.rng.random() < 0.3 or "bid" not in legal):
            body = {"type": "challenge", "expected_version": version}
            api.post(path, body, route="POST challenge")
            return
        minimum = legal["bid"]["min_quantity_by_face"]
        face = self.rng.choice(sorted(minimum))
        body = {"type": "bid", "face": int(face), "quantity": minimum[face]}
        api.post(path, {**body, "expected_version": version}, route="POST bid")

    def close(self) -> None:
        for api in self.players:
            api.close()


def summary(timings: dict[str, list[float]]) -> dict[str, float]:
    return {route: statistics.median(timings[route]) * 1000 for route in ROUTES if timings[route]}


def report(
    tables: dict[str, Table], cpu: dict[str, dict[str, float]], roots: dict[str, Path], rounds: int
) -> None:
    print(f"\n{rounds} steps per server, load average {os.getloadavg()[0]:.1f}")
    print(f"{'server':<8}{'request':<16}{'count':>7}{'p50 ms':>9}{'p90 ms':>9}")
    for name, table in tables.items():
        for route in ROUTES:
            values = sorted(table.timings[route])
            if values:
                p90 = values[int(len(values) * 0.9)] * 1000
                p50 = statistics.median(values) * 1000
                print(f"{name:<8}{route:<16}{len(values):>7}{p50:>9.2f}{p90:>9.2f}")
    for name, table in tables.items():
        count = sum(len(table.timings[route]) for route in ROUTES)
        print(
            f"{name}: CPU per request: web {cpu[name]['web'] / count * 1000:.2f} ms, "
            f"all processes {cpu[name]['all'] / count * 1000:.2f} ms"
        )
    for name, table in tables.items():
        p50 = summary(table.timings)
        print(
            f"{name} ({roots[name]}): POST bid / GET match = "
            f"{p50['POST bid'] / p50['GET match']:.2f}x (goal <= 1.5x)"
        )
    if "other" in tables:
        before, after = summary(tables["other"].timings), summary(tables["this"].timings)
        print(f"GET me p50: {before['GET me']:.2f} -> {after['GET me']:.2f} ms "
              f"({before['GET me'] / after['GET me']:.2f}x faster, goal >= 2x)")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server-root", type=Path, help="another checkout to compare with")
    parser.add_argument("--rounds", type=int, default=400, help="steps per server")
    parser.add_argument("--warmup", type=int, default=30, help="steps not counted")
    args = parser.parse_args()
    roots = {"this": ROOT}
    if args.server_root:
        roots = {"other": args.server_root.resolve(), "this": ROOT}
    with contextlib.ExitStack() as stack:
        tables, servers, cpu = {}, {}, {}
        for name, root in roots.items():
            servers[name] = stack.enter_context(
                local_server(lambda: False, web_processes=1, server_root=root)
            )
            tables[name] = Table(servers[name].base_url, random.Random(7))
            stack.callback(tables[name].close)
        for step in range(args.warmup + args.rounds):
            if step == args.warmup:
                for name, table in tables.items():
                    table.timings.clear()
                    cpu[name] = servers[name].cpu_seconds()
            order = list(tables.values())
            if step % 2:
                order.reverse()
            for table in order:
                table.step()
        for name, server in servers.items():
            cpu[name] = {k: v - cpu[name][k] for k, v in server.cpu_seconds().items()}
        report(tables, cpu, roots, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
