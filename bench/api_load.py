"""API load benchmark: concurrent clients play complete matches over real HTTP.

    .venv/bin/python bench/api_load.py          # 32 clients, new matches for 45 s (~2.5 min)
    .venv/bin/python bench/api_load.py --clients 8 --matches-per-client 2
    .venv/bin/python bench/api_load.py --base-url http://127.0.0.1:8000

Without --base-url it starts the server exactly as `make run` does
(`python -m scripts.stack run`: embedded PostgreSQL and Redis, migrations, then gunicorn,
Celery worker and beat under honcho) in a temporary DATA_DIR on a free port, with the
per-user and registration throttles raised so the load is not throttled, and stops it
with SIGINT to its process group at the end.

Every client is an `examples/client.py` SeatClient (public API only). After each of its
actions a client also calls `GET /api/v1/me/`, so the cheapest authenticated read is
measured in the same run, under the same load, as the baseline: the goal is a POST
action p50 within 2x of the GET /me/ p50. Errors are every non-2xx answer except the
409s of expected races (stale_version, not_your_turn, idempotency_key_in_use).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import queue
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script: make `examples` importable

from examples.client import (  # noqa: E402
    RACE_CODES,
    Api,
    ApiError,
    SeatClient,
    create_match,
    join_match,
    register,
)

PASSWORD = "bench-password-not-secret-1234"
REPORTED = ("POST actions", "GET match", "GET me")


# --- the server --------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def local_server(keep_log: Callable[[], bool]) -> Iterator[str]:
    """Runs `python -m scripts.stack run` in a fresh DATA_DIR; yields its base URL."""
    data_dir = Path(tempfile.mkdtemp(prefix="liarsdice-bench-"))
    port = free_port()
    env = dict(os.environ)
    # Embedded services, like `make run` on a fresh machine, never someone's databases.
    for name in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL"):
        env.pop(name, None)
    env.update(
        DATA_DIR=str(data_dir),
        PORT=str(port),
        # 600/min per user is right for people, not for a client acting flat out.
        THROTTLE_USER="100000/min",
        THROTTLE_REGISTER_IP="100000/hour",
        THROTTLE_LOGIN_IP="100000/min",
        THROTTLE_LOGIN_USERNAME="100000/min",
        PYTHONUNBUFFERED="1",
        # The Procfile names gunicorn and celery bare; stack.py finds honcho next to the
        # interpreter but leaves PATH alone, so an unactivated venv would not find them.
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
    )
    log_path = data_dir / "server.log"
    log = log_path.open("wb")
    started = time.monotonic()
    # Its own session, so one signal reaches honcho, gunicorn, Celery and the databases.
    proc = subprocess.Popen(
        [sys.executable, "-m", "scripts.stack", "run"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(base_url, proc, log_path)
        print(f"server up at {base_url} in {time.monotonic() - started:.1f} s (log {log_path})")
        yield base_url
    finally:
        _stop(proc)
        _reap_orphans(data_dir)
        log.close()
        if keep_log():
            print(f"server log kept in {log_path}")
        else:
            shutil.rmtree(data_dir, ignore_errors=True)


def _reap_orphans(data_dir: Path) -> None:
    """Stops embedded PostgreSQL/Redis left running in our DATA_DIR.

    stack.py stops them at exit; if it was killed instead (SIGTERM from outside, as seen
    on shared machines), they outlive it. Only processes of this run's own temporary
    directory are touched: PostgreSQL names it on its command line, Redis runs in it.
    """
    mine = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            cwd = os.readlink(entry / "cwd")
            if str(data_dir) in cmdline or cwd.startswith(str(data_dir)):
                mine.append(int(entry.name))
    for sig in (signal.SIGINT, signal.SIGKILL):
        alive = [pid for pid in mine if Path(f"/proc/{pid}/cmdline").exists()]
        if not alive:
            return
        print(f"stopping {len(alive)} orphaned server process(es) with {sig.name}")
        for pid in alive:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        time.sleep(5)


def _wait_healthy(base_url: str, proc: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}:\n{_tail(log_path)}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{base_url}/healthz", timeout=2).status_code == 200:
                return
        time.sleep(0.5)
    raise RuntimeError(f"server not healthy after 180 s:\n{_tail(log_path)}")


def _tail(path: Path, lines: int = 40) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def _stop(proc: subprocess.Popen) -> None:
    """SIGINT to the group, as Ctrl-C would; escalate only if it does not stop."""
    if proc.poll() is not None:
        print(f"the server had already exited by itself (exit {proc.returncode})")
        return
    for sig, grace in ((signal.SIGINT, 60), (signal.SIGTERM, 15), (signal.SIGKILL, 5)):
        if proc.poll() is not None:
            break
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace)
    print(f"server stopped (exit {proc.returncode})")


# --- measuring ---------------------------------------------------------------------------


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    races: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    matches: int = 0
    actions: int = 0

    def observe(self, route: str, response: httpx.Response, seconds: float) -> None:
        status = response.status_code
        with self.lock:
            if response.is_success:
                self.latencies[route].append(seconds)
                return
            code = _code(response)
            if status == 409 and code in RACE_CODES:
                self.races[code] += 1
                return
            self.errors.append(f"{route} -> {status} {code}: {response.text[:300]}")


def _code(response: httpx.Response) -> str | None:
    try:
        body = response.json()
    except ValueError:
        return None
    return body.get("code") if isinstance(body, dict) else None


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of unsorted values."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


# --- the clients -------------------------------------------------------------------------


@dataclass
class Plan:
    base_url: str
    players: int
    rulesets: list[str]
    matches_per_client: int | None
    duration: float
    deadline: float = 0.0  # monotonic, set when play starts; no new match after it

    def another(self, played: int) -> bool:
        if self.matches_per_client is not None:
            return played < self.matches_per_client
        return time.monotonic() < self.deadline


def seat_player(api: Api, stats: Stats, match_id: int, seed: int) -> None:
    def me() -> None:
        # The baseline read, interleaved with the play of the same client.
        api.get("/me/", route="GET me")

    seat = SeatClient(api, match_id, rng=random.Random(seed), log=None, after_action=me)
    final = seat.play()
    with stats.lock:
        stats.actions += seat.actions
    if final["status"] != "finished":
        with stats.lock:
            stats.errors.append(f"match {match_id} ended {final['status']}")


def leader(api: Api, inboxes: list[queue.Queue], plan: Plan, stats: Stats, seed: int) -> None:
    """Creates each match of its group, hands the id to the others, plays seat 0."""
    played = 0
    try:
        while plan.another(played):
            ruleset = plan.rulesets[(seed + played) % len(plan.rulesets)]
            match = create_match(api, ruleset, players=plan.players, turn_seconds=120)
            for inbox in inboxes:
                inbox.put(match["id"])
            seat_player(api, stats, match["id"], seed * 1000 + played)
            with stats.lock:
                stats.matches += 1
            played += 1
    finally:
        for inbox in inboxes:
            inbox.put(None)


def follower(api: Api, inbox: queue.Queue, stats: Stats, seed: int) -> None:
    played = 0
    while (match_id := inbox.get()) is not None:
        join_match(api, match_id)
        seat_player(api, stats, match_id, seed * 1000 + played)
        played += 1


def guarded(target, stats: Stats, *args) -> None:
    try:
        target(*args)
    except (ApiError, httpx.HTTPError, RuntimeError, KeyError) as exc:
        with stats.lock:
            stats.errors.append(f"client stopped: {exc!r}")


def run_load(plan: Plan, clients: int, stats: Stats) -> float:
    """Registers `clients` accounts, plays, returns the seconds of play."""
    prefix = f"b{uuid.uuid4().hex[:8]}"
    apis = [Api(plan.base_url, observer=stats.observe, timeout=60) for _ in range(clients)]
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda ia: register(ia[1], f"{prefix}_{ia[0]}", PASSWORD), enumerate(apis)))
    print(f"registered {clients} accounts in {time.monotonic() - started:.1f} s")
    # Registration is password hashing, not the API under test: measure play only.
    stats.latencies.clear()

    threads: list[threading.Thread] = []
    for g in range(0, clients - clients % plan.players, plan.players):
        group = apis[g : g + plan.players]
        inboxes: list[queue.Queue] = [queue.Queue() for _ in group[1:]]
        threads.append(
            threading.Thread(
                target=guarded, args=(leader, stats, group[0], inboxes, plan, stats, g)
            )
        )
        for i, (api, inbox) in enumerate(zip(group[1:], inboxes, strict=True)):
            threads.append(
                threading.Thread(
                    target=guarded, args=(follower, stats, api, inbox, stats, g + i + 1)
                )
            )
    started = time.monotonic()
    plan.deadline = started + plan.duration
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    for api in apis:
        api.close()
    return elapsed


def report(stats: Stats, clients: int, players: int, elapsed: float) -> float | None:
    print()
    print(
        f"{clients} clients, {players} players a match: {stats.matches} matches, "
        f"{stats.actions} actions in {elapsed:.1f} s = {stats.actions / elapsed:.1f} actions/s"
    )
    print(f"{'request':<14}{'count':>8}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}")
    for route in (*REPORTED, "GET events"):
        values = stats.latencies.get(route, [])
        if not values:
            print(f"{route:<14}{0:>8}")
            continue
        p50, p95, p99 = (percentile(values, q) * 1000 for q in (50, 95, 99))
        note = "  (long polls: time spent waiting)" if route == "GET events" else ""
        print(f"{route:<14}{len(values):>8}{p50:>10.1f}{p95:>10.1f}{p99:>10.1f}{note}")
    races = ", ".join(f"{code} {n}" for code, n in sorted(stats.races.items())) or "none"
    print(f"expected 409 races: {races}")
    print(f"errors: {len(stats.errors)}")
    for line in stats.errors[:20]:
        print(f"  {line}")
    ratio = None
    if stats.latencies.get("POST actions") and stats.latencies.get("GET me"):
        ratio = percentile(stats.latencies["POST actions"], 50) / percentile(
            stats.latencies["GET me"], 50
        )
        verdict = "within" if ratio <= 2 else "OVER"
        print(f"POST action p50 / GET me p50 = {ratio:.2f}x ({verdict} the 2x goal)")
    return ratio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", help="use a running server instead of starting one")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--players-per-match", type=int, default=2)
    how_long = parser.add_mutually_exclusive_group()
    how_long.add_argument("--matches-per-client", type=int)
    how_long.add_argument(
        "--duration", type=float, default=45.0, help="seconds in which new matches start"
    )
    parser.add_argument(
        "--ruleset",
        default="milton_bradley",
        help="comma-separated rulesets, used in turn (e.g. milton_bradley,poker_dice)",
    )
    parser.add_argument("--keep-log", action="store_true", help="keep the server's DATA_DIR")
    args = parser.parse_args(argv)
    if args.clients < args.players_per_match:
        parser.error("--clients must be at least --players-per-match")

    stats = Stats()
    plan = Plan(
        base_url="",
        players=args.players_per_match,
        rulesets=args.ruleset.split(","),
        matches_per_client=args.matches_per_client,
        duration=args.duration,
    )
    server = (
        contextlib.nullcontext(args.base_url.rstrip("/"))
        if args.base_url
        # A run with errors keeps the server's log for the post-mortem.
        else local_server(lambda: args.keep_log or bool(stats.errors))
    )
    with server as base_url:
        plan.base_url = base_url
        elapsed = run_load(plan, args.clients, stats)
    ratio = report(stats, args.clients, args.players_per_match, elapsed)
    return 0 if not stats.errors and ratio is not None else 1


if __name__ == "__main__":
    sys.exit(main())
