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

Each timed request goes over a kept-alive connection of the standard library's
http.client and is timed from sending it to its body read: the time the server takes as
the wire sees it. (examples/client.py's httpx adds ~0.8 ms of its own per request on this
machine, the same for both servers; `--client httpx` times through it instead.)

Prints p50 and p90 per request and server, the ratios the acceptance names, and the CPU
time the web process and the whole stack (web, Celery, PostgreSQL, Redis) used per
request: on a busy machine latencies wait for a core, CPU time much less so.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import statistics
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.api_load import PASSWORD, local_server  # noqa: E402
from examples.client import Api, create_match, join_match, register  # noqa: E402

ROUTES = ("GET me", "GET match", "POST bid", "POST challenge")


class Wire:
    """A kept-alive http.client connection to the API that talks as examples/client.py
    does (a bearer token when given, JSON, an Idempotency-Key on every POST), at a
    fraction of httpx's CPU."""

    def __init__(self, base_url: str, token: str | None) -> None:
        address = urlsplit(base_url)
        self.connection = http.client.HTTPConnection(address.hostname, address.port)
        self.prefix = address.path.rstrip("/") + "/api/v1"
        self.headers = {"Content-Type": "application/json"}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"

    def exchange(
        self, method: str, path: str, body: dict | None = None
    ) -> tuple[int, bytes, float]:
        """(status, body, seconds from sending the request to its body read) for `path`
        under /api/v1."""
        headers = dict(self.headers)
        if method == "POST":
            headers["Idempotency-Key"] = uuid.uuid4().hex
        payload = json.dumps(body).encode() if body is not None else None
        started = time.perf_counter()
        try:
            self.connection.request(method, self.prefix + path, payload, headers)
            response = self.connection.getresponse()
        except ConnectionError:
            # The server closed a connection left idle (its keep-alive timeout):
            # reconnect once; the Idempotency-Key makes a resent POST safe.
            self.connection.close()
            started = time.perf_counter()
            self.connection.request(method, self.prefix + path, payload, headers)
            response = self.connection.getresponse()
        content = response.read()
        return response.status, content, time.perf_counter() - started

    def close(self) -> None:
        self.connection.close()


class WireApi(Wire):
    """The part of examples.client.Api that the steps use, on a `Wire`: each request
    timed from sending to its body read."""

    def __init__(self, base_url: str, token: str, observe) -> None:
        super().__init__(base_url, token)
        self.observe = observe

    def get(self, path: str, *, route: str) -> dict:
        return self._request("GET", path, None, route)

    def post(self, path: str, body: dict, *, route: str) -> dict:
        return self._request("POST", path, body, route)

    def _request(self, method: str, path: str, body: dict | None, route: str) -> dict:
        status, content, seconds = self.exchange(method, path, body)
        if status >= 300:
            raise RuntimeError(f"{method} {path} -> {status}: {content[:300]!r}")
        self.observe(route, seconds)
        return json.loads(content)


class Table:
    """Two players of one server at a two-seat match; each step is one timed request."""

    def __init__(self, base_url: str, rng: random.Random, client: str = "stdlib") -> None:
        self.timings: dict[str, list[float]] = defaultdict(list)
        self.rng = rng
        self.setup = [Api(base_url) for _ in range(2)]
        prefix = f"l{uuid.uuid4().hex[:8]}"
        tokens = [register(api, f"{prefix}_{i}", PASSWORD) for i, api in enumerate(self.setup)]
        if client == "httpx":
            self.players = [
                Api(base_url, token, observer=self.observe_response) for token in tokens
            ]
        else:
            self.players = [WireApi(base_url, token, self.observe) for token in tokens]
        self.match_id = 0
        self.new_match()

    def observe(self, route: str, seconds: float) -> None:
        if route in ROUTES:
            self.timings[route].append(seconds)

    def observe_response(self, route: str, response, seconds: float) -> None:
        if response.is_success:
            self.observe(route, seconds)

    def new_match(self) -> None:
        host, guest = self.setup
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
        for api in (*self.setup, *self.players):
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
    parser.add_argument(
        "--client", choices=("stdlib", "httpx"), default="stdlib", help="the timing client"
    )
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
            tables[name] = Table(servers[name].base_url, random.Random(7), args.client)
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
