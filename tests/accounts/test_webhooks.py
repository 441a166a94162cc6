"""Webhooks: the /api/v1/webhooks/ endpoints, the URL guard, and deliveries to real HTTP
servers on loopback (redirects not followed, failures recorded, signatures verifiable)."""

import hashlib
import hmac
import json
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test import override_settings

from accounts.models import Webhook, WebhookDelivery
from accounts.secret_box import seal, unseal
from accounts.tasks import deliver_webhook
from accounts.webhooks import (
    MAX_ATTEMPTS,
    MAX_BACKOFF_SECONDS,
    WebhookRejected,
    check_url,
    deliver,
    is_public_address,
    retry_delay,
)
from core.models import IdempotencyRecord
from tests.conftest import client_for
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SECRET = "receiver-secret-0123456789abcdef"


class Receiver:
    """An HTTP server on loopback answering requests with the statuses it is given, in
    order (the last one repeats), and keeping what it received."""

    def __init__(self, *statuses: int, headers: dict[str, str] | None = None) -> None:
        self.statuses = list(statuses) or [204]
        self.headers = headers or {}
        self.received: list[tuple[str, dict[str, str], bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.received.append((self.path, dict(self.headers), body))
                statuses = receiver.statuses
                self.send_response(statuses.pop(0) if len(statuses) > 1 else statuses[0])
                for name, value in receiver.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST  # a followed 301/302 arrives as a GET

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def url(self, path: str = "/hook", host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def __enter__(self) -> "Receiver":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def _delivery(url: str, secret: str = SECRET) -> WebhookDelivery:
    hook = Webhook.objects.create(user=UserFactory(), url=url, encrypted_secret=seal(secret))
    return WebhookDelivery.objects.create(
        webhook=hook, event="your_turn", payload={"event": "your_turn", "match_id": 7}
    )


# --- the endpoints -------------------------------------------------------------------


def test_create_with_a_secret_returns_it_once_and_lists_without_it(user):
    client = client_for(user)
    response = client.post(
        "/api/v1/webhooks/", {"url": "http://127.0.0.1:9/hook", "secret": SECRET}, format="json"
    )
    assert response.status_code == 201, response.content
    assert response.json()["secret"] == SECRET
    listed = client.get("/api/v1/webhooks/").json()
    assert [h["url"] for h in listed] == ["http://127.0.0.1:9/hook"]
    assert "secret" not in listed[0]
    assert unseal(Webhook.objects.get(pk=listed[0]["id"]).encrypted_secret) == SECRET


def test_create_without_a_secret_makes_one(user):
    response = client_for(user).post(
        "/api/v1/webhooks/", {"url": "https://127.0.0.1/hook"}, format="json"
    )
    assert response.status_code == 201, response.content
    secret = response.json()["secret"]
    assert len(secret) >= 32
    assert unseal(Webhook.objects.get(pk=response.json()["id"]).encrypted_secret) == secret


def test_an_idempotency_key_replays_the_creation_and_refuses_another_body(user):
    client = client_for(user)
    key = {"HTTP_IDEMPOTENCY_KEY": "hook-1"}
    body = {"url": "http://127.0.0.1:9/hook"}
    first = client.post("/api/v1/webhooks/", body, format="json", **key)
    again = client.post("/api/v1/webhooks/", body, format="json", **key)
    assert first.status_code == again.status_code == 201
    # The same webhook; its secret was shown once and is not replayed.
    assert {**again.json(), "secret": first.json()["secret"]} == first.json()
    assert "secret" not in again.json()
    assert again["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    other = client.post("/api/v1/webhooks/", {"url": "http://127.0.0.1:9/x"}, format="json", **key)
    assert other.status_code == 422
    assert other["Content-Type"] == "application/problem+json"
    assert other.json()["code"] == "idempotency_key_reused"
    assert Webhook.objects.filter(user=user).count() == 1
    # Keys are per user: another account's same key creates its own webhook.
    assert (
        client_for(UserFactory()).post("/api/v1/webhooks/", body, format="json", **key).status_code
        == 201
    )
    assert Webhook.objects.count() == 2


def test_a_short_secret_or_bad_scheme_is_rejected_and_nothing_is_created(user):
    client = client_for(user)
    short = client.post(
        "/api/v1/webhooks/", {"url": "http://127.0.0.1/", "secret": "short"}, format="json"
    )
    ftp = client.post("/api/v1/webhooks/", {"url": "ftp://127.0.0.1/hook"}, format="json")
    assert short.status_code == 400 and ftp.status_code == 400
    assert ftp["Content-Type"] == "application/problem+json"
    assert not Webhook.objects.exists()


@override_settings(WEBHOOKS_ALLOW_PRIVATE=False)
def test_a_loopback_url_is_rejected_by_the_api(user):
    response = client_for(user).post(
        "/api/v1/webhooks/", {"url": "http://127.0.0.1:8000/hook"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_webhook_url"
    assert not Webhook.objects.exists()


def test_deleting_someone_elses_webhook_is_404_and_keeps_it(user):
    other = Webhook.objects.create(
        user=UserFactory(), url="http://127.0.0.1/", encrypted_secret=seal(SECRET)
    )
    client = client_for(user)
    response = client.delete(f"/api/v1/webhooks/{other.pk}/")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    other.refresh_from_db()
    assert other.active
    assert client.get(f"/api/v1/webhooks/{other.pk}/deliveries/").status_code == 404


def test_deleting_your_webhook_removes_it_from_the_list(user):
    client = client_for(user)
    created = client.post("/api/v1/webhooks/", {"url": "http://127.0.0.1/"}, format="json")
    hook_id = created.json()["id"]
    assert client.delete(f"/api/v1/webhooks/{hook_id}/").status_code == 204
    assert client.get("/api/v1/webhooks/").json() == []
    assert client.delete(f"/api/v1/webhooks/{hook_id}/").status_code == 404


def test_deliveries_list_shows_the_attempts_newest_first(user):
    hook = Webhook.objects.create(
        user=user, url="http://127.0.0.1:9/", encrypted_secret=seal(SECRET)
    )
    first = WebhookDelivery.objects.create(webhook=hook, event="your_turn", payload={"n": 1})
    second = WebhookDelivery.objects.create(
        webhook=hook,
        event="match_finished",
        payload={"n": 2},
        status=WebhookDelivery.Status.FAILED,
        attempts=MAX_ATTEMPTS,
        last_status_code=500,
        last_error="HTTP 500",
    )
    response = client_for(user).get(f"/api/v1/webhooks/{hook.pk}/deliveries/")
    assert response.status_code == 200
    body = response.json()
    assert [d["id"] for d in body] == [second.pk, first.pk]
    assert body[0]["status"] == "failed" and body[0]["attempts"] == MAX_ATTEMPTS
    assert body[0]["last_status_code"] == 500 and body[0]["last_error"] == "HTTP 500"
    assert body[1]["status"] == "pending" and body[1]["payload"] == {"n": 1}


# --- the URL guard -------------------------------------------------------------------


@pytest.mark.parametrize(
    "url", ["ftp://example.com/", "file:///etc/passwd", "javascript:alert(1)", "http:///x"]
)
def test_check_url_accepts_only_http_with_a_host(url):
    with pytest.raises(WebhookRejected):
        check_url(url)


@override_settings(WEBHOOKS_ALLOW_PRIVATE=False)
@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "http://localhost:8000/hook",
        "http://[::1]/hook",
        "http://10.0.0.8/hook",
        "https://192.168.1.1/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:127.0.0.1]/hook",
        "http://0.0.0.0/hook",
    ],
)
def test_check_url_rejects_private_and_loopback_hosts(url):
    with pytest.raises(WebhookRejected):
        check_url(url)


@override_settings(WEBHOOKS_ALLOW_PRIVATE=False)
@pytest.mark.parametrize(
    "host",
    [
        "[::7f00:1]",  # IPv4-compatible ::127.0.0.1
        "[::ffff:0:7f00:1]",  # IPv4-translated 127.0.0.1
        "[::ffff:a9fe:a9fe]",  # IPv4-mapped 169.254.169.254
        "[64:ff9b::a9fe:a9fe]",  # NAT64 of 169.254.169.254
        "[64:ff9b::a00:1]",  # NAT64 of 10.0.0.1
        "[64:ff9b:1::a00:1]",  # NAT64, local-use prefix
        "[2002:a9fe:a9fe::]",  # 6to4 of 169.254.169.254
        "[2001:0:a9fe:a9fe::1]",  # Teredo
        "[fec0::1]",  # site-local
        "[fd00::1]",  # unique local
        "[fe80::1]",  # link-local
        "[ff02::1]",  # multicast
        "[::]",
        "192.0.0.8",  # IETF protocol assignments
        "224.0.0.1",  # multicast
        "239.255.255.250",  # multicast (SSDP)
        "240.0.0.1",  # reserved
        "255.255.255.255",
        "100.64.0.1",  # shared address space (carrier-grade NAT)
        "198.18.0.1",  # benchmarking
        "2130706433",  # a host name that resolves to 127.0.0.1 (decimal form)
        "0x7f.1",  # ... hexadecimal, short form
        "3758096385",  # ... to 224.0.0.1
        "localhost",
    ],
)
def test_check_url_rejects_every_non_public_form(host):
    with pytest.raises(WebhookRejected, match="cannot target"):
        check_url(f"http://{host}:8080/hook")


@pytest.mark.parametrize(
    "address", ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111", "2a00:1450:4001:82a::200e"]
)
def test_public_addresses_are_allowed(address):
    assert is_public_address(address)


@override_settings(WEBHOOKS_ALLOW_PRIVATE=False)
def test_the_api_refuses_a_nat64_address_and_creates_nothing(user):
    response = client_for(user).post(
        "/api/v1/webhooks/", {"url": "http://[64:ff9b::a9fe:a9fe]/latest"}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid_webhook_url"
    assert not Webhook.objects.exists()


@pytest.mark.parametrize("given", [SECRET, None], ids=["own-secret", "made-secret"])
def test_a_replay_never_returns_the_secret_and_the_key_store_never_holds_it(user, given):
    client = client_for(user)
    key = {"HTTP_IDEMPOTENCY_KEY": "hook-secret"}
    body = {"url": "http://127.0.0.1:9/a", **({"secret": given} if given else {})}
    first = client.post("/api/v1/webhooks/", body, format="json", **key)
    secret = first.json()["secret"]
    again = client.post("/api/v1/webhooks/", body, format="json", **key)
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    assert secret not in again.content.decode()
    table = IdempotencyRecord._meta.db_table
    with connection.cursor() as cursor:  # every column of every row, as text
        cursor.execute(f"SELECT row_to_json(r)::text FROM {table} r")
        rows = [row for (row,) in cursor.fetchall()]
    assert len(rows) == 1
    assert secret not in rows[0]


def test_check_url_allows_loopback_when_the_settings_do():
    assert settings.WEBHOOKS_ALLOW_PRIVATE
    check_url("http://127.0.0.1:9/hook")  # no exception


def test_the_guard_is_applied_again_at_delivery():
    with Receiver() as receiver:
        delivery = _delivery(receiver.url())
        with override_settings(WEBHOOKS_ALLOW_PRIVATE=False):
            assert deliver(delivery.pk) is False
    delivery.refresh_from_db()
    assert receiver.received == []
    assert delivery.attempts == 1 and delivery.status == "pending"
    assert "private" in delivery.last_error


def test_retry_backoff_stays_below_the_visibility_timeout():
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    assert 0 < MAX_BACKOFF_SECONDS < visibility
    assert all(retry_delay(n) <= MAX_BACKOFF_SECONDS for n in range(1, 40))


# --- deliveries ----------------------------------------------------------------------


def test_a_delivery_is_signed_so_the_receiver_can_verify_it():
    with Receiver(204) as receiver:
        delivery = _delivery(receiver.url("/hook?team=1"))
        assert deliver(delivery.pk) is True
    path, headers, body = receiver.received[0]
    assert path == "/hook?team=1"
    assert headers["Content-Type"] == "application/json"
    assert headers["X-Delivery-Id"] == str(delivery.pk)
    parts = dict(p.split("=", 1) for p in headers["X-Signature"].split(","))
    expected = hmac.new(SECRET.encode(), f"{parts['t']}.".encode() + body, hashlib.sha256)
    assert hmac.compare_digest(parts["v1"], expected.hexdigest())
    # A receiver holding another secret cannot verify it.
    forged = hmac.new(b"another-secret-0123456789", f"{parts['t']}.".encode() + body, "sha256")
    assert not hmac.compare_digest(parts["v1"], forged.hexdigest())
    assert json.loads(body) == {"event": "your_turn", "match_id": 7}
    delivery.refresh_from_db()
    assert delivery.status == "delivered" and delivery.last_status_code == 204
    assert delivery.attempts == 1 and delivery.delivered_at is not None
    assert deliver(delivery.pk) is True  # a second run of the task sends nothing
    assert len(receiver.received) == 1


def test_a_host_name_is_sent_as_the_host_header_while_the_checked_address_is_dialled():
    with Receiver(200) as receiver:
        delivery = _delivery(receiver.url(host="localhost"))
        assert deliver(delivery.pk) is True
    assert receiver.received[0][1]["Host"] == f"localhost:{receiver.port}"


def test_a_redirect_is_not_followed():
    target = Receiver(204)
    redirector = Receiver(302, headers={"Location": target.url("/stolen")})
    with target, redirector:
        delivery = _delivery(redirector.url())
        assert deliver(delivery.pk) is False
    assert len(redirector.received) == 1
    assert target.received == []
    delivery.refresh_from_db()
    assert delivery.status == "pending" and delivery.attempts == 1
    assert delivery.last_status_code == 302
    assert "redirect" in delivery.last_error


def test_a_server_error_is_retried_until_it_succeeds():
    with Receiver(500, 200) as receiver:
        delivery = _delivery(receiver.url())
        assert deliver(delivery.pk) is False
        delivery.refresh_from_db()
        assert delivery.status == "pending" and delivery.attempts == 1
        assert delivery.last_status_code == 500 and delivery.last_error == "HTTP 500"
        assert deliver(delivery.pk) is True
    delivery.refresh_from_db()
    assert delivery.status == "delivered" and delivery.attempts == 2
    assert delivery.last_status_code == 200 and delivery.last_error == ""
    assert len(receiver.received) == 2


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_refused_connection_is_recorded_and_gives_up_after_max_attempts():
    delivery = _delivery(f"http://127.0.0.1:{_closed_port()}/hook")
    results = [deliver(delivery.pk) for _ in range(MAX_ATTEMPTS)]
    assert results == [False] * (MAX_ATTEMPTS - 1) + [True]
    delivery.refresh_from_db()
    assert delivery.status == "failed" and delivery.attempts == MAX_ATTEMPTS
    assert "ConnectionRefusedError" in delivery.last_error
    assert delivery.last_status_code is None


def test_a_garbled_response_is_a_recorded_failure_not_a_crash():
    listener = socket.create_server(("127.0.0.1", 0))

    def answer_garbage() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"this is not HTTP\r\n\r\n")

    thread = threading.Thread(target=answer_garbage, daemon=True)
    thread.start()
    try:
        delivery = _delivery(f"http://127.0.0.1:{listener.getsockname()[1]}/hook")
        assert deliver(delivery.pk) is False
    finally:
        thread.join(timeout=5)
        listener.close()
    delivery.refresh_from_db()
    assert delivery.status == "pending" and delivery.attempts == 1
    assert "BadStatusLine" in delivery.last_error


@override_settings(WEBHOOK_DEADLINE_SECONDS=1.0, WEBHOOK_TIMEOUT_SECONDS=5.0)
def test_a_receiver_answering_a_byte_at_a_time_is_cut_off_at_the_deadline():
    """Each byte comes well within the read timeout, so only the deadline for the whole
    exchange ends it: without one the worker waited as long as the receiver liked (here
    20 s, the receiver's own limit)."""
    listener = socket.create_server(("127.0.0.1", 0))
    finished = threading.Event()

    def trickle() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
            for _ in range(100):
                time.sleep(0.2)
                try:
                    conn.sendall(b"z")
                except OSError:  # the sender hung up: what the deadline should do
                    break
        finished.set()

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    try:
        delivery = _delivery(f"http://127.0.0.1:{listener.getsockname()[1]}/hook")
        started = time.monotonic()
        assert deliver(delivery.pk) is False
        elapsed = time.monotonic() - started
    finally:
        thread.join(timeout=30)
        listener.close()
    delivery.refresh_from_db()
    assert "TimeoutError: no answer within 1 s" in delivery.last_error
    assert elapsed < 10  # 1 s deadline; the receiver would have held it for 20 s
    assert finished.is_set()


@override_settings(WEBHOOK_TIMEOUT_SECONDS=0.3)
def test_a_receiver_that_never_answers_times_out_on_the_read():
    listener = socket.create_server(("127.0.0.1", 0))
    try:
        delivery = _delivery(f"http://127.0.0.1:{listener.getsockname()[1]}/hook")
        assert deliver(delivery.pk) is False  # connected (the backlog), never answered
    finally:
        listener.close()
    delivery.refresh_from_db()
    assert delivery.last_error.startswith("TimeoutError")


# --- https: the pinned address, the certificate checked for the host name -------------


@pytest.fixture
def tls_receiver(tmp_path: Path, monkeypatch) -> Iterator[Receiver]:
    """A receiver behind TLS with a certificate for `localhost` that the default trust
    store (pointed at it through SSL_CERT_FILE) accepts."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost"),
            *("-addext", "subjectAltName=DNS:localhost"),
        ],
        check=True,
        capture_output=True,
    )
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    receiver = Receiver(204)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    receiver.server.socket = context.wrap_socket(receiver.server.socket, server_side=True)
    with receiver:
        yield receiver


def test_https_is_verified_against_the_host_name(tls_receiver):
    delivery = _delivery(f"https://localhost:{tls_receiver.port}/hook")
    assert deliver(delivery.pk) is True
    assert len(tls_receiver.received) == 1


def test_https_to_an_address_the_certificate_does_not_name_fails(tls_receiver):
    delivery = _delivery(f"https://127.0.0.1:{tls_receiver.port}/hook")
    assert deliver(delivery.pk) is False
    delivery.refresh_from_db()
    assert "CERTIFICATE_VERIFY_FAILED" in delivery.last_error
    assert tls_receiver.received == []


def test_deliveries_are_enqueued_under_the_tasks_real_name():
    from accounts.webhooks import DELIVER_WEBHOOK

    assert deliver_webhook.name == DELIVER_WEBHOOK
