"""A token's expiry ends everything it opened, at the expiry: every event stream it opened
(account, match, seat, tournament) closes, and a long poll it began answers 401, on a
real server process. A token without an expiry keeps its stream."""

import threading
import time
from datetime import timedelta

import httpx
import pytest

from accounts.services import token_create
from games.models import Match
from tests.factories import ActiveMatchFactory, PlayerFactory
from tests.live_server import StreamReader
from tests.tournaments.helpers import knockout

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

LIFETIME = 3.0  # seconds: short, as the mechanism is the same for 60 s or a day
# How soon after its expiry an open stream must have ended (the issue asks for 5 s).
ENDS_WITHIN = 2.0


def _expiring_token(user) -> tuple[str, float]:
    """A token that expires LIFETIME from now, and when (`time.monotonic()`)."""
    raw = token_create(user=user, expires_in=timedelta(seconds=LIFETIME))[1]
    return raw, time.monotonic() + LIFETIME


def _assert_ends_at_expiry(stream: StreamReader, expires: float) -> None:
    assert stream.wait_for(lambda s: s.status == 200)
    assert not stream.ended.wait(max(expires - time.monotonic() - 0.5, 0)), (
        "the stream ended before its token expired"
    )
    assert stream.ended.wait(max(expires + ENDS_WITHIN - time.monotonic(), 0)), (
        "the stream outlived its token"
    )


@pytest.mark.parametrize(
    "path", ["stream/", "matches/{match}/stream/", "matches/{match}/seat-stream/"]
)
def test_a_stream_ends_when_its_token_expires(live_asgi, path):
    user, other = PlayerFactory(), PlayerFactory()
    match = ActiveMatchFactory(players=[user, other], ruleset="classic")
    token, expires = _expiring_token(user)
    url = f"{live_asgi.url}/api/v1/{path.format(match=match.pk)}"
    _assert_ends_at_expiry(StreamReader(url, token), expires)
    # And the token opens nothing more.
    again = httpx.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert again.status_code == 401
    assert again.json()["code"] == "token_expired"


def test_a_tournament_stream_ends_when_its_token_expires(live_asgi):
    user = PlayerFactory()
    tournament = knockout(user, buy_in=0, bots_allowed=False)
    token, expires = _expiring_token(user)
    stream = StreamReader(f"{live_asgi.url}/api/v1/tournaments/{tournament.pk}/stream/", token)
    _assert_ends_at_expiry(stream, expires)


def test_a_stream_of_a_token_without_expiry_stays_open(live_asgi):
    user, other = PlayerFactory(), PlayerFactory()
    match = ActiveMatchFactory(players=[user, other], ruleset="classic")
    lasting = token_create(user=user)[1]
    stream = StreamReader(f"{live_asgi.url}/api/v1/matches/{match.pk}/stream/", lasting)
    assert stream.wait_for(lambda s: s.status == 200)
    assert not stream.ended.wait(LIFETIME + ENDS_WITHIN)
    stream.drop()


def test_a_long_poll_answers_401_at_its_tokens_expiry(live_asgi):
    user, other = PlayerFactory(), PlayerFactory()
    match = ActiveMatchFactory(players=[user, other], ruleset="classic")
    seq = Match.objects.get(pk=match.pk).event_seq
    token, expires = _expiring_token(user)
    answers: list[tuple[httpx.Response, float]] = []

    def poll() -> None:
        url = f"{live_asgi.url}/api/v1/matches/{match.pk}/events/?after={seq}&wait=30"
        answer = httpx.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=60)
        answers.append((answer, time.monotonic()))

    poller = threading.Thread(target=poll)
    poller.start()
    poller.join(LIFETIME + 10)
    ((answer, answered_at),) = answers
    assert answer.status_code == 401, answer.content
    assert answer.json()["code"] == "token_expired"
    assert expires - 0.5 <= answered_at <= expires + ENDS_WITHIN
