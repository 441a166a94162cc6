"""Matches keep moving with nobody watching: a real worker (and beat) against the broker
the settings name (Redis in CI) and the real PostgreSQL."""

import hashlib
import hmac
import itertools
import json
import re
import threading
import uuid
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone

from accounts.services import webhook_create
from games import services, stakes
from games.models import Match, MatchEvent, RoundRecord, Seat
from games.services.bot_players import server_bot
from games.tasks import apply_turn_timeout
from ledger.models import Account
from tests.celery.conftest import wait_until
from tests.factories import ActiveMatchFactory, PlayerFactory, fund_house

pytestmark = pytest.mark.slow


def _status(match_id: int) -> str:
    return Match.objects.get(pk=match_id).status


ACTION_TYPES = {"bid", "challenge", "exact", "pass", "show_reroll", "accept", "reroll"}


def _assert_settled(match_id: int) -> None:
    assert (
        not Account.objects.filter(scope=stakes.match_scope(match_id)).exclude(balance=0).exists()
    )
    seqs = list(
        MatchEvent.objects.filter(match_id=match_id).order_by("seq").values_list("seq", flat=True)
    )
    assert seqs == list(range(1, len(seqs) + 1))
    call_command("ledger_check")


def _assert_each_action_logged_once(match_id: int) -> None:
    """The event log holds every applied action exactly once: the action events of each
    round are that round's record, and there are as many as the engine applied."""
    logged: dict[int, list[dict]] = {}
    current = None
    for event in MatchEvent.objects.filter(match_id=match_id).order_by("seq"):
        if event.type == "round_started":
            current = event.data["number"]
            assert current not in logged  # no round started twice
            logged[current] = []
        elif event.type in ACTION_TYPES:
            logged[current].append(event.data)
    recorded = {
        r.number: r.record["actions"] for r in RoundRecord.objects.filter(match_id=match_id)
    }
    assert logged == recorded
    applied = Match.objects.get(pk=match_id).state["version"]  # the engine's action count
    assert sum(len(actions) for actions in logged.values()) == applied


def _all_bot_match(**kwargs) -> Match:
    host = server_bot("expert")  # the house stakes it, as every server bot
    if kwargs.get("buy_in"):  # from its bankroll, only bots that play for chips
        fund_house(3 * kwargs["buy_in"])
        return ActiveMatchFactory(players=[host], bots=["hard", "hard"], **kwargs)
    return ActiveMatchFactory(players=[host], bots=["cautious", "random"], **kwargs)


@pytest.mark.parametrize("ruleset", ["milton_bradley", "perudo"])
def test_an_all_bot_match_with_chips_plays_to_the_end(celery_processes, ruleset):
    celery_processes.start_worker()
    match = _all_bot_match(buy_in=30, ante=1, ruleset=ruleset)
    wait_until(lambda: _status(match.pk) == "finished", timeout=120)
    _assert_settled(match.pk)
    _assert_each_action_logged_once(match.pk)
    assert MatchEvent.objects.filter(match_id=match.pk, type="match_finished").count() == 1


@pytest.mark.parametrize("ruleset", ["classic", "perudo"])
def test_an_absent_human_is_timed_out_and_the_match_finishes(celery_processes, ruleset):
    celery_processes.start_worker()
    human = PlayerFactory()
    fund_house(10)  # the bot's buy-in, from the house's bankroll
    match = services.match_create(
        user=human,
        ruleset=ruleset,
        max_players=2,
        turn_seconds=1,
        buy_in=10,
        ante=1,
        on_timeout="forfeit",
        bots=["hard"],
    ).match
    wait_until(lambda: _status(match.pk) == "finished", timeout=60)
    timed_out = MatchEvent.objects.filter(match_id=match.pk, type="turn_timed_out")
    assert timed_out.count() == 1
    assert Match.objects.get(pk=match.pk).winner_seats == [1]
    _assert_settled(match.pk)


def test_killing_the_worker_mid_match_loses_no_turn(celery_processes):
    first = celery_processes.start_worker()
    celery_processes.start_beat()
    # Classic loses one die a round: 3 x 5 dice need 20+ actions, so two actions in the
    # match is still mid-match when the kill lands (polled every 0.2 s, 0.05 s a move).
    match = _all_bot_match(buy_in=40, ante=1, ruleset="classic")
    wait_until(lambda: Match.objects.get(pk=match.pk).version >= match.version + 2, timeout=60)
    celery_processes.kill(first)  # tasks it held are lost until the visibility timeout
    at_kill = Match.objects.get(pk=match.pk)
    assert at_kill.status == "active"
    celery_processes.start_worker()
    wait_until(lambda: _status(match.pk) == "finished", timeout=180)
    assert Match.objects.get(pk=match.pk).version > at_kill.version
    _assert_settled(match.pk)
    # No action was lost or applied twice across the kill and the sweep's recovery.
    _assert_each_action_logged_once(match.pk)
    assert MatchEvent.objects.filter(match_id=match.pk, type="match_finished").count() == 1


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
        ).match
        wait_until(lambda: Match.objects.get(pk=match.pk).turn_seat == 0, timeout=30)
        wait_until(
            lambda: any(b'"your_turn"' in body for _, body in _Receiver.received), timeout=30
        )
    finally:
        server.shutdown()
    signature, body = next(r for r in _Receiver.received if b'"your_turn"' in r[1])
    parts = dict(p.split("=", 1) for p in signature.split(","))
    expected = hmac.new(secret.encode(), f"{parts['t']}.".encode() + body, hashlib.sha256)
    assert hmac.compare_digest(parts["v1"], expected.hexdigest())
    payload = json.loads(body)
    assert payload["event"] == "your_turn" and payload["match_id"] == match.pk


# --- deadline tasks through the real broker: twice, late, and a whole poker turn -------


def _two_humans(**kwargs) -> Match:
    return ActiveMatchFactory(turn_seconds=600, **kwargs)


def _expire(match_id: int) -> None:
    Match.objects.filter(pk=match_id).update(turn_deadline=timezone.now() - timedelta(seconds=1))


def _runs(log: Path, task_id: str) -> list[str]:
    """The return values the worker logged for runs of this task id."""
    if not log.exists():
        return []
    return re.findall(rf"\[{task_id}\] succeeded in [0-9.]+s: (\w+)", log.read_text())


def test_a_deadline_task_delivered_twice_applies_one_timeout(celery_processes, tmp_path):
    log = tmp_path / "worker.log"
    celery_processes.start_worker(logfile=log)
    match = _two_humans()
    _expire(match.pk)
    task_id = str(uuid.uuid4())
    for _ in range(2):  # the same message twice, as a redelivery brings it
        apply_turn_timeout.apply_async((match.pk, match.version), task_id=task_id)
    wait_until(lambda: len(_runs(log, task_id)) == 2, timeout=60)
    assert sorted(_runs(log, task_id)) == ["False", "True"]
    assert Match.objects.get(pk=match.pk).version == match.version + 1
    assert MatchEvent.objects.filter(match=match, type="turn_timed_out").count() == 1


def test_a_deadline_task_delivered_after_the_turn_moved_on_does_nothing(celery_processes, tmp_path):
    log = tmp_path / "worker.log"
    celery_processes.start_worker(logfile=log)
    match = _two_humans()
    stale = match.version
    on_turn = Seat.objects.get(match=match, seat=match.turn_seat).player
    services.action_submit(
        match_id=match.pk, user=on_turn, action={"type": "bid", "quantity": 1, "face": 2}
    )
    _expire(match.pk)  # the next turn is due too: only a task at its version may act
    late = apply_turn_timeout.apply_async((match.pk, stale))
    wait_until(lambda: _runs(log, late.id), timeout=60)
    assert _runs(log, late.id) == ["False"]
    assert Match.objects.get(pk=match.pk).version == stale + 1
    assert not MatchEvent.objects.filter(match=match, type="turn_timed_out").exists()


def test_an_absent_poker_player_is_timed_out_once_per_turn(celery_processes):
    celery_processes.start_worker()
    human = PlayerFactory()
    match = services.match_create(
        user=human,
        ruleset="poker_dice",
        max_players=2,
        turn_seconds=1,
        max_timeouts=3,
        bots=["cautious"],
    ).match
    wait_until(lambda: _status(match.pk) == "finished", timeout=90)
    plays = [
        e
        for e in MatchEvent.objects.filter(match=match).order_by("seq")
        if e.type in ACTION_TYPES or e.type == "turn_timed_out"
    ]
    # Every round needs a turn of the absent player, who has 3 lives: the third missed
    # turn, not the dice, puts them out.
    assert [e.data["consecutive"] for e in plays if e.type == "turn_timed_out"] == [1, 2, 3]
    assert MatchEvent.objects.get(match=match, type="match_finished").data["loser_seat"] == 0
    # Each timeout played a whole turn: none lands between the absent player's accept or
    # reroll and the bid that ends their turn.
    for before, event in itertools.pairwise(plays):
        if event.type == "turn_timed_out":
            assert not (before.type in ("accept", "reroll") and before.data["seat"] == 0)
