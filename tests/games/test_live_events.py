"""Live events through the real ASGI server (gunicorn + uvicorn worker): clients that
wait by the hundred, event streams that resume with no gap, the account stream, limits,
token revocation and shutdown."""

import asyncio
import contextlib
import json
import signal
import socket
import threading
import time
import uuid

import httpx
import pytest
from django.db import connection

from accounts.services import token_create
from core.payloads import timestamp
from games import services
from games.models import Match, MatchEvent
from tests.factories import ActiveMatchFactory, FinishedMatchFactory, PlayerFactory
from tests.games.helpers import MATCHES, seated_players
from tests.live_server import StreamReader
from tests.servers import WebServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _token(user) -> str:
    return token_create(user=user)[1]


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _bid(match_id: int, players) -> int:
    """The player on turn makes the lowest bid on sixes (or a legal one); returns the
    match's new event_seq."""
    match = Match.objects.get(pk=match_id)
    seat_of = {s.seat: s.player_id for s in match.seats.all()}
    client = next(c for u, c in players if u.pk == seat_of[match.turn_seat])
    legal = client.get(f"{MATCHES}{match_id}/").json()["legal_actions"]
    bid = next(a for a in legal if a["type"] == "bid")
    face, quantity = max(bid["min_quantity_by_face"].items(), key=lambda kv: int(kv[0]))
    action = {"type": "bid", "quantity": quantity, "face": int(face)}
    response = client.post(f"{MATCHES}{match_id}/actions/", action, format="json")
    assert response.status_code == 201, response.content
    return Match.objects.get(pk=match_id).event_seq


def test_more_than_500_waiting_clients_are_all_answered(live_asgi):
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    seq = Match.objects.get(pk=match_id).event_seq
    # 400 long polls by the two players, 120 streams by 12 spectators (10 each).
    tokens = [_token(u) for u, _ in players]
    spectators = [_token(PlayerFactory()) for _ in range(12)]
    polls, streams = 400, 120
    results: list = []

    async def poll(client: httpx.AsyncClient, token: str) -> None:
        r = await client.get(
            f"/api/v1/matches/{match_id}/events/?after={seq}&wait=30", headers=_auth(token)
        )
        results.append(("poll", r.status_code, [e["seq"] for e in r.json()["events"]]))

    async def stream(client: httpx.AsyncClient, token: str, opened: asyncio.Event) -> None:
        url = f"/api/v1/matches/{match_id}/stream/?after={seq}"
        async with client.stream("GET", url, headers=_auth(token)) as r:
            opened.set()
            async for line in r.aiter_lines():
                if line.startswith("id: "):
                    results.append(("stream", r.status_code, [int(line[4:])]))
                    return

    async def main() -> None:
        limits = httpx.Limits(max_connections=polls + streams + 10)
        async with httpx.AsyncClient(base_url=live_asgi.url, timeout=60, limits=limits) as c:
            opened = [asyncio.Event() for _ in range(streams)]
            tasks = [asyncio.create_task(poll(c, tokens[i % 2])) for i in range(polls)]
            tasks += [
                asyncio.create_task(stream(c, spectators[i % 12], opened[i]))
                for i in range(streams)
            ]
            await asyncio.wait_for(asyncio.gather(*(e.wait() for e in opened)), 60)
            await asyncio.sleep(1)
            assert not results, "a waiter was answered before anything happened"
            await asyncio.to_thread(_bid, match_id, players)
            await asyncio.wait_for(asyncio.gather(*tasks), 60)

    asyncio.run(main())
    assert len(results) == polls + streams
    assert all(status == 200 for _, status, _ in results)
    assert all(seqs and seqs[0] == seq + 1 for _, _, seqs in results), results[:5]


def test_a_dropped_stream_resumes_with_no_gap_and_no_duplicate(live_asgi):
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    token = _token(players[0][0])
    url = f"{live_asgi.url}/api/v1/matches/{match_id}/stream/"
    first = StreamReader(url + "?after=0", token)
    start_seq = Match.objects.get(pk=match_id).event_seq
    assert first.wait_for(lambda s: len(s.events) >= start_seq)
    assert first.status == 200
    assert first.response_headers["content-type"].startswith("text/event-stream")
    assert first.response_headers["x-accel-buffering"] == "no"
    seq = _bid(match_id, players)
    assert first.wait_for(lambda s: s.events and s.events[-1].id == seq)
    first.drop()
    # Events written while the client is away...
    for _ in range(3):
        seq = _bid(match_id, players)
    # ...arrive after it reconnects with the last id it saw, as EventSource does.
    last_seen = first.events[-1].id
    second = StreamReader(url, token, headers={"Last-Event-ID": str(last_seen)})
    seq = _bid(match_id, players)
    assert second.wait_for(lambda s: s.events and s.events[-1].id == seq)
    second.drop()
    ids = [e.id for e in first.events + second.events]
    logged = list(
        MatchEvent.objects.filter(match_id=match_id).order_by("seq").values_list("seq", "type")
    )
    assert ids == [s for s, _ in logged]  # every event once, in order
    assert [(e.id, e.type) for e in first.events + second.events] == logged
    assert all(e.data["seq"] == e.id for e in first.events + second.events)


def test_the_account_stream_announces_your_turn_within_a_second(live_asgi):
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    match = Match.objects.get(pk=match_id)
    seat_of = {s.player_id: s.seat for s in match.seats.all()}
    mover = next(u for u, _ in players if seat_of[u.pk] == match.turn_seat)
    waiter = next(u for u, _ in players if u.pk != mover.pk)
    stream = StreamReader(f"{live_asgi.url}/api/v1/stream/", _token(waiter))
    assert stream.wait_for(lambda s: s.status == 200)
    time.sleep(0.5)  # subscribed
    _bid(match_id, players)
    moved_at = time.monotonic()
    assert stream.wait_for(lambda s: any(e.type == "your_turn" for e in s.events), timeout=5)
    took = time.monotonic() - moved_at
    stream.drop()
    turn = next(e for e in stream.events if e.type == "your_turn")
    match.refresh_from_db()
    assert turn.data == {  # flat: the envelope and the payload side by side
        "id": turn.id,
        "type": "your_turn",
        "created_at": turn.data["created_at"],
        "match_id": match_id,
        "seat": seat_of[waiter.pk],
        "version": match.version,
        "turn_deadline": timestamp(match.turn_deadline),
        "seat_stream": f"/api/v1/matches/{match_id}/seat-stream/",
    }
    assert turn.data["turn_deadline"].endswith("Z") and turn.data["created_at"].endswith("Z")
    assert took < 1.0, took


def test_the_account_stream_resumes_by_id_and_tells_start_and_end(live_asgi):
    players = seated_players(2)
    tokens = [_token(u) for u, _ in players]
    stream = StreamReader(f"{live_asgi.url}/api/v1/stream/?after=0", tokens[1])
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    assert stream.wait_for(lambda s: any(e.type == "match_started" for e in s.events))
    # A moderator's abort ends the match for everyone seated.
    from games.services import match_abort

    match_abort(match_id=match_id, actor=PlayerFactory(is_staff=True))
    assert stream.wait_for(lambda s: any(e.type == "match_finished" for e in s.events))
    stream.drop()
    ids = [e.id for e in stream.events]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    finished = next(e for e in stream.events if e.type == "match_finished")
    assert finished.data["status"] == "aborted"
    # Resuming after the first event replays the rest, and nothing before it.
    again = StreamReader(
        f"{live_asgi.url}/api/v1/stream/", tokens[1], headers={"Last-Event-ID": str(ids[0])}
    )
    assert again.wait_for(lambda s: len(s.events) == len(ids) - 1)
    again.drop()
    assert [e.id for e in again.events] == ids[1:]


def test_a_log_longer_than_a_page_is_followed_to_its_end(live_asgi):
    """A read carries at most 200 events: followers sharing the match's log read on
    after a full page instead of taking it for the end."""
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    match = Match.objects.get(pk=match_id)
    last = match.event_seq + 250
    MatchEvent.objects.bulk_create(
        MatchEvent(match=match, seq=seq, type="chat", data={"type": "chat", "text": str(seq)})
        for seq in range(match.event_seq + 1, last + 1)
    )
    Match.objects.filter(pk=match_id).update(event_seq=last)
    token = _token(players[0][0])
    stream = StreamReader(f"{live_asgi.url}/api/v1/matches/{match_id}/stream/?after=0", token)
    assert stream.wait_for(lambda s: s.events and s.events[-1].id == last, timeout=30)
    polled, after = [], 0
    while after < last:  # with the stream still following the match
        body = httpx.get(
            f"{live_asgi.url}/api/v1/matches/{match_id}/events/?after={after}&wait=5",
            headers=_auth(token),
            timeout=30,
        ).json()
        assert body["events"], f"no events after {after}"
        polled += [e["seq"] for e in body["events"]]
        after = body["last_seq"]
    stream.drop()
    assert [e.id for e in stream.events] == list(range(1, last + 1))
    assert polled == list(range(1, last + 1))


def test_a_match_stream_ends_after_the_final_event(live_asgi):
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    from games.services import match_abort

    match_abort(match_id=match_id, actor=PlayerFactory(is_staff=True))
    stream = StreamReader(
        f"{live_asgi.url}/api/v1/matches/{match_id}/stream/?after=0", _token(players[0][0])
    )
    assert stream.ended.wait(10), "the stream of an ended match did not end"
    assert stream.events[-1].type == "match_aborted"


def test_chat_messages_wake_followers_as_chat_events(live_asgi):
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    seq = Match.objects.get(pk=match_id).event_seq
    stream = StreamReader(
        f"{live_asgi.url}/api/v1/matches/{match_id}/stream/?after={seq}", _token(players[1][0])
    )
    assert stream.wait_for(lambda s: s.status == 200)
    response = players[0][1].post(f"{MATCHES}{match_id}/messages/", {"text": "hi"}, format="json")
    assert response.status_code == 201
    assert stream.wait_for(lambda s: s.events)
    stream.drop()
    chat = stream.events[0]
    assert chat.type == "chat" and chat.id == seq + 1
    assert chat.data["data"]["text"] == "hi"  # a match event: its payload is `data`
    assert chat.data["data"]["author"]["id"] == players[0][0].pk


def test_streams_close_when_the_token_is_revoked_or_the_user_banned(live_asgi):
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    user = players[0][0]
    token = _token(user)
    url = f"{live_asgi.url}/api/v1/matches/{match_id}/stream/?after=0"
    match_stream = StreamReader(url, token)
    account_stream = StreamReader(f"{live_asgi.url}/api/v1/stream/", token)
    other = StreamReader(url, _token(players[1][0]))
    assert match_stream.wait_for(lambda s: s.events)
    assert account_stream.wait_for(lambda s: s.status == 200)
    assert httpx.delete(f"{live_asgi.url}/api/v1/auth/token/", headers=_auth(token)).is_success
    assert match_stream.ended.wait(5) and account_stream.ended.wait(5)
    assert not other.ended.is_set()  # another user's stream stays open
    # A ban closes the streams of every token of the banned user.
    banned = players[1][0]
    fresh = StreamReader(f"{live_asgi.url}/api/v1/stream/", _token(banned))
    assert fresh.wait_for(lambda s: s.status == 200)
    from games.services import player_banned

    player_banned(user_id=banned.pk)
    assert fresh.ended.wait(5) and other.ended.wait(5)


def test_renewed_long_polls_refuse_a_revoked_token_and_a_banned_user_at_once(live_asgi):
    """A renewal is answered from the token check the process remembers (no query), yet a
    revocation or a ban counts from the moment it answered, in every web process."""
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    seq = Match.objects.get(pk=match_id).event_seq
    url = f"{live_asgi.url}/api/v1/matches/{match_id}/events/?after={seq}&wait=0"
    user, banned = players[0][0], players[1][0]
    token, other_token, banned_token = _token(user), _token(user), _token(banned)
    with httpx.Client() as client:
        for _ in range(3):  # checked once, then remembered
            for each in (token, other_token, banned_token):
                assert client.get(url, headers=_auth(each)).status_code == 200
        revoked = client.delete(f"{live_asgi.url}/api/v1/auth/token/", headers=_auth(token))
        assert revoked.is_success
        refused = client.get(url, headers=_auth(token))
        assert refused.status_code == 401, refused.content
        assert client.get(url, headers=_auth(other_token)).status_code == 200
        from games.services import player_banned

        player_banned(user_id=banned.pk)
        refused = client.get(url, headers=_auth(banned_token))
        assert refused.status_code == 401, refused.content


def test_too_many_open_streams_get_a_429_problem():
    user = PlayerFactory()
    token = _token(user)
    # One web process: the per-process cap is then exact.
    with WebServer(workers=1, STREAMS_PER_USER="3") as server:
        url = f"{server.url}/api/v1/stream/"
        open_ones = [StreamReader(url, token) for _ in range(3)]
        assert all(s.wait_for(lambda s: s.status == 200) for s in open_ones)
        refused = httpx.get(url, headers=_auth(token), timeout=10)
        assert refused.status_code == 429
        assert refused.headers["content-type"] == "application/problem+json"
        assert refused.json()["code"] == "too_many_streams"
        assert int(refused.headers["retry-after"]) > 0
        open_ones[0].drop()
        time.sleep(0.5)
        again = StreamReader(url, token)  # a closed stream frees its place
        assert again.wait_for(lambda s: s.status == 200)
        for s in [*open_ones[1:], again]:
            s.drop()


def test_graceful_shutdown_ends_streams_and_answers_long_polls():
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    seq = Match.objects.get(pk=match_id).event_seq
    token = _token(players[0][0])
    with WebServer(workers=1) as server:
        stream = StreamReader(f"{server.url}/api/v1/matches/{match_id}/stream/", token)
        assert stream.wait_for(lambda s: s.status == 200)
        answers: list = []

        def poll() -> None:
            answers.append(
                httpx.get(
                    f"{server.url}/api/v1/matches/{match_id}/events/?after={seq}&wait=30",
                    headers=_auth(token),
                    timeout=60,
                )
            )

        poller = threading.Thread(target=poll)
        poller.start()
        time.sleep(1.0)
        started = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        assert stream.ended.wait(10)
        poller.join(10)
        assert time.monotonic() - started < 10
        assert answers and answers[0].status_code == 200
        assert answers[0].json() == {"events": [], "last_seq": seq}
        assert server.proc.wait(timeout=30) == 0


def test_a_wait_survives_the_listener_losing_its_connection(live_asgi):
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    seq = Match.objects.get(pk=match_id).event_seq
    token = _token(players[0][0])
    answers: list = []

    def poll() -> None:
        answers.append(
            httpx.get(
                f"{live_asgi.url}/api/v1/matches/{match_id}/events/?after={seq}&wait=30",
                headers=_auth(token),
                timeout=60,
            )
        )

    poller = threading.Thread(target=poll)
    poller.start()
    time.sleep(1.0)
    with connection.cursor() as cursor:  # the database drops every listening connection
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE query LIKE 'LISTEN%%' AND datname = current_database()"
        )
        assert cursor.fetchone()[0] >= 1
    _bid(match_id, players)
    poller.join(30)
    assert answers and answers[0].json()["events"][0]["seq"] == seq + 1


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        (b"GET /api/v1/me/ HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n", 400),
        (b"GET /api/v1/me/ HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\n\r\n", 400),
        (b"GET /api/v1/" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
    ],
)
def test_requests_the_http_parser_refuses_get_problem_json(live_asgi, raw, status):
    host, port = live_asgi.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(raw)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == str(status).encode()
    assert b"content-type: application/problem+json" in head.lower()
    problem = json.loads(body)
    assert problem["status"] == status and problem["code"]


def test_ordinary_and_live_requests_each_log_one_json_line():
    """Request threads write their lines themselves, the event loop's go through the
    log thread (config.server.OffTheLoopHandler): both reach the server's output."""
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[user for user, _ in players], ruleset="classic").pk
    token = _token(players[0][0])
    ids = {"ordinary": uuid.uuid4().hex, "live": uuid.uuid4().hex}
    with WebServer(workers=1, LOG_LEVEL="INFO") as server:
        ordinary = httpx.get(
            f"{server.url}/api/v1/me/",
            headers={**_auth(token), "X-Request-ID": ids["ordinary"]},
            timeout=10,
        )
        live = httpx.get(
            f"{server.url}/api/v1/matches/{match_id}/events/?after=0&wait=0",
            headers={**_auth(token), "X-Request-ID": ids["live"]},
            timeout=10,
        )
        assert ordinary.status_code == live.status_code == 200
        deadline = time.monotonic() + 5
        found: dict[str, dict] = {}
        while time.monotonic() < deadline and len(found) < 2:
            for line in server.log.read_text(errors="replace").splitlines():
                with contextlib.suppress(ValueError):
                    entry = json.loads(line)
                    for kind, request_id in ids.items():
                        if isinstance(entry, dict) and entry.get("request_id") == request_id:
                            found[kind] = entry
            time.sleep(0.1)
        assert set(found) == {"ordinary", "live"}, server.tail()
    assert found["ordinary"]["path"] == "/api/v1/me/" and found["ordinary"]["status"] == 200
    assert found["live"]["path"] == f"/api/v1/matches/{match_id}/events/"
    assert found["live"]["status"] == 200


def test_a_long_poll_past_the_end_of_an_ended_match_learns_its_last_event_at_once(live_asgi):
    """A poller that asks beyond the last event of a finished match (a stale or made-up
    `after`) is told the real last event instead of waiting for events that never come."""
    match = FinishedMatchFactory(players=2, options={"dice_per_player": 1})
    token = _token(match.seats.get(seat=0).player)
    url = f"{live_asgi.url}/api/v1/matches/{match.pk}/events/?after=10000&wait=20"
    started = time.monotonic()
    answer = httpx.get(url, headers=_auth(token), timeout=30)
    assert answer.status_code == 200
    assert answer.json() == {"events": [], "last_seq": match.event_seq}
    assert time.monotonic() - started < 5


def test_a_long_poll_on_an_ended_match_sees_the_events_written_after_its_end(live_asgi):
    """A rematch's events follow the final one: a poller that learnt the end, then
    asks beyond the rematch's events, is told the real last event, not the end's."""
    match = FinishedMatchFactory(players=2, options={"dice_per_player": 1})
    ann, bob = (s.player for s in match.seats.order_by("seat"))
    token = _token(ann)
    url = f"{live_asgi.url}/api/v1/matches/{match.pk}/events/"
    ended = httpx.get(f"{url}?after=10000", headers=_auth(token), timeout=30).json()
    assert ended["last_seq"] == match.event_seq
    services.match_rematch(match_id=match.pk, user=bob)
    last = Match.objects.get(pk=match.pk).event_seq
    assert last == match.event_seq + 1
    answer = httpx.get(f"{url}?after={last + 5}&wait=20", headers=_auth(token), timeout=30)
    assert answer.json() == {"events": [], "last_seq": last}
    fresh = httpx.get(f"{url}?after={match.event_seq}", headers=_auth(token), timeout=30).json()
    assert [e["type"] for e in fresh["events"]] == ["rematch_offered"]
