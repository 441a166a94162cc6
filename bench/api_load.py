"""API load benchmark: concurrent clients play complete matches over real HTTP.

    .venv/bin/python bench/api_load.py          # 32 clients, new matches for 45 s (~2.5 min)
    .venv/bin/python bench/api_load.py --clients 8 --matches-per-client 2
    .venv/bin/python bench/api_load.py --base-url http://127.0.0.1:8000
    .venv/bin/python bench/api_load.py --web-processes 1,2        # each in turn
    .venv/bin/python bench/api_load.py --server-root /path/to/other/checkout  # "before"
    .venv/bin/python bench/api_load.py --seat-stream   # clients play from their seat's stream
    .venv/bin/python bench/api_load.py --stream   # both ways, one after the other, same server

Without --base-url it starts the server exactly as `make run` does
(`python -m scripts.stack run`: embedded PostgreSQL and Redis, migrations, then gunicorn,
Celery worker and beat under scripts/supervise.py) in a temporary DATA_DIR on a free port, with the
per-user, anonymous and registration throttles raised so the load is not throttled, and stops it
with SIGINT to its process group at the end.

Every client is an `examples/client.py` SeatClient (public API only). Two ways to play:

* requests (the default): long-poll the match's events, re-read the match, POST the
  action, and after each action call `GET /api/v1/me/`, so the cheapest authenticated read
  is measured in the same run, under the same load, as the baseline: the goal is a POST
  action p50 within 2x of the GET /me/ p50. Four requests a move.
* seat stream (`--seat-stream`): follow the seat's own stream and POST the action: one
  request a move (the stream's messages are the reads). No baseline call.

`--stream` plays both, one after the other on the same server, and prints them side by
side with the goals of issue 24: at most 5 ms of server CPU per move (all processes), and
at least 200 moves/s with POST p99 under 100 ms from the seat stream. Errors are every
non-2xx answer except the 409s of expected races (stale_version, not_your_turn,
idempotency_key_in_use).

`--web-processes` sets gunicorn's worker processes (WEB_CONCURRENCY). The server's CPU
per action is the CPU time (user + system, from /proc) its processes used during play,
divided by the actions played: the web processes alone, and everything (web, Celery,
PostgreSQL, Redis). The clients' own CPU per action (this process) is printed too: they
share the machine's cores with the server.
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


@dataclass
class Server:
    base_url: str
    pid: int | None = None  # `scripts.stack run`, when we started it
    data_dir: Path | None = None

    def cpu_seconds(self) -> dict[str, float]:
        """CPU seconds so far of the server's processes, those that ended included: "web"
        (gunicorn) and "all": the stack's descendants and PostgreSQL/Redis (daemons
        outside that tree, found by their DATA_DIR as `_reap_orphans` does) with their
        children."""
        used = {"web": 0.0, "all": 0.0}
        if self.pid is None:
            return used
        tick = os.sysconf("SC_CLK_TCK")
        stats: dict[int, tuple[int, float, bytes]] = {}  # pid: (ppid, cpu, cmdline)
        roots = {self.pid}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                cmdline = (entry / "cmdline").read_bytes()
                # utime + stime, and cutime + cstime: the children it has reaped, such
                # as PostgreSQL backends that ended with their connection.
                cpu = sum(int(value) for value in fields[11:15]) / tick
                stats[int(entry.name)] = (int(fields[1]), cpu, cmdline)
                if str(self.data_dir).encode() in cmdline or os.readlink(entry / "cwd").startswith(
                    str(self.data_dir)
                ):
                    roots.add(int(entry.name))
        children: dict[int, list[int]] = defaultdict(list)
        for pid, (ppid, _, _) in stats.items():
            children[ppid].append(pid)
        seen, todo = set(), list(roots)
        while todo:
            pid = todo.pop()
            if pid in seen or pid not in stats:
                continue
            seen.add(pid)
            todo += children[pid]
            _, cpu, cmdline = stats[pid]
            used["all"] += cpu
            if b"gunicorn" in cmdline:
                used["web"] += cpu
        return used


@contextlib.contextmanager
def local_server(
    keep_log: Callable[[], bool], *, web_processes: int = 2, server_root: Path = ROOT
) -> Iterator[Server]:
    """Runs `python -m scripts.stack run` in a fresh DATA_DIR; yields the server."""
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
        THROTTLE_ANON="100000/min",  # every client comes from 127.0.0.1
        THROTTLE_REGISTER_IP="100000/hour",
        THROTTLE_LOGIN_IP="100000/min",
        LOGIN_FREE_ATTEMPTS="100000",
        PYTHONUNBUFFERED="1",
        # Measured as deployed: `make run` turns DEBUG on, which logs every SQL query
        # with its timing (a cost per query, and memory) and is never how a server runs.
        DEBUG="0",
        SECURE_SSL_REDIRECT="0",  # plain HTTP on loopback
        WEB_CONCURRENCY=str(web_processes),
        # The Procfile names gunicorn and celery bare: an unactivated venv needs them on PATH.
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
    )
    log_path = data_dir / "server.log"
    log = log_path.open("wb")
    started = time.monotonic()
    # Its own session, so one signal reaches the supervisor and the databases.
    proc = subprocess.Popen(
        [sys.executable, "-m", "scripts.stack", "run"],
        cwd=server_root,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(base_url, proc, log_path)
        print(
            f"server ({server_root}, {web_processes} web processes) up at {base_url} in "
            f"{time.monotonic() - started:.1f} s (log {log_path})"
        )
        yield Server(base_url, pid=proc.pid, data_dir=data_dir)
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
    seat_stream: bool = False  # play from each seat's stream instead of long polls
    baseline: bool = True  # a GET /me after each action (the requests way only)
    deadline: float = 0.0  # monotonic, set when play starts; no new match after it

    def another(self, played: int) -> bool:
        if self.matches_per_client is not None:
            return played < self.matches_per_client
        return time.monotonic() < self.deadline


def seat_player(api: Api, stats: Stats, match_id: int, seed: int, plan: Plan) -> None:
    def me() -> None:
        # The baseline read, interleaved with the play of the same client.
        api.get("/me/", route="GET me")

    seat = SeatClient(
        api, match_id, rng=random.Random(seed), log=None, after_action=me if plan.baseline else None
    )
    final = seat.play_from_stream() if plan.seat_stream else seat.play()
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
            seat_player(api, stats, match["id"], seed * 1000 + played, plan)
            with stats.lock:
                stats.matches += 1
            played += 1
    finally:
        for inbox in inboxes:
            inbox.put(None)


def follower(api: Api, inbox: queue.Queue, plan: Plan, stats: Stats, seed: int) -> None:
    played = 0
    while (match_id := inbox.get()) is not None:
        join_match(api, match_id)
        seat_player(api, stats, match_id, seed * 1000 + played, plan)
        played += 1


def guarded(target, stats: Stats, *args) -> None:
    try:
        target(*args)
    except (ApiError, httpx.HTTPError, RuntimeError, KeyError) as exc:
        with stats.lock:
            stats.errors.append(f"client stopped: {exc!r}")


def own_cpu() -> float:
    """CPU seconds so far of this process: the clients, on the same cores as the server."""
    times = os.times()
    return times.user + times.system


def run_load(plan: Plan, clients: int, stats: Stats, server: Server) -> tuple[float, dict]:
    """Registers `clients` accounts, plays; returns the seconds of play and the server's
    CPU seconds in them."""
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
                    target=guarded, args=(follower, stats, api, inbox, plan, stats, g + i + 1)
                )
            )
    cpu_before = server.cpu_seconds()
    clients_before = own_cpu()
    started = time.monotonic()
    plan.deadline = started + plan.duration
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    cpu = {k: v - cpu_before[k] for k, v in server.cpu_seconds().items()}
    cpu["clients"] = own_cpu() - clients_before
    for api in apis:
        api.close()
    return elapsed, cpu


def report(
    stats: Stats, clients: int, players: int, elapsed: float, cpu: dict[str, float]
) -> float | None:
    print()
    print(
        f"{clients} clients, {players} players a match: {stats.matches} matches, "
        f"{stats.actions} actions in {elapsed:.1f} s = {stats.actions / elapsed:.1f} actions/s"
    )
    if stats.actions and cpu["all"]:
        print(
            f"server CPU per action: web {cpu['web'] / stats.actions * 1000:.1f} ms, "
            f"all processes {cpu['all'] / stats.actions * 1000:.1f} ms "
            f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
        )
        print(
            f"the clients' own CPU per action: {cpu['clients'] / stats.actions * 1000:.1f} ms "
            f"({cpu['clients'] / elapsed:.2f} of a core, on the same machine)"
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
    parser.add_argument(
        "--web-processes",
        default="2",
        help="gunicorn worker processes; comma-separated to run once with each (e.g. 1,2)",
    )
    parser.add_argument(
        "--server-root", type=Path, default=ROOT, help="the checkout whose server to start"
    )
    ways = parser.add_mutually_exclusive_group()
    ways.add_argument(
        "--seat-stream",
        action="store_true",
        help="clients play from their seat's stream (one POST a turn) instead of long polls",
    )
    ways.add_argument(
        "--stream",
        action="store_true",
        help="play both ways, one after the other on the same server, and compare them",
    )
    args = parser.parse_args(argv)
    if args.clients < args.players_per_match:
        parser.error("--clients must be at least --players-per-match")
    ways = [False, True] if args.stream else [args.seat_stream]

    failed = False
    for web_processes in [int(n) for n in args.web_processes.split(",")]:
        runs: list[tuple[str, Stats, float, dict[str, float]]] = []

        def keep(runs: list = runs) -> bool:
            return args.keep_log or any(stats.errors for _, stats, _, _ in runs)

        server = (
            contextlib.nullcontext(Server(args.base_url.rstrip("/")))
            if args.base_url
            # A run with errors keeps the server's log for the post-mortem.
            else local_server(
                keep, web_processes=web_processes, server_root=args.server_root.resolve()
            )
        )
        with server as running:
            for seat_stream in ways:
                stats = Stats()
                plan = Plan(
                    base_url=running.base_url,
                    players=args.players_per_match,
                    rulesets=args.ruleset.split(","),
                    matches_per_client=args.matches_per_client,
                    duration=args.duration,
                    seat_stream=seat_stream,
                    baseline=not seat_stream,
                )
                runs.append(
                    (WAYS[seat_stream], stats, *run_load(plan, args.clients, stats, running))
                )
        for way, stats, elapsed, cpu in runs:
            print(f"\n--- {way} ---")
            ratio = report(stats, args.clients, args.players_per_match, elapsed, cpu)
            failed = failed or bool(stats.errors) or (way == WAYS[False] and ratio is None)
        if len(runs) > 1:
            compare(runs)
    return 1 if failed else 0


WAYS = {False: "requests (long poll, GET match, POST, GET me)", True: "seat stream (+ POST)"}


def compare(runs: list[tuple[str, Stats, float, dict[str, float]]]) -> None:
    """The ways side by side, with issue 24's goals for the seat stream."""
    print(f"\n{'way':<48}{'moves/s':>9}{'CPU/move web':>14}{'all':>7}{'POST p50':>10}{'p99':>8}")
    for way, stats, elapsed, cpu in runs:
        posts = stats.latencies.get("POST actions") or [0.0]
        moves = max(stats.actions, 1)
        print(
            f"{way:<48}{stats.actions / elapsed:>9.1f}{cpu['web'] / moves * 1000:>11.1f} ms"
            f"{cpu['all'] / moves * 1000:>7.1f}{percentile(posts, 50) * 1000:>10.1f}"
            f"{percentile(posts, 99) * 1000:>8.1f}"
        )
    _, stats, elapsed, cpu = runs[-1]
    per_move = cpu["all"] / max(stats.actions, 1) * 1000
    rate = stats.actions / elapsed
    p99 = percentile(stats.latencies.get("POST actions") or [0.0], 99) * 1000
    print(
        f"goals (seat stream): CPU per move {per_move:.1f} ms <= 5 ms: "
        f"{'met' if per_move <= 5 else 'NOT met'}; {rate:.0f} moves/s >= 200 with POST p99 "
        f"{p99:.0f} ms < 100 ms: {'met' if rate >= 200 and p99 < 100 else 'NOT met'}"
    )


if __name__ == "__main__":
    sys.exit(main())
