"""Waiting clients benchmark: N clients wait at once (long polls and event streams, mixed)
while GET /api/v1/me/ is timed one request at a time.

    .venv/bin/python bench/watchers.py                      # N = 1000, 2000, 5000, 10000
    .venv/bin/python bench/watchers.py --clients 1000 --hold 30
    .venv/bin/python bench/watchers.py --base-url http://127.0.0.1:8000 --clients 500
    .venv/bin/python bench/watchers.py --me-only --base-url ...   # GET /me alone (baseline)
    .venv/bin/python bench/watchers.py --burst 2000 --clients --latency-subscribers 0
                                                   # a reconnect storm (below)

Without --base-url it starts the server as `make run` does (bench/api_load.py's
`local_server`: embedded PostgreSQL and Redis, the Procfile under honcho) with the
throttles raised and STREAMS_PER_USER at CLIENTS_PER_ACCOUNT. Against a running server,
its throttles must allow the registrations (THROTTLE_REGISTER_IP, THROTTLE_ANON) and the
load, and STREAMS_PER_USER the streams.

Once: register one account per CLIENTS_PER_ACCOUNT clients of the largest N (about a
second each: password hashing), pair them into quiet matches (a human's turn, long turn
time, so nothing happens). For each N: open N waiters spread over the matches, half long
polls (`events/?after=<last>&wait=25`, polled again as each returns) and half event
streams (`stream/?after=<last>`). While they all wait, GET /me is timed sequentially for
`--hold` seconds. Reported: GET /me p50/p99, waits that failed (an error, a dropped
stream, a refused connection) or came late (a long poll held over wait + 5 s), and the
web server's memory (RSS of its processes). Then, 10 s later (the server closing the
last N's connections is not what is measured), the commit-to-client latency: 1,000
streams on one match, 20 moves, each event's `created_at` (server clock, this machine)
against the moment each client read it: p50/p99.

Clients connect at `--ramp` a second (500 by default: 10,000 arrive over 20 s, as after
a restart when clients reconnect with some jitter; not 10,000 in the same millisecond),
in groups of RAMP_STEP; a refused or reset connection still counts as a failed wait.

`--burst N` first opens N long polls (wait=BURST_WAIT) in the same instant, as every
client of a restarted server reconnects, GET /me timed meanwhile: a wait is late when
answered more than BURST_LATE_AFTER s past its wait, counted from before its connect.

Waiters are raw HTTP/1.1 connections on uvloop, a stream read in whole chunks with no
timer of its own, cheap enough that 10,000 fit in this one process beside the server;
GET /me is timed from a process of its own, so this one's busy loop does not delay it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import resource
import sys
import time
import uuid
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import psutil
import uvloop

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.api_load import local_server, percentile  # noqa: E402

PASSWORD = "bench-password-not-secret-1234"
RUN = uuid.uuid4().hex[:6]  # account names are new on every run against one server
POLL_WAIT = 25
SETTLE_SECONDS = 10  # after the waiters close, before delivery is measured
# Waiting clients per account: registering one takes a second (password hashing).
CLIENTS_PER_ACCOUNT = 50
BURST_WAIT = 20  # --burst: each long poll's wait
BURST_LATE_AFTER = 2  # --burst: a poll answered later than its wait plus this is late
RAMP_STEP = 10  # clients opened at once while ramping up


@dataclass
class Tally:
    answered: int = 0  # long polls answered in time
    late: int = 0
    failed: int = 0
    failures: list[str] = field(default_factory=list)

    def fail(self, why: str) -> None:
        self.failed += 1
        if len(self.failures) < 5:
            self.failures.append(why)


# --- raw HTTP/1.1 over asyncio -----------------------------------------------------------


async def _request(host: str, port: int, path: str, token: str, extra: str = ""):
    reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
        f"{extra}\r\n".encode()
    )
    await writer.drain()
    status, headers = await _read_response(reader)
    return reader, writer, status, headers


async def _read_response(reader) -> tuple[int, dict]:
    status = int((await reader.readline()).split()[1])
    headers = {}
    while (line := (await reader.readline()).decode().strip()) != "":
        name, _, value = line.partition(":")
        headers[name.lower()] = value.strip()
    return status, headers


async def long_poll(address, conn, match_id, after, token, wait):
    """One long poll, on `conn` ((reader, writer)) or a new connection: (conn, status,
    body)."""
    host, port = address
    path = f"/api/v1/matches/{match_id}/events/?after={after}&wait={wait}"
    if conn is None:
        reader, writer, status, headers = await _request(host, port, path, token)
        conn = (reader, writer)
    else:
        reader, writer = conn
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n\r\n".encode()
        )
        status, headers = await _read_response(reader)
    body = json.loads(await reader.readexactly(int(headers["content-length"])))
    return conn, status, body


async def long_poller(address, match_id, after, token, tally: Tally):
    """Long polls one match, again on the same connection as each returns, until
    cancelled."""
    conn = None
    try:
        while True:
            started = time.monotonic()
            try:
                conn, status, body = await long_poll(
                    address, conn, match_id, after, token, POLL_WAIT
                )
                if status != 200:
                    tally.fail(f"long poll {status} {body.get('code')}")
                    await asyncio.sleep(1)
                    continue
                after = body["last_seq"]
                if time.monotonic() - started > POLL_WAIT + 5:
                    tally.late += 1
                else:
                    tally.answered += 1
            except (OSError, ValueError, KeyError, IndexError, asyncio.IncompleteReadError) as exc:
                tally.fail(f"long poll {type(exc).__name__} {exc}")
                if conn is not None:
                    conn[1].close()
                conn = None
                await asyncio.sleep(1)
    finally:
        if conn is not None:
            conn[1].close()


CONNECTED: list[int] = [0]  # streams that got their response headers


async def streamer(address, match_id, after, token, tally: Tally, received=None):
    """Follows a match stream until cancelled; `received` gets (seq, arrival wall time,
    created_at). Reads whatever arrived in one call and looks only at `data:` lines, so a
    thousand streams cost this process little (no timer or line read per stream)."""
    host, port = address
    path = f"/api/v1/matches/{match_id}/stream/?after={after}"
    try:
        reader, writer, status, _ = await _request(host, port, path, token)
    except (OSError, ValueError) as exc:
        tally.fail(f"stream connect {type(exc).__name__} {exc}")
        return
    if status != 200:
        tally.fail(f"stream {status}")
        writer.close()
        return
    CONNECTED[0] += 1
    pending = b""
    try:
        while chunk := await reader.read(1 << 16):
            if received is None:
                continue
            arrived = time.time()
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()
            for line in lines:
                # Chunked framing: data lines carry the events; sizes and blanks are skipped.
                if line.startswith(b"data: "):
                    event = json.loads(line[6:])
                    received.append((event["seq"], arrived, event["created_at"]))
        tally.fail("stream closed by the server")
    except (OSError, ValueError) as exc:
        tally.fail(f"stream {type(exc).__name__}")
    finally:
        writer.close()


async def _stream_until(address, match_id, after, token, tally):
    while True:
        await streamer(address, match_id, after, token, tally)
        await asyncio.sleep(1)


# --- setup through the API ---------------------------------------------------------------


def register_accounts(base_url: str, count: int, tag: str) -> list[str]:
    """`count` new accounts' tokens, registered two at a time (password hashing is the
    slow part, about a second each here)."""

    def one(i: int) -> str:
        with httpx.Client(base_url=base_url, timeout=60) as client:
            r = client.post(
                "/api/v1/auth/register/",
                json={"username": f"w{RUN}{tag}_{i}", "password": PASSWORD},
            )
            r.raise_for_status()
            return r.json()["token"]

    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(one, range(count)))


def quiet_matches(base_url: str, tokens: list[str]) -> list[tuple[int, int, str]]:
    """Pairs the accounts into active matches nobody moves in: (id, last seq, a token)."""
    matches = []
    with httpx.Client(base_url=base_url, timeout=30) as client:
        for a, b in zip(tokens[::2], tokens[1::2], strict=False):
            created = client.post(
                "/api/v1/matches/",
                json={"ruleset": "classic", "max_players": 2, "turn_seconds": 3600},
                headers={"Authorization": f"Bearer {a}"},
            )
            created.raise_for_status()
            match_id = created.json()["id"]
            joined = client.post(
                f"/api/v1/matches/{match_id}/join/",
                json={},
                headers={"Authorization": f"Bearer {b}"},
            )
            joined.raise_for_status()
            matches.append((match_id, joined.json()["event_seq"], a))
            matches.append((match_id, joined.json()["event_seq"], b))
    return matches


def time_me(base_url: str, token: str, seconds: float) -> list[float]:
    times = []
    auth = {"Authorization": f"Bearer {token}"}
    deadline = time.monotonic() + seconds
    with httpx.Client(base_url=base_url, timeout=30) as client:
        while time.monotonic() < deadline:
            started = time.perf_counter()
            # A failure counts at the time it took (30 s for a timeout).
            with contextlib.suppress(httpx.HTTPError):
                client.get("/api/v1/me/", headers=auth).raise_for_status()
            times.append((time.perf_counter() - started) * 1000)
    return times


def server_memory_mb(port: int) -> float:
    """RSS of the web server's processes: those listening on `port`, their parent
    (gunicorn's master) and its children."""
    listeners = set()
    for conn in psutil.net_connections(kind="tcp"):
        if conn.laddr and conn.laddr.port == port and conn.status == "LISTEN" and conn.pid:
            listeners.add(conn.pid)
    procs = {}
    for pid in listeners:
        with contextlib.suppress(psutil.Error):
            proc = psutil.Process(pid)
            for p in [proc, proc.parent(), *proc.parent().children()]:
                if p is not None and "gunicorn" in " ".join(p.cmdline()):
                    procs[p.pid] = p
    return sum(p.memory_info().rss for p in procs.values()) / 2**20


# --- the runs ----------------------------------------------------------------------------


async def timed_me(timer: ProcessPoolExecutor, base_url: str, token: str, hold: float):
    """GET /me timed in a process of its own: this one's event loop, busy with thousands
    of connections, would otherwise delay the timing thread (the GIL) and inflate it."""
    return await asyncio.get_running_loop().run_in_executor(timer, time_me, base_url, token, hold)


async def _cancel(tasks: list[asyncio.Task]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def hold_waiters(
    base_url: str, n: int, hold: float, seats: list, timer: ProcessPoolExecutor, ramp: float
) -> dict:
    parts = urlsplit(base_url)
    address = (parts.hostname, parts.port)
    tally = Tally()
    tasks = []
    CONNECTED[0] = 0
    for i in range(n):
        match_id, seq, token = seats[i % len(seats)]
        if i % 2:
            coro = _stream_until(address, match_id, seq, token, tally)
        else:
            coro = long_poller(address, match_id, seq, token, tally)
        tasks.append(asyncio.create_task(coro))
        if i % RAMP_STEP == RAMP_STEP - 1:
            await asyncio.sleep(RAMP_STEP / ramp)  # a ramp, not a SYN flood
    # Timed once every stream is connected (and so every long poll of the first wave is
    # in): the steady state, not the connection storm, which `ramp_s` reports.
    ramp_started = time.monotonic()
    while CONNECTED[0] + tally.failed < n // 2 and time.monotonic() - ramp_started < 300:
        await asyncio.sleep(0.5)
    ramp = time.monotonic() - ramp_started
    await asyncio.sleep(2)
    memory = server_memory_mb(parts.port)
    me = await timed_me(timer, base_url, seats[0][2], hold)
    await _cancel(tasks)
    return {"me": me, "tally": tally, "memory_mb": memory, "ramp_s": ramp}


async def burst(base_url: str, n: int, seats: list, timer: ProcessPoolExecutor) -> dict:
    """`n` long polls (`wait=BURST_WAIT`) opened in the same instant, as clients reconnect
    after a restart, while GET /me is timed: each poll's time from before its connect to
    its answer, so a connection the server was slow to accept counts."""
    parts = urlsplit(base_url)
    address = (parts.hostname, parts.port)
    tally = Tally()
    elapsed: list[float] = []

    async def one(match_id, seq, token) -> None:
        started = time.monotonic()
        conn = None
        try:
            conn, status, body = await long_poll(address, None, match_id, seq, token, BURST_WAIT)
            if status != 200:
                tally.fail(f"long poll {status} {body.get('code')}")
                return
            elapsed.append(time.monotonic() - started)
            if elapsed[-1] > BURST_WAIT + BURST_LATE_AFTER:
                tally.late += 1
            else:
                tally.answered += 1
        except (OSError, ValueError, KeyError, IndexError, asyncio.IncompleteReadError) as exc:
            tally.fail(f"long poll {type(exc).__name__} {exc}")
        finally:
            if conn is not None:
                conn[1].close()

    me = asyncio.create_task(timed_me(timer, base_url, seats[0][2], BURST_WAIT + 3))
    await asyncio.gather(*(one(*seats[i % len(seats)]) for i in range(n)))
    return {"me": await me, "tally": tally, "elapsed": elapsed}


def report_burst(n: int, result: dict) -> str:
    tally: Tally = result["tally"]
    over = [max(0.0, e - BURST_WAIT) for e in result["elapsed"]] or [0.0]
    return (
        f"burst of {n} long polls (wait={BURST_WAIT}): answered in time {tally.answered}, "
        f"late waits: {tally.late}, failed waits: {tally.failed}; past the wait p50 "
        f"{percentile(over, 50):.2f} s, p99 {percentile(over, 99):.2f} s, max "
        f"{max(over):.2f} s; {report_me('meanwhile', result['me'])}; "
        f"load {os.getloadavg()[0]:.1f}"
    )


async def event_latency(base_url: str, subscribers: int, moves: int, watchers: list[str]):
    parts = urlsplit(base_url)
    address = (parts.hostname, parts.port)
    players = await asyncio.to_thread(register_accounts, base_url, 2, "lat")
    (match_id, seq, _), _ = await asyncio.to_thread(quiet_matches, base_url, players)
    tally = Tally()
    received: list[list] = [[] for _ in range(subscribers)]
    CONNECTED[0] = 0
    tasks = [
        asyncio.create_task(
            streamer(address, match_id, seq, watchers[i % len(watchers)], tally, got)
        )
        for i, got in enumerate(received)
    ]
    # Moves start once every subscriber is connected: the latency of delivery, not of
    # a client still connecting.
    started = time.monotonic()
    while CONNECTED[0] + tally.failed < subscribers and time.monotonic() - started < 300:
        await asyncio.sleep(0.5)
    await asyncio.sleep(1)
    await asyncio.to_thread(_play_moves, base_url, match_id, players, moves)
    await asyncio.sleep(3)
    await _cancel(tasks)
    latencies = []
    for got in received:
        for _, arrived, created in got:
            latencies.append((arrived - datetime.fromisoformat(created).timestamp()) * 1000)
    if tally.failed:
        print(f"  latency run: {tally.failed} stream failures, e.g. {tally.failures[:2]}")
    return latencies


def _play_moves(base_url: str, match_id: int, tokens: list[str], moves: int) -> None:
    with httpx.Client(base_url=base_url, timeout=30) as client:
        for _ in range(moves):
            for token in tokens:
                auth = {"Authorization": f"Bearer {token}"}
                view = client.get(f"/api/v1/matches/{match_id}/", headers=auth).json()
                bid = next((a for a in view["legal_actions"] if a["type"] == "bid"), None)
                if bid is None:
                    continue
                face, quantity = min(
                    bid["min_quantity_by_face"].items(), key=lambda kv: (kv[1], kv[0])
                )
                client.post(
                    f"/api/v1/matches/{match_id}/actions/",
                    json={"type": "bid", "quantity": quantity, "face": int(face)},
                    headers=auth,
                )
                time.sleep(0.2)
                break


def report_me(label: str, times: list[float]) -> str:
    return (
        f"{label}: GET /me p50 {percentile(times, 50):.1f} ms, "
        f"p99 {percentile(times, 99):.1f} ms ({len(times)} requests)"
    )


async def run(base_url: str, args: argparse.Namespace, timer: ProcessPoolExecutor) -> None:
    load = os.getloadavg()
    print(
        f"machine: {os.cpu_count()} cores, load average {load[0]:.1f} at the start; "
        f"clients open at {args.ramp:.0f}/s"
    )
    idle_token = (await asyncio.to_thread(register_accounts, base_url, 1, "idle"))[0]
    print(report_me("no waiters", await timed_me(timer, base_url, idle_token, 10)))
    if args.me_only:
        return
    # One set of quiet matches serves every N (an account per CLIENTS_PER_ACCOUNT clients).
    started = time.monotonic()
    largest = max([*args.clients, args.latency_subscribers, args.burst])
    accounts = max(4, largest // CLIENTS_PER_ACCOUNT)
    tokens = await asyncio.to_thread(register_accounts, base_url, accounts, "w")
    seats = await asyncio.to_thread(quiet_matches, base_url, tokens)
    print(f"{accounts} accounts in {len(seats) // 2} matches, {time.monotonic() - started:.0f} s")
    for _ in range(args.burst_runs if args.burst else 0):
        result = await burst(base_url, args.burst, seats, timer)
        print(report_burst(args.burst, result), flush=True)
        for why in result["tally"].failures:
            print(f"  e.g. {why}")
    for n in args.clients:
        result = await hold_waiters(base_url, n, args.hold, seats, timer, args.ramp)
        tally: Tally = result["tally"]
        print(
            f"{report_me(f'N={n}', result['me'])}; long polls answered {tally.answered}, "
            f"late {tally.late}, failed waits {tally.failed}; server RSS "
            f"{result['memory_mb']:.0f} MB; streams all connected {result['ramp_s']:.0f} s "
            f"after the last opened; load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        for why in tally.failures:
            print(f"  e.g. {why}")
    if args.latency_subscribers:
        if args.clients:
            # The server is still closing the last N's connections for a few seconds:
            # delivery is measured on a settled server, not during that.
            await asyncio.sleep(SETTLE_SECONDS)
        latencies = await event_latency(base_url, args.latency_subscribers, args.moves, tokens)
        if latencies:
            print(
                f"event latency commit->client, {args.latency_subscribers} subscribers: "
                f"p50 {percentile(latencies, 50):.1f} ms, p99 {percentile(latencies, 99):.1f} "
                f"ms ({len(latencies)} deliveries); load {os.getloadavg()[0]:.1f}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url")
    parser.add_argument("--clients", type=int, nargs="*", default=[1000, 2000, 5000, 10000])
    parser.add_argument("--hold", type=float, default=30, help="seconds GET /me is timed")
    parser.add_argument("--latency-subscribers", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument(
        "--ramp",
        type=float,
        default=500,
        help="new clients a second while ramping up (past the listen backlog, 4,096 here, "
        "a busy server refuses some)",
    )
    parser.add_argument(
        "--burst",
        type=int,
        default=0,
        help=f"open this many long polls (wait={BURST_WAIT}) at once, as after a restart, "
        "before the --clients runs; report late waits (over the wait + "
        f"{BURST_LATE_AFTER} s)",
    )
    parser.add_argument("--burst-runs", type=int, default=1, help="bursts, one after another")
    parser.add_argument("--me-only", action="store_true")
    parser.add_argument("--keep-log", action="store_true", help="keep the server's log")
    args = parser.parse_args()
    # Every waiter is a socket here and in the server.
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    # Started before any connection exists (spawned, not forked), so it holds none.
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as timer:
        if args.base_url:
            uvloop.run(run(args.base_url, args, timer))
            return 0
        # The bench's clients share CLIENTS_PER_ACCOUNT accounts (registering is slow): its
        # server lets each open that many streams.
        os.environ.setdefault("STREAMS_PER_USER", str(CLIENTS_PER_ACCOUNT))
        # Registering counts against the per-address anonymous limit too.
        os.environ.setdefault("THROTTLE_ANON", "100000/min")
        # Every client of the bench comes from 127.0.0.1: no cap on connections per address.
        os.environ.setdefault("WEB_CONNECTIONS_PER_ADDRESS", "0")
        with local_server(lambda: args.keep_log) as server:
            uvloop.run(run(server.base_url, args, timer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
