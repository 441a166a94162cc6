"""The web server closes connections that hold a socket without sending a request
(config.server.ConnectionLimits, gunicorn's --keep-alive), caps connections per client
address, and leaves long polls and event streams alone once their request is read.

Attackers connect from other loopback addresses (127.0.1.x: on Linux all of 127/8 is
loopback) than the probes and the test's own clients (127.0.0.1), as they would from other
machines."""

import contextlib
import json
import resource
import selectors
import socket
import statistics
import threading
import time

import httpx
import pytest

from accounts.services import token_create
from config.server import ConnectionLimits
from tests.factories import UserFactory
from tests.live_server import StreamReader
from tests.servers import ROOT, WebServer

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SHORT = {  # the documented settings, shortened so the test waits seconds, not minutes
    "WEB_HEADER_TIMEOUT_SECONDS": "2",
    "WEB_BODY_TIMEOUT_SECONDS": "2",
    "WEB_KEEPALIVE_SECONDS": "1",
}
HALF_SENT = [  # half a request line, half the headers, half a body
    b"GET /api/v1/me/ HT",
    b"GET /api/v1/me/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: appli",
    b"POST /api/v1/auth/token/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"username": ',
]


def attacker(address: str, port: int) -> socket.socket:
    sock = socket.socket()
    sock.bind((address, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def closed_after(sock: socket.socket, timeout: float) -> tuple[float, bytes]:
    """(seconds until the server closed `sock`, what it sent before), or (inf, ...)."""
    started = time.monotonic()
    sock.settimeout(timeout)
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except TimeoutError:
        return float("inf"), received
    except ConnectionResetError:
        pass
    return time.monotonic() - started, received


def problem_code(response: bytes) -> str:
    head, _, body = response.partition(b"\r\n\r\n")
    return f"{head.split()[1].decode()} {json.loads(body)['code']}"


def test_the_defaults_suit_a_real_deployment():
    """Long enough for a slow phone network (a lost packet is resent after 1, 2, 4 s),
    short enough that a held socket is soon given back; keep-alive shorter than the
    header timeout, so a kept connection is closed by it, silently."""
    limits = ConnectionLimits.from_environ({})
    assert limits.header_timeout == 10 and limits.body_timeout == 30
    assert limits.per_address == 256
    web = (ROOT / "Procfile").read_text().splitlines()[0]
    assert "--keep-alive ${WEB_KEEPALIVE_SECONDS:-5}" in web
    assert "--backlog 4096" in web
    off = ConnectionLimits.from_environ(
        {"WEB_HEADER_TIMEOUT_SECONDS": "0", "WEB_CONNECTIONS_PER_ADDRESS": "0"}
    )
    assert off.header_timeout is None and off.per_address is None  # behind a proxy


@pytest.fixture
def user_token() -> str:
    return token_create(user=UserFactory())[1]


def quiet_match(client: httpx.Client, token: str) -> tuple[int, int]:
    """A match waiting for players: (its id, its last event's seq)."""
    created = client.post(
        "/api/v1/matches/",
        json={"ruleset": "classic", "max_players": 2, "turn_seconds": 3600},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert created.status_code == 201, created.text
    return created.json()["id"], created.json()["event_seq"]


def test_slow_senders_are_closed_and_readers_of_long_answers_are_not(user_token):
    auth = {"Authorization": f"Bearer {user_token}"}
    with (
        WebServer(workers=1, STREAM_HEARTBEAT_SECONDS="0.5", **SHORT) as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        match_id, last_seq = quiet_match(client, user_token)
        stream = StreamReader(
            f"{server.url}/api/v1/matches/{match_id}/stream/?after={last_seq}", user_token
        )
        idle = attacker("127.0.1.1", server.port)
        halves = [attacker("127.0.1.1", server.port) for _ in HALF_SENT]
        for sock, data in zip(halves, HALF_SENT, strict=True):
            sock.sendall(data)
        kept = attacker("127.0.1.1", server.port)
        kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")

        started = time.monotonic()
        poll = client.get(
            f"/api/v1/matches/{match_id}/events/",
            params={"after": last_seq, "wait": 6},
            headers=auth,
        )
        assert poll.status_code == 200
        assert time.monotonic() - started >= 5.5  # waited its whole wait, past every timeout

        seconds, sent = closed_after(idle, 1)
        assert seconds < 0.5 and sent == b""  # closed long ago, without a word
        for sock in halves:
            seconds, sent = closed_after(sock, 1)
            assert seconds < 0.5 and problem_code(sent) == "408 request_timeout"
        seconds, sent = closed_after(kept, 1)
        assert sent.startswith(b"HTTP/1.1 200") and seconds < 0.5  # kept-alive, then closed
        # The stream, open all along, still beats.
        beats = stream.items.count("heartbeat")
        assert not stream.ended.is_set() and beats >= 8
        assert stream.wait_for(lambda s: s.items.count("heartbeat") > beats, timeout=3)
        stream.drop()


def test_a_request_that_stalls_is_closed_at_its_timeout():
    with WebServer(workers=1, **SHORT) as server:
        for data in [b"", *HALF_SENT]:
            sock = attacker("127.0.1.1", server.port)
            sock.sendall(data)
            seconds, _ = closed_after(sock, 10)
            assert 1.5 <= seconds <= 4, (data, seconds)


def test_connections_past_the_cap_of_an_address_are_refused_others_served(user_token):
    with (
        WebServer(workers=1, WEB_CONNECTIONS_PER_ADDRESS="5") as server,
        httpx.Client(base_url=server.url, timeout=10) as client,
    ):
        held = [attacker("127.0.1.2", server.port) for _ in range(5)]
        refused = attacker("127.0.1.2", server.port)
        seconds, sent = closed_after(refused, 5)
        assert seconds < 1 and problem_code(sent) == "429 too_many_connections"
        auth = {"Authorization": f"Bearer {user_token}"}
        assert client.get("/api/v1/me/", headers=auth).status_code == 200  # 127.0.0.1
        other = attacker("127.0.1.3", server.port)
        other.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert other.recv(100).startswith(b"HTTP/1.1 200")
        held.pop().close()  # one of the five goes: the address may connect again
        time.sleep(0.2)
        again = attacker("127.0.1.2", server.port)
        again.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert again.recv(100).startswith(b"HTTP/1.1 200")
        for sock in [*held, refused, other, again]:
            sock.close()


IDLE, HALF = 3000, 200
PER_ADDRESS = 100  # under the default cap (256 a process): the timeouts close them


def test_thousands_of_idle_and_half_sent_connections_are_closed_while_the_api_answers(
    user_token,
):
    """3,000 connections that send nothing and 200 that send half a request, from 32
    addresses, against the Procfile's two processes with the default cap: nearly all are
    closed within 75 s (the header and body timeouts shortened to 5 s), and GET /me
    answers meanwhile."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # a socket each, as the server
    assert hard >= 2 * (IDLE + HALF), f"ulimit -n {hard}: too few file descriptors"
    probes: list[float] = []
    attack_over = threading.Event()
    auth = {"Authorization": f"Bearer {user_token}"}
    try:
        with WebServer(
            WEB_HEADER_TIMEOUT_SECONDS="5",
            WEB_BODY_TIMEOUT_SECONDS="5",
            WEB_CONNECTIONS_PER_ADDRESS=str(ConnectionLimits.per_address),  # the default
        ) as server:

            def probe() -> None:
                with httpx.Client(base_url=server.url, timeout=30) as client:
                    while not attack_over.is_set():
                        started = time.monotonic()
                        with contextlib.suppress(httpx.HTTPError):
                            client.get("/api/v1/me/", headers=auth).raise_for_status()
                        probes.append(time.monotonic() - started)  # a failure counts slow
                        time.sleep(0.05)

            prober = threading.Thread(target=probe)
            prober.start()
            sockets = []
            for i in range(IDLE + HALF):
                sock = attacker(f"127.0.1.{10 + i // PER_ADDRESS}", server.port)
                if i >= IDLE:
                    sock.sendall(HALF_SENT[i % len(HALF_SENT)])
                sock.setblocking(False)
                sockets.append(sock)
            opened = time.monotonic()
            closed = watch_closes(sockets, deadline=opened + 75)
            attack_over.set()
            prober.join()
            for sock in sockets:
                sock.close()
    finally:
        attack_over.set()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    within = [t - opened for t in closed.values()]
    print(
        f"{len(within)} of {IDLE + HALF} closed, the last {max(within):.1f} s after all were "
        f"open; GET /me p95 {statistics.quantiles(probes, n=20)[-1] * 1000:.0f} ms, "
        f"max {max(probes) * 1000:.0f} ms ({len(probes)} probes)"
    )
    assert len(within) >= 0.9 * (IDLE + HALF), f"{len(within)} closed of {IDLE + HALF}"
    assert max(within) < 20  # the 5 s timeouts, and the time to open them all
    assert len(probes) >= 20
    p95 = statistics.quantiles(probes, n=20)[-1]
    assert p95 < 1.0, f"GET /me p95 {p95:.2f} s over {len(probes)} probes"


def watch_closes(sockets: list[socket.socket], *, deadline: float) -> dict[int, float]:
    """When the server closed each socket (fd: monotonic time), until `deadline`."""
    closed: dict[int, float] = {}
    with selectors.DefaultSelector() as selector:
        for sock in sockets:
            selector.register(sock, selectors.EVENT_READ)
        while len(closed) < len(sockets) and time.monotonic() < deadline:
            for key, _ in selector.select(timeout=0.5):
                try:
                    if key.fileobj.recv(65536):
                        continue  # a 408, then the close
                except BlockingIOError:
                    continue
                except ConnectionResetError:
                    pass
                closed[key.fd] = time.monotonic()
                selector.unregister(key.fileobj)
    return closed


def test_docs_name_every_setting():
    deployment = (ROOT / "docs" / "DEPLOYMENT.md").read_text()
    for name in [*SHORT, "WEB_CONNECTIONS_PER_ADDRESS", "FORWARDED_ALLOW_IPS"]:
        assert f"`{name}`" in deployment, name
