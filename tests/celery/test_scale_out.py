"""Scale-out: two web processes and two Celery workers (plus beat) on one PostgreSQL and
one broker, many matches played at once through both web processes over real HTTP, and
one worker and one web process killed with SIGKILL mid-load. Nothing may be played twice
or lost: every match finishes, every event log is gapless, the ledger balances."""

import random
import threading
import time
from collections import Counter
from itertools import cycle

import httpx
import pytest
from django.core.management import call_command
from django.db.models import Count

from examples.client import Api, ApiError, SeatClient, create_match, join_match, register
from games import services, stakes
from games.models import Match, MatchEvent
from games.services.bot_players import server_bot
from ledger.models import Account
from tests.celery.conftest import wait_until
from tests.celery.test_worker import ACTION_TYPES, _assert_each_action_logged_once
from tests.factories import PlayerFactory, fund_house

pytestmark = pytest.mark.slow

PASSWORD = "scale-out-password-not-secret-42"
# Two dice each: a match is a few rounds, so many of them fit in the test's time.
OPTIONS = {"dice_per_player": 2}
RULESETS = cycle(["classic", "milton_bradley", "wild_ones"])


class FailoverTransport(httpx.HTTPTransport):
    """Sends each request to the first web process that accepts the connection, as a
    load balancer in front of several would: when one dies, its clients move on."""

    def __init__(self, ports: list[int]) -> None:
        super().__init__()
        self.ports = ports

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        refused: httpx.ConnectError | None = None
        for port in self.ports:
            request.url = request.url.copy_with(port=port)
            try:
                return super().handle_request(request)
            except httpx.ConnectError as exc:
                refused = exc
        assert refused is not None
        raise refused


def _client(ports: list[int]) -> Api:
    api = Api(f"http://127.0.0.1:{ports[0]}", timeout=30, max_retries=8)
    api.http = httpx.Client(
        base_url=f"http://127.0.0.1:{ports[0]}", timeout=30, transport=FailoverTransport(ports)
    )
    return api


class Players:
    """Human players in threads; collects what went wrong instead of raising."""

    def __init__(self) -> None:
        self.threads: list[threading.Thread] = []
        self.errors: list[str] = []
        self.match_ids: list[int] = []
        self.lock = threading.Lock()

    def start(self, name: str, target, *args) -> None:
        def run() -> None:
            try:
                target(*args)
            except Exception as exc:  # reported by the test, with the match it hit
                with self.lock:
                    self.errors.append(f"{name}: {exc!r}")

        thread = threading.Thread(target=run, name=name, daemon=True)
        self.threads.append(thread)
        thread.start()

    def played(self, match_id: int) -> None:
        with self.lock:
            self.match_ids.append(match_id)

    def join(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        for thread in self.threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        alive = [t.name for t in self.threads if t.is_alive()]
        assert not alive, f"players still playing: {alive}"


def _after_kill(call, *args, **kwargs):
    """`call` (a create or a join), sent again under a new key if its first request died
    with the web process that ran it: that request's work rolled back with its
    connection, and its key is in use (`idempotency_key_in_use`) until PostgreSQL drops
    the dead connection's owner lock. A request that did commit kept its response, and
    the resend gets that instead."""
    for _ in range(50):
        try:
            return call(*args, **kwargs)
        except ApiError as exc:
            if exc.code != "idempotency_key_in_use":
                raise
            time.sleep(0.1)
    raise AssertionError("a key stayed in use")


def _play(api: Api, match_id: int, seed: int) -> None:
    final = SeatClient(api, match_id, rng=random.Random(seed), wait=5, log=None).play()
    assert final["status"] == "finished", (match_id, final["status"])


def _pair(players: Players, host: Api, guest: Api, matches: int, seed: int) -> None:
    """Two people play `matches` matches in a row, one after another."""
    for n in range(matches):
        match = _after_kill(
            create_match,
            host,
            next(RULESETS),
            players=2,
            buy_in=10,
            ante=1,
            turn_seconds=30,
            options=OPTIONS,
        )
        players.played(match["id"])
        _after_kill(join_match, guest, match["id"])
        guest_thread = threading.Thread(target=_play, args=(guest, match["id"], seed + n))
        guest_thread.start()
        _play(host, match["id"], seed + n)
        guest_thread.join(60)
        assert not guest_thread.is_alive()


def _against_bots(players: Players, api: Api, matches: int, seed: int) -> None:
    for n in range(matches):
        match = _after_kill(
            create_match,
            api,
            next(RULESETS),
            players=3,
            bots=2,
            bot_strategy="hard",  # a bot the house stakes at a table with a buy-in
            buy_in=10,
            ante=1,
            turn_seconds=30,
            options=OPTIONS,
        )
        players.played(match["id"])
        _play(api, match["id"], seed + n)


def _bots_only() -> int:
    host = server_bot("expert")  # the house stakes it, as every server bot
    return services.match_create(
        user=host,
        ruleset="classic",
        max_players=3,
        turn_seconds=30,
        buy_in=10,
        ante=1,
        options=OPTIONS,
        bots=["hard", "hard"],
    ).match.pk


def _absent_human() -> int:
    """The human never acts: the worker (or the sweep) times them out, once."""
    return services.match_create(
        user=PlayerFactory(),
        ruleset="classic",
        max_players=2,
        turn_seconds=1,
        buy_in=10,
        ante=1,
        on_timeout="forfeit",
        bots=["hard"],
    ).match.pk


def test_two_web_processes_and_two_workers_survive_a_kill_of_each(celery_processes):
    # The first bot of each strategy exists before the load: two match creations that
    # each make two new bots, in opposite orders, can deadlock on the username index (a
    # first-use race of `server_bot`, not what this test is about).
    for strategy in ("expert", "hard"):
        server_bot(strategy)
    fund_house(100_000)  # the bots' buy-ins, from the house's bankroll
    doomed_worker = celery_processes.start_worker()
    celery_processes.start_worker()
    celery_processes.start_beat()
    doomed_web, other_web = celery_processes.start_web(), celery_processes.start_web()
    port_a, port_b = doomed_web.port, other_web.port

    # Half the clients send to A first and half to B; the two seats of a table are on
    # different processes, so every move wakes a long poll in the other process.
    on_a, on_b = [port_a, port_b], [port_b, port_a]
    humans = [_client(on_a if i % 2 == 0 else on_b) for i in range(14)]
    for i, api in enumerate(humans):
        register(api, f"scale{i}", PASSWORD)

    players = Players()
    for i in range(0, 10, 2):
        players.start(f"pair{i}", _pair, players, humans[i], humans[i + 1], 3, i * 10)
    for i in range(10, 14):
        players.start(f"solo{i}", _against_bots, players, humans[i], 3, i * 10)
    server_side = [_bots_only() for _ in range(4)] + [_absent_human() for _ in range(2)]

    # Mid-load: some matches over, most still to come.
    wait_until(lambda: Match.objects.filter(status=Match.Status.FINISHED).count() >= 6, timeout=90)
    celery_processes.kill(doomed_worker)
    doomed_web.kill()
    active_at_kill = Match.objects.filter(status=Match.Status.ACTIVE).count()
    server_side += [_absent_human() for _ in range(2)]  # due while a worker is gone

    players.join(timeout=150)
    assert not players.errors, players.errors
    played = players.match_ids + server_side
    assert len(played) == 5 * 3 + 4 * 3 + 8
    assert active_at_kill > 0
    wait_until(
        lambda: not Match.objects.filter(pk__in=played).exclude(status="finished").exists(),
        timeout=60,
    )

    absent = server_side[4:]
    for match_id in played:
        # No gap, no duplicate in the log; every applied action logged once (no double
        # move: the engine's action count equals the action events).
        seqs = list(
            MatchEvent.objects.filter(match_id=match_id)
            .order_by("seq")
            .values_list("seq", flat=True)
        )
        assert seqs == list(range(1, len(seqs) + 1)), match_id
        if match_id in absent:
            # The forfeit is the engine's action too, logged as the seat going out.
            actions = MatchEvent.objects.filter(match_id=match_id, type__in=ACTION_TYPES)
            forfeits = MatchEvent.objects.filter(
                match_id=match_id, type="player_out", data__reason="forfeit"
            )
            assert forfeits.count() == 1, match_id
            version = Match.objects.get(pk=match_id).state["version"]
            assert actions.count() + 1 == version, match_id
        else:
            _assert_each_action_logged_once(match_id)
        finished = MatchEvent.objects.filter(match_id=match_id, type="match_finished")
        assert finished.count() == 1, match_id
        assert (
            not Account.objects.filter(scope=stakes.match_scope(match_id))
            .exclude(balance=0)
            .exists()
        ), match_id

    # Each absent human timed out exactly once (forfeit), none lost, none doubled; no
    # one who played was timed out.
    timeouts = Counter(
        dict(
            MatchEvent.objects.filter(type="turn_timed_out")
            .values_list("match_id")
            .annotate(n=Count("id"))
        )
    )
    assert {match_id: timeouts[match_id] for match_id in absent} == dict.fromkeys(absent, 1)
    assert sum(timeouts.values()) == len(absent)
    call_command("ledger_check")
