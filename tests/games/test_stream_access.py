"""Streams follow access: a reader who loses sight of a match (its seat at a private match
gone: left, unseated, banned; or its token revoked) has its open match stream closed
within a couple of seconds and its waiting long poll refused, before anything written
from the loss on reaches it. Public matches stay followable by anyone."""

import threading
import time

import httpx
import pytest

from accounts.services import token_create
from games.models import Match, MatchEvent
from ledger.selectors import wallet_balance
from moderation.services import player_ban
from tests.factories import ActiveMatchFactory, PlayerFactory
from tests.games.helpers import MATCHES, seated_players
from tests.live_server import StreamReader
from tests.moderation.conftest import make_moderator

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

# How soon after the loss its stream must have ended.
CLOSES_WITHIN = 2.0


def _token(user) -> str:
    return token_create(user=user)[1]


def _lobby(players, *, private: bool = True, max_players: int = 4, **body) -> int:
    """An open lobby of `players` (the first creates it), private unless told."""
    (_, creator), others = players[0], players[1:]
    body = {"ruleset": "classic", "turn_seconds": 60, "private": private, **body}
    created = creator.post(MATCHES, {**body, "max_players": max_players}, format="json")
    assert created.status_code == 201, created.content
    match_id = created.json()["id"]
    join = {"invite_code": created.json()["invite_code"]} if private else {}
    for _, client in others:
        joined = client.post(f"{MATCHES}{match_id}/join/", join, format="json")
        assert joined.status_code == 200, joined.content
    return match_id


def _follow(live_asgi, match_id: int, token: str) -> StreamReader:
    """A stream of the whole log, caught up with it."""
    stream = StreamReader(f"{live_asgi.url}/api/v1/matches/{match_id}/stream/?after=0", token)
    seq = Match.objects.get(pk=match_id).event_seq
    assert stream.wait_for(lambda s: s.events and s.events[-1].id == seq)
    return stream


def _chat(client, match_id: int, text: str) -> None:
    response = client.post(f"{MATCHES}{match_id}/messages/", {"text": text}, format="json")
    assert response.status_code == 201, response.content


def _left_at(match_id: int, user) -> int:
    """The seq of `user`'s `player_left` at the match."""
    left = MatchEvent.objects.filter(match_id=match_id, type="player_left")
    return next(e.seq for e in left if e.data["player"]["id"] == user.pk)


def _assert_closed_before(stream: StreamReader, lost_at: float, first_unseen: int) -> None:
    """The stream ended within CLOSES_WITHIN of the loss, having sent nothing from
    `first_unseen` (the seq of the first event the reader may not see) on."""
    assert stream.ended.wait(max(lost_at + CLOSES_WITHIN - time.monotonic(), 0)), (
        "the stream outlived the reader's sight of the match"
    )
    assert stream.status == 200
    assert stream.events and all(e.id < first_unseen for e in stream.events), [
        (e.id, e.type) for e in stream.events
    ]


def test_leaving_a_private_lobby_closes_the_stream_before_the_leave(live_asgi):
    players = seated_players(3)
    match_id = _lobby(players)
    leaver, leaver_client = players[1]
    stream = _follow(live_asgi, match_id, _token(leaver))
    left = leaver_client.post(f"{MATCHES}{match_id}/leave/", {}, format="json")
    assert left.status_code == 200, left.content
    lost_at = time.monotonic()
    _chat(players[0][1], match_id, "after the leave")  # written after the loss
    _assert_closed_before(stream, lost_at, _left_at(match_id, leaver))
    refused = httpx.get(
        f"{live_asgi.url}/api/v1/matches/{match_id}/stream/",
        headers={"Authorization": f"Bearer {_token(leaver)}"},
        timeout=10,
    )
    assert refused.status_code == 404  # as every read of the match now


def test_a_player_unseated_at_the_start_sees_nothing_of_the_started_match(live_asgi):
    """The unseating and the start are one transaction: the unseated player's stream
    ends before its `player_left`, so `match_started` and round 1 never reach it."""
    players = seated_players(4)
    match_id = _lobby(players, buy_in=100, max_players=5)
    poor = players[1][0]
    stream = _follow(live_asgi, match_id, _token(poor))
    # The poor player stakes all but 10 chips at another table, which starts at once.
    other = ActiveMatchFactory(
        players=[poor, PlayerFactory()], ruleset="classic", buy_in=wallet_balance(user=poor) - 10
    )
    assert other.status == "active"
    started = players[0][1].post(f"{MATCHES}{match_id}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    lost_at = time.monotonic()
    assert started.json()["status"] == "active"
    left = _left_at(match_id, poor)
    assert MatchEvent.objects.get(match_id=match_id, seq=left).data["reason"] == (
        "insufficient_chips"
    )
    assert MatchEvent.objects.filter(match_id=match_id, seq__gt=left, type="match_started").exists()
    _assert_closed_before(stream, lost_at, left)
    assert not any(e.type == "match_started" for e in stream.events)


def test_a_ban_closes_the_banned_players_stream_of_a_private_lobby(live_asgi):
    players = seated_players(3)
    match_id = _lobby(players)
    banned = players[2][0]
    stream = _follow(live_asgi, match_id, _token(banned))
    player_ban(user_id=banned.pk, moderator=make_moderator(), reason="cheating")
    lost_at = time.monotonic()
    _chat(players[0][1], match_id, "after the ban")
    _assert_closed_before(stream, lost_at, _left_at(match_id, banned))


def test_a_revoked_token_closes_its_stream_of_a_public_match(live_asgi):
    """Only the revoked token's stream: the same player's other token follows on."""
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[u for u, _ in players], ruleset="classic").pk
    user = players[0][0]
    revoked, kept = _token(user), _token(user)
    stream, other = _follow(live_asgi, match_id, revoked), _follow(live_asgi, match_id, kept)
    gone = httpx.delete(
        f"{live_asgi.url}/api/v1/auth/token/", headers={"Authorization": f"Bearer {revoked}"}
    )
    assert gone.is_success
    lost_at = time.monotonic()
    _chat(players[1][1], match_id, "after the revocation")
    chat_seq = Match.objects.get(pk=match_id).event_seq
    _assert_closed_before(stream, lost_at, chat_seq)
    assert other.wait_for(lambda s: s.events[-1].id == chat_seq)
    assert not other.ended.is_set()
    other.drop()


def test_a_stream_resumed_past_the_end_of_the_log_still_sees_the_leave(live_asgi):
    """A reader that asks for events after one not yet written skips the leave, yet it
    ends there: what it would be sent next is written after the loss."""
    players = seated_players(3)
    match_id = _lobby(players)
    leaver, leaver_client = players[1]
    ahead = Match.objects.get(pk=match_id).event_seq + 3
    stream = StreamReader(
        f"{live_asgi.url}/api/v1/matches/{match_id}/stream/?after={ahead}", _token(leaver)
    )
    assert stream.wait_for(lambda s: s.status == 200)
    time.sleep(0.5)  # subscribed
    assert leaver_client.post(f"{MATCHES}{match_id}/leave/", {}, format="json").status_code == 200
    lost_at = time.monotonic()
    for n in range(5):  # past the resume point
        _chat(players[0][1], match_id, f"after the leave {n}")
    assert stream.ended.wait(max(lost_at + CLOSES_WITHIN - time.monotonic(), 0))
    assert stream.status == 200 and not stream.events


def test_a_waiting_long_poll_answers_404_once_its_caller_left_the_private_lobby(live_asgi):
    players = seated_players(3)
    match_id = _lobby(players)
    leaver, leaver_client = players[1]
    seq = Match.objects.get(pk=match_id).event_seq
    answers: list[httpx.Response] = []

    def poll() -> None:
        answers.append(
            httpx.get(
                f"{live_asgi.url}/api/v1/matches/{match_id}/events/?after={seq}&wait=30",
                headers={"Authorization": f"Bearer {_token(leaver)}"},
                timeout=60,
            )
        )

    poller = threading.Thread(target=poll)
    poller.start()
    time.sleep(1.0)  # waiting
    assert not answers
    assert leaver_client.post(f"{MATCHES}{match_id}/leave/", {}, format="json").status_code == 200
    lost_at = time.monotonic()
    poller.join(10)
    assert answers and time.monotonic() - lost_at < CLOSES_WITHIN + 1
    assert answers[0].status_code == 404, answers[0].content
    assert answers[0].json()["code"] == "not_found"


def test_a_waiting_long_poll_answers_401_once_its_token_is_revoked(live_asgi):
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[u for u, _ in players], ruleset="classic").pk
    seq = Match.objects.get(pk=match_id).event_seq
    token = _token(players[0][0])
    auth = {"Authorization": f"Bearer {token}"}
    answers: list[httpx.Response] = []

    def poll() -> None:
        url = f"{live_asgi.url}/api/v1/matches/{match_id}/events/?after={seq}&wait=30"
        answers.append(httpx.get(url, headers=auth, timeout=60))

    poller = threading.Thread(target=poll)
    poller.start()
    time.sleep(1.0)  # waiting
    assert httpx.delete(f"{live_asgi.url}/api/v1/auth/token/", headers=auth).is_success
    _chat(players[1][1], match_id, "after the revocation")
    poller.join(10)
    assert answers and answers[0].status_code == 401, answers and answers[0].content


def test_others_leaving_and_leaving_a_public_lobby_keep_the_stream_open(live_asgi):
    """A private match's reader follows on when another player leaves; anyone follows a
    public match, also after leaving its lobby."""
    players = seated_players(4)
    private = _lobby(players[:3])
    public = _lobby([players[0], players[3]], private=False)
    stayer, leaver = players[2][0], players[3]
    at_private = _follow(live_asgi, private, _token(stayer))
    at_public = _follow(live_asgi, public, _token(leaver[0]))
    assert players[1][1].post(f"{MATCHES}{private}/leave/", {}, format="json").status_code == 200
    assert leaver[1].post(f"{MATCHES}{public}/leave/", {}, format="json").status_code == 200
    _chat(players[0][1], private, "still here")
    _chat(players[0][1], public, "still here")
    for stream, match_id in ((at_private, private), (at_public, public)):
        seq = Match.objects.get(pk=match_id).event_seq
        assert stream.wait_for(lambda s, seq=seq: s.events[-1].id == seq)
        assert [e.type for e in stream.events[-2:]] == ["player_left", "chat"]
        assert not stream.ended.is_set()
        stream.drop()
