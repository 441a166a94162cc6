"""Matches keep moving with nobody watching: a real worker (and beat) against the broker
the settings name (Redis in CI) and the real PostgreSQL."""

import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from django.core.management import call_command

from accounts.services import webhook_create
from games import services
from games.bots import bot_account, fund_bot
from games.models import Match, MatchEvent
from ledger.models import Account
from tests.celery.conftest import wait_until
from tests.factories import PlayerFactory

pytestmark = pytest.mark.slow


def _status(match_id: int) -> str:
    return Match.objects.get(pk=match_id).status


def _assert_settled(match_id: int) -> None:
    assert not Account.objects.filter(match_id=match_id).exclude(balance=0).exists()
    seqs = list(
        MatchEvent.objects.filter(match_id=match_id).order_by("seq").values_list("seq", flat=True)
    )
    assert seqs == list(range(1, len(seqs) + 1))
    call_command("ledger_check")


def _all_bot_match(**kwargs) -> Match:
    host = bot_account("expert")
    fund_bot(bot=host, amount=kwargs.get("buy_in", 0))
    return services.match_create(
        user=host,
        ruleset=kwargs.pop("ruleset", "milton_bradley"),
        max_players=3,
        turn_seconds=60,
        bots=["cautious", "random"],
        **kwargs,
    )


def test_an_all_bot_match_with_chips_plays_to_the_end(celery_processes):
    celery_processes.start_worker()
    match = _all_bot_match(buy_in=30, ante=1)
    wait_until(lambda: _status(match.pk) == "finished", timeout=120)
    _assert_settled(match.pk)
    # Every applied action appears once: versions strictly increase in the log.
    assert MatchEvent.objects.filter(match_id=match.pk, type="match_finished").count() == 1


def test_an_absent_human_is_timed_out_and_the_match_finishes(celery_processes):
    celery_processes.start_worker()
    human = PlayerFactory()
    match = services.match_create(
        user=human,
        ruleset="classic",
        max_players=2,
        turn_seconds=1,
        buy_in=10,
        ante=1,
        on_timeout="forfeit",
        bots=["cautious"],
    )
    wait_until(lambda: _status(match.pk) == "finished", timeout=60)
    timed_out = MatchEvent.objects.filter(match_id=match.pk, type="turn_timed_out")
    assert timed_out.count() == 1
    assert Match.objects.get(pk=match.pk).winner_seats == [1]
    _assert_settled(match.pk)


def test_killing_the_worker_mid_match_loses_no_turn(celery_processes):
    first = celery_processes.start_worker()
    celery_processes.start_beat()
    match = _all_bot_match(buy_in=40, ante=1, ruleset="classic")
    wait_until(lambda: Match.objects.get(pk=match.pk).version >= 6, timeout=60)
    celery_processes.kill(first)  # tasks it held are lost until the visibility timeout
    version_at_kill = Match.objects.get(pk=match.pk).version
    celery_processes.start_worker()
    wait_until(lambda: _status(match.pk) == "finished", timeout=180)
    assert Match.objects.get(pk=match.pk).version > version_at_kill
    _assert_settled(match.pk)


class _Receiver(BaseHTTPRequestHandler):
    received: list = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((self.headers["X-Signature"], body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_webhook_receiver_gets_verifiable_signatures(celery_processes):
    server = HTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Receiver.received = []
    try:
        celery_processes.start_worker()
        human = PlayerFactory()
        secret = "s3cret-for-the-receiver-0123456789"
        webhook_create(user=human, url=f"http://127.0.0.1:{server.server_port}/hook", secret=secret)
        match = services.match_create(
            user=human, ruleset="classic", max_players=2, turn_seconds=60, bots=["random"]
        )
        wait_until(lambda: Match.objects.get(pk=match.pk).turn_seat == 0, timeout=30)
        wait_until(lambda: _Receiver.received, timeout=30)
    finally:
        server.shutdown()
    signature, body = _Receiver.received[0]
    parts = dict(p.split("=", 1) for p in signature.split(","))
    expected = hmac.new(secret.encode(), f"{parts['t']}.".encode() + body, hashlib.sha256)
    assert hmac.compare_digest(parts["v1"], expected.hexdigest())
    payload = json.loads(body)
    assert payload["event"] == "your_turn" and payload["match_id"] == match.pk
