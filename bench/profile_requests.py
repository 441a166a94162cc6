"""Profiles the hot requests in-process with pyinstrument and prints where the time goes.

    .venv/bin/python bench/profile_requests.py               # 200 of each, ~1 min
    .venv/bin/python bench/profile_requests.py --repeat 50 --html

Starts an embedded PostgreSQL and Redis in a temporary DATA_DIR (as `make run` does),
migrates, registers two players and plays two-seat matches through Django's test client,
so each request runs the whole stack (middleware, authentication, throttles, view,
service, renderer) with no network in between. Measured requests:

    GET /me/                  the cheapest authenticated read
    GET match                 the player's view of a match
    POST bid                  an action that does not end the round
    POST challenge            an action that ends the round (reveal, settle, next round)
    GET events (answer)       a long poll whose events are already there

For each it prints the wall-clock p50 (unprofiled), the SQL queries per request and the
profile's heaviest frames. `--html` writes pyinstrument's flame pages to bench/out/
(ignored by git).
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "bench" / "out"


def setup_django(data_dir: Path) -> None:
    from scripts.stack import services

    env = services(data_dir).__enter__()  # stopped at interpreter exit
    os.environ.update(env)
    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings.base",
        SECRET_KEY="bench-only-secret-key-not-for-production-0123456789abcdef",
        DEBUG="0",
        SECURE_SSL_REDIRECT="0",
        ALLOWED_HOSTS="testserver",
        THROTTLE_USER="1000000/min",
        THROTTLE_REGISTER_IP="100000/hour",
    )
    import django

    django.setup()
    # One JSON line per request to stdout is part of the cost, but not of the report.
    for handler in logging.getLogger("liarsdice.request").handlers or logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(open(os.devnull, "w"))  # noqa: SIM115
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("createcachetable", verbosity=0)


class Table:
    """Two players at a two-seat match, each with a Django test client."""

    def __init__(self) -> None:
        from django.test import Client

        self.clients = []
        suffix = os.urandom(3).hex()
        for name in ("ann", "bob"):
            client = Client()
            body = client.post(
                "/api/v1/auth/register/",
                {"username": f"{name}{suffix}", "password": "profile-password-not-secret-1"},
                content_type="application/json",
            ).json()
            client.defaults["HTTP_AUTHORIZATION"] = f"Bearer {body['token']}"
            self.clients.append(client)
        self.match_id = 0
        self.new_match()

    def post(self, seat_client, path: str, body: dict) -> dict:
        response = seat_client.post(
            path,
            body,
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=os.urandom(8).hex(),
        )
        assert response.status_code < 300, (path, response.status_code, response.content[:300])
        return response.json()

    def new_match(self) -> None:
        ann, bob = self.clients
        match = self.post(
            ann,
            "/api/v1/matches/",
            {"ruleset": "milton_bradley", "max_players": 2, "turn_seconds": 120},
        )
        self.match_id = match["id"]
        self.post(bob, f"/api/v1/matches/{self.match_id}/join/", {})

    def view(self, client=None) -> dict:
        client = client or self.clients[0]
        return client.get(f"/api/v1/matches/{self.match_id}/").json()

    def to_move(self) -> tuple[object, dict]:
        """The client whose turn it is and its view, starting a new match when needed."""
        while True:
            for client in self.clients:
                match = self.view(client)
                if match["status"] == "finished":
                    self.new_match()
                    break
                if match["legal_actions"]:
                    return client, match
            else:
                raise RuntimeError("nobody may act")

    def bid(self) -> Callable[[], object]:
        """Prepares a round with no bid yet; returns the request that bids."""
        while True:
            client, match = self.to_move()
            if (match["round"] or {}).get("current_bid") is None:
                break
            self.challenge()()
        legal = {entry["type"]: entry for entry in match["legal_actions"]}
        minimum = legal["bid"]["min_quantity_by_face"]
        face = max(minimum, key=int)
        body = {
            "type": "bid",
            "face": int(face),
            "quantity": minimum[face],
            "expected_version": match["version"],
        }
        path = f"/api/v1/matches/{self.match_id}/actions/"
        return lambda: self.post(client, path, body)

    def challenge(self) -> Callable[[], object]:
        """Prepares a standing bid; returns the request that challenges it."""
        client, match = self.to_move()
        if (match["round"] or {}).get("current_bid") is None:
            self.bid()()
            client, match = self.to_move()
        body = {"type": "challenge", "expected_version": match["version"]}
        path = f"/api/v1/matches/{self.match_id}/actions/"
        return lambda: self.post(client, path, body)


def measure(
    name: str,
    prepare: Callable[[], Callable[[], object]],
    repeat: int,
    html: bool,
    sql: bool = False,
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from pyinstrument import Profiler
    from pyinstrument.renderers import ConsoleRenderer

    timings, queries = [], []
    for _ in range(repeat):
        request = prepare()
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            request()
            timings.append(time.perf_counter() - started)
        queries.append(len(captured))
    profiler = Profiler(interval=0.0002)
    for _ in range(repeat):
        request = prepare()
        profiler.start()
        request()
        profiler.stop()
    print(
        f"\n=== {name}: p50 {statistics.median(timings) * 1000:.2f} ms, "
        f"{statistics.median(queries):.0f} SQL queries ({repeat} requests, unprofiled)"
    )
    renderer = ConsoleRenderer(
        unicode=True, color=False, short_mode=True,
        processor_options={"filter_threshold": 0.03},
    )  # fmt: skip
    print(profiler.output(renderer))
    if sql:
        request = prepare()
        with CaptureQueriesContext(connection) as captured:
            request()
        for query in captured.captured_queries:
            print(f"  SQL {query['time']}s  {query['sql'][:160]}")
    if html:
        OUT.mkdir(exist_ok=True)
        slug = name.lower().replace(" ", "-").replace("/", "").replace("(", "").replace(")", "")
        (OUT / f"profile-{slug}.html").write_text(profiler.output_html())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--html", action="store_true", help="flame pages in bench/out/")
    parser.add_argument("--sql", action="store_true", help="print one request's SQL")
    parser.add_argument("--only", help="measure only requests whose name contains this")
    args = parser.parse_args()
    data_dir = Path(tempfile.mkdtemp(prefix="liarsdice-profile-"))
    try:
        setup_django(data_dir)
        table = Table()
        ann = table.clients[0]

        def events() -> Callable[[], object]:
            seq = table.view()["event_seq"]
            path = f"/api/v1/matches/{table.match_id}/events/"
            return lambda: ann.get(path, {"after": max(seq - 1, 0), "wait": 25})

        requests = {
            "GET /me": lambda: lambda: ann.get("/api/v1/me/"),
            "GET match": lambda: lambda: table.view(ann),
            "POST bid": table.bid,
            "POST challenge": table.challenge,
            "GET events (answer)": events,
        }
        for name, prepare in requests.items():
            if args.only is None or args.only in name:
                measure(name, prepare, args.repeat, args.html, args.sql)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
