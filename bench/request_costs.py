"""What each hot request costs the server under concurrent load, next to what the stack
costs with no work at all.

    .venv/bin/python bench/request_costs.py                  # 32 connections, 8 s each (~2 min)
    .venv/bin/python bench/request_costs.py --connections 16 --seconds 5
    .venv/bin/python bench/request_costs.py --server-root /path/to/other/checkout

Starts the server as bench/api_load.py does (`scripts.stack run`, DEBUG off, 2 web
processes by default), then measures one kind of request at a time: --connections threads,
each with its own kept-alive http.client connection, send it back to back for --seconds.
For each kind it prints the requests per second and the CPU time per request of the web
processes, of the rest of the server (PostgreSQL, Redis, Celery) and of this process (the
clients, which share the machine's cores with the server):

    GET unknown path     the ASGI server and Django's middleware, no view (a 404)
    GET rulesets         + a DRF view: no authentication, no database
    GET me               + the bearer token check (PostgreSQL) and the throttle (Redis)
    GET match            + the match and its seats, as the player sees it
    GET events (answer)  a long poll whose events are already there
    POST action          bids and challenges (with an Idempotency-Key, as the example
                         client sends them), each connection playing its own matches

Every connection is an account of its own (reading its own match), as clients are, and
the POST connections play matches set up before the clock starts. Each kind is warmed
up for a second before it is measured.

An action of bench/api_load.py (two players a match) is one POST action, one GET me, one
long poll answered and one GET match; the last line adds those four up and says how many
actions a second the machine's cores could serve at that price if the server had them
all. It leaves out what a waiting long poll costs (its wait and wake-up) and the clients:
bench/api_load.py measures those in play.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.api_load import PASSWORD, Server, local_server, own_cpu  # noqa: E402
from bench.latency import Wire  # noqa: E402
from examples.client import Api, create_match, join_match, register  # noqa: E402

ACTION = ("POST action", "GET me", "GET events (answer)", "GET match")


class Player:
    """Plays two-seat matches with both seats' tokens, one POST per step: each answer (the
    mover's view) says who moves next and what it must beat, so no read comes between two
    actions. It bids sixes, one more than the bid in play, and challenges a bid above a
    third of the dice (about three bids to a challenge); a challenge costs the loser one
    die, so a match lasts ~30 actions. Its matches are set up before the clock starts
    (`ready`), so that the POST figure is the actions' alone."""

    OPTIONS = {"loss": "one"}

    def __init__(self, base_url: str, apis: tuple[Api, Api]) -> None:
        self.apis = apis
        self.user_ids = [api.get("/me/")["id"] for api in apis]
        self.connections = [Wire(base_url, api.token) for api in apis]
        self.ready: list[tuple[int, dict]] = []  # (match id, its first view)
        self.setups = 0  # matches set up in the middle of play
        self.set_up()
        self.match_id, self.view = self.ready.pop()

    def set_up(self, matches: int = 1) -> None:
        host, guest = self.apis
        for _ in range(matches):
            match_id = create_match(host, "milton_bradley", turn_seconds=120, options=self.OPTIONS)[
                "id"
            ]
            join_match(guest, match_id)
            _, view, _ = self.connections[0].exchange("GET", f"/matches/{match_id}/")
            self.ready.append((match_id, json.loads(view)))

    def step(self) -> int:
        view = self.view
        if view["status"] != "active":
            if not self.ready:
                self.setups += 1
                self.set_up()
            self.match_id, self.view = self.ready.pop()
            return 0
        seat = view["round"]["turn_seat"]
        mover = self.user_ids.index(view["seats"][seat]["player"]["id"])
        bid = view["round"]["current_bid"]
        dice = sum(view["round"]["dice_counts"].values())
        if bid is not None and bid["quantity"] + 1 > max(1, dice // 3):
            action = {"type": "challenge"}
        else:
            action = {
                "type": "bid",
                "quantity": 1 if bid is None else bid["quantity"] + 1,
                "face": 6,
            }
        status, answer, _ = self.connections[mover].exchange(
            "POST",
            f"/matches/{self.match_id}/actions/",
            {**action, "expected_version": view["version"]},
        )
        if status != 201:
            raise RuntimeError(f"POST {action} -> {status}: {answer[:300]!r}")
        self.view = json.loads(answer)
        return 1

    def close(self) -> None:
        for connection in self.connections:
            connection.close()


@dataclass
class Measured:
    requests: int
    seconds: float
    web: float  # CPU seconds
    rest: float
    clients: float

    def per_request_ms(self, cpu: float) -> float:
        return cpu / max(1, self.requests) * 1000


def measure(server: Server, workers: list[Callable[[], int]], seconds: float) -> Measured:
    """Runs each worker (one request per call, returning how many it counted) in a thread
    of its own: one second to warm up (connections, the server's database pool), then
    `seconds` measured."""
    counts = [0] * len(workers)
    errors: list[BaseException] = []
    warm_until = time.monotonic() + 1.0
    warm = threading.Barrier(len(workers) + 1)
    go = threading.Event()
    until = [0.0]

    def run(index: int, work: Callable[[], int]) -> None:
        try:
            while time.monotonic() < warm_until:
                work()
            warm.wait()
            go.wait()
            while time.monotonic() < until[0]:
                counts[index] += work()
        except BaseException as exc:  # reported below: the run is void
            errors.append(exc)
            warm.abort()

    threads = [threading.Thread(target=run, args=item) for item in enumerate(workers)]
    for thread in threads:
        thread.start()
    with contextlib.suppress(threading.BrokenBarrierError):
        warm.wait()
    server_before, clients_before = server.cpu_seconds(), own_cpu()
    begun = time.monotonic()
    until[0] = begun + seconds
    go.set()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - begun
    server_after = server.cpu_seconds()
    if errors:
        raise RuntimeError(f"{len(errors)} connection(s) failed, the first: {errors[0]!r}")
    web = server_after["web"] - server_before["web"]
    return Measured(
        requests=sum(counts),
        seconds=elapsed,
        web=web,
        rest=server_after["all"] - server_before["all"] - web,
        clients=own_cpu() - clients_before,
    )


def get(connection: Wire, path: str, expected: int = 200) -> Callable[[], int]:
    def work() -> int:
        status, body, _ = connection.exchange("GET", path)
        if status != expected:
            raise RuntimeError(f"GET {path} -> {status}, not {expected}: {body[:300]!r}")
        return 1

    return work


# The GETs: (path under /api/v1, signed in, the status expected); `{match_id}` is the
# connection's own match.
GETS = {
    "GET unknown path": ("/no-such-path/", False, 404),
    "GET rulesets": ("/rulesets/", False, 200),
    "GET me": ("/me/", True, 200),
    "GET match": ("/matches/{match_id}/", True, 200),
    "GET events (answer)": ("/matches/{match_id}/events/?after=0&wait=5", True, 200),
}
KINDS = (*GETS, "POST action")


def run(
    server: Server, connections: int, seconds: float, only: set[str] | None = None
) -> dict[str, Measured]:
    """Registers two accounts a connection; measures each kind of request in `only` (all
    by default). Every connection reads as an account of its own, in that account's match,
    as a client would (one account's throttle sees only its own requests)."""
    prefix = f"c{uuid.uuid4().hex[:8]}"
    apis = [Api(server.base_url) for _ in range(2 * connections)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(
            pool.map(
                lambda item: register(item[1], f"{prefix}_{item[0]}", PASSWORD), enumerate(apis)
            )
        )
    players = [Player(server.base_url, (apis[2 * i], apis[2 * i + 1])) for i in range(connections)]
    if only is None or "POST action" in only:
        # ~30 actions a match, at most ~400 actions/s here: matches enough for the warm-up
        # and the clock's seconds.
        matches = math.ceil((seconds + 1) * 400 / 30 / connections)
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(lambda player: player.set_up(matches), players))
    opened: list[Wire] = []

    def each(path: str, signed_in: bool, expected: int) -> list[Callable[[], int]]:
        workers = []
        for player in players:
            connection = Wire(server.base_url, player.apis[0].token if signed_in else None)
            opened.append(connection)
            workers.append(get(connection, path.format(match_id=player.match_id), expected))
        return workers

    results = {}
    for name in KINDS:
        if only is None or name in only:
            workers = [player.step for player in players] if name not in GETS else each(*GETS[name])
            results[name] = measure(server, workers, seconds)
    setups = sum(player.setups for player in players)
    if setups:
        print(f"(POST action: {setups} matches set up during its run, their CPU in its figure)")
    for closable in [*opened, *players, *apis]:
        closable.close()
    return results


def report(label: str, results: dict[str, Measured], connections: int) -> None:
    print(f"\n{label}: {connections} connections, CPU per request in ms")
    print(f"{'request':<21}{'req/s':>8}{'web':>8}{'rest':>8}{'clients':>9}")
    for name, m in results.items():
        print(
            f"{name:<21}{m.requests / m.seconds:>8.0f}{m.per_request_ms(m.web):>8.2f}"
            f"{m.per_request_ms(m.rest):>8.2f}{m.per_request_ms(m.clients):>9.2f}"
        )
    if not set(ACTION) <= results.keys():
        return
    web = sum(results[name].per_request_ms(results[name].web) for name in ACTION)
    rest = sum(results[name].per_request_ms(results[name].rest) for name in ACTION)
    cores = len(os.sched_getaffinity(0))
    print(
        f"an api_load action of two players ({' + '.join(ACTION)}): web {web:.2f} ms, "
        f"rest {rest:.2f} ms: ~{cores * 1000 / (web + rest):.0f} actions/s if the server had "
        f"all {cores} cores at these costs (no clients, and a long poll's wait and wake-up "
        "not counted)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=8.0, help="per kind of request")
    parser.add_argument("--web-processes", type=int, default=2)
    parser.add_argument("--server-root", type=Path, help="another checkout, measured first")
    parser.add_argument("--only", help="comma-separated kinds of request, e.g. 'GET me,GET match'")
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else None
    if only is not None and not only <= set(KINDS):
        parser.error(f"--only takes some of: {', '.join(KINDS)}")
    roots = [args.server_root.resolve()] if args.server_root else []
    for root in [*roots, ROOT]:
        with local_server(
            lambda: False, web_processes=args.web_processes, server_root=root
        ) as server:
            results = run(server, args.connections, args.seconds, only)
        report(str(root), results, args.connections)
    return 0


if __name__ == "__main__":
    sys.exit(main())
