"""The rate-limit headers (IETF httpapi draft `RateLimit-Policy` / `RateLimit`) on every
API response, successes and errors alike, counting down and coming back; registrations
that create nothing spend no allowance."""

import random
import re
import time

import pytest
from django.conf import settings
from django.test import override_settings
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import token_create
from tests.conftest import client_for
from tests.factories import ActiveMatchFactory, PlayerFactory, UserFactory
from tests.games.helpers import MATCHES, play_to_the_end
from tests.live_server import StreamReader
from tests.problems import assert_problem

pytestmark = pytest.mark.django_db

REGISTER = "/api/v1/auth/register/"
STRONG = "a-Long-and-unusual-passphrase-42"
_ITEM = re.compile(r'^"(?P<policy>[a-z_]+)";(?P<a>[qr])=(?P<x>\d+);(?P<b>[wt])=(?P<y>\d+)$')


def _items(value: str) -> dict[str, tuple[int, int]]:
    """A structured-field list of `"<policy>";k=<int>;k=<int>` items, by policy."""
    found = {}
    for item in value.split(", "):
        match = _ITEM.match(item)
        assert match, value
        found[match["policy"]] = (int(match["x"]), int(match["y"]))
    return found


def limits(response) -> dict[str, tuple[int, int, int, int]]:
    """policy -> (quota, window, remaining, reset), from both headers, which must name
    the same policies in the same order."""
    policies = _items(response["RateLimit-Policy"])
    states = _items(response["RateLimit"])
    assert list(policies) == list(states)
    return {p: (*policies[p], *states[p]) for p in policies}


def rates(**overrides: str):
    merged = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **overrides}
    return override_settings(
        REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": merged}
    )


def test_an_authenticated_read_reports_the_user_policy_counting_down_to_a_429(auth_client):
    with rates(user="3/min"):
        seen = [limits(auth_client.get("/api/v1/me/"))["user"] for _ in range(3)]
        assert [s[2] for s in seen] == [2, 1, 0]
        assert all(s[:2] == (3, 60) and 1 <= s[3] <= 60 for s in seen)
        refused = auth_client.get("/api/v1/me/")
        assert_problem(refused, 429, "throttled")
        quota, window, remaining, reset = limits(refused)["user"]
        assert (quota, window, remaining) == (3, 60, 0)
        assert reset == int(refused["Retry-After"]) and 1 <= reset <= 60


def test_the_allowance_comes_back_as_the_window_slides(auth_client):
    with rates(user="2/s"):
        assert limits(auth_client.get("/api/v1/me/"))["user"][2] == 1
        assert limits(auth_client.get("/api/v1/me/"))["user"][2] == 0
        refused = auth_client.get("/api/v1/me/")
        assert refused.status_code == 429
        assert limits(refused)["user"][3] == 1
        time.sleep(1.05)
        again = auth_client.get("/api/v1/me/")
        assert again.status_code == 200
        assert limits(again)["user"][2] == 1


def test_an_anonymous_read_reports_the_address_policy(api_client):
    with rates(anon="5/min"):
        first = limits(api_client.get("/api/v1/rulesets/"))
        second = limits(api_client.get("/api/v1/rulesets/", REMOTE_ADDR="10.1.1.1"))
        third = limits(api_client.get("/api/v1/rulesets/"))
    assert list(first) == ["anon"] and first["anon"][:3] == (5, 60, 4)
    assert second["anon"][2] == 4  # another address, another count
    assert third["anon"][2] == 3


def test_errors_carry_the_headers_and_count_like_any_request(api_client, auth_client):
    with rates(anon="20/min", user="20/min"):
        anonymous = [
            (api_client.get("/api/v1/nothing-here/"), 404, "not_found"),
            (api_client.get("/api/v1/me/"), 401, "not_authenticated"),
            (
                api_client.get("/api/v1/me/", HTTP_AUTHORIZATION="Bearer nope"),
                401,
                "authentication_failed",
            ),
            (api_client.get("/api/v1/players/nobody/"), 404, "not_found"),
            (api_client.post(REGISTER, {"username": ""}, format="json"), 400, "validation_error"),
        ]
        remaining = []
        for response, status, code in anonymous:
            assert_problem(response, status, code)
            remaining.append(limits(response)["anon"][2])
        # Each counted once, whichever layer refused it.
        assert remaining == [19, 18, 17, 16, 15]

        match = ActiveMatchFactory(players=2)
        outsider = auth_client.post(
            f"{MATCHES}{match.pk}/actions/", {"type": "challenge"}, format="json"
        )
        assert_problem(outsider, 403, "not_a_player")
        missing = auth_client.delete("/api/v1/auth/tokens/999999/")
        assert_problem(missing, 404, "not_found")
        not_allowed = auth_client.get("/api/v1/auth/tokens/999999/")
        assert_problem(not_allowed, 405, "method_not_allowed")
        assert [limits(r)["user"][2] for r in (outsider, missing, not_allowed)] == [19, 18, 17]


def test_a_body_refused_before_any_view_carries_the_headers(auth_client):
    too_large = auth_client.generic(
        "POST",
        "/api/v1/matches/",
        b"{}",
        content_type="application/json",
        CONTENT_LENGTH=str(settings.API_MAX_BODY_BYTES + 1),
    )
    assert_problem(too_large, 413, "payload_too_large")
    assert "anon" in limits(too_large)  # refused before the token was read


def test_every_policy_that_counts_a_request_is_listed(api_client, auth_client):
    registered = api_client.post(
        REGISTER, {"username": "lister", "password": STRONG}, format="json"
    )
    assert registered.status_code == 201
    assert list(limits(registered)) == ["register_ip", "register_username", "anon"]
    match = ActiveMatchFactory(players=2)
    player = client_for(match.seats.get(seat=0).player)
    said = player.post(f"{MATCHES}{match.pk}/messages/", {"text": "hi"}, format="json")
    assert said.status_code == 201
    assert list(limits(said)) == ["user", "chat"]


def test_failed_registrations_spend_none_of_the_addresss_allowance(api_client):
    PlayerFactory(username="taken")
    failures = [
        {"username": "taken", "password": STRONG},
        {"username": "fresh", "password": "123"},
        {"username": "", "password": STRONG},
        {"password": STRONG},
    ]
    with rates(register_ip="2/hour"):
        for body in failures * 3:
            response = api_client.post(REGISTER, body, format="json")
            assert response.status_code == 400, response.content
            assert limits(response)["register_ip"][2] == 2
        created = [
            api_client.post(REGISTER, {"username": f"maker{n}", "password": STRONG}, format="json")
            for n in range(2)
        ]
        assert [r.status_code for r in created] == [201, 201]
        assert [limits(r)["register_ip"][2] for r in created] == [1, 0]
        refused = api_client.post(
            REGISTER, {"username": "maker9", "password": STRONG}, format="json"
        )
        assert_problem(refused, 429, "throttled")
        assert int(refused["Retry-After"]) >= 1
        # Another address still has its own allowance.
        elsewhere = api_client.post(
            REGISTER,
            {"username": "maker9", "password": STRONG},
            format="json",
            REMOTE_ADDR="10.2.2.2",
        )
        assert elsewhere.status_code == 201
    assert User.objects.filter(username__startswith="maker").count() == 3


class HeaderCheckingClient(APIClient):
    """Asserts the rate-limit headers on every response it receives."""

    answered = 0

    def request(self, **request):
        response = super().request(**request)
        assert response.status_code != 429, response.content
        assert "user" in limits(response), request.get("PATH_INFO")
        HeaderCheckingClient.answered += 1
        return response


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ruleset", "options"), [("classic", {"dice_per_player": 2}), ("poker_dice", {"lives": 1})]
)
def test_every_response_of_a_whole_match_carries_the_headers(ruleset, options):
    users = [PlayerFactory() for _ in range(3)]
    players = []
    for user in users:
        client = HeaderCheckingClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_create(user=user)[1]}")
        players.append((user, client))
    HeaderCheckingClient.answered = 0
    creator = players[0][1]
    body = {
        "ruleset": ruleset,
        "options": options,
        "max_players": 3,
        "turn_seconds": 60,
        "buy_in": 20,
        "ante": 1,
    }
    match_id = creator.post(MATCHES, body, format="json").json()["id"]
    for _, client in players[1:]:
        assert client.post(f"{MATCHES}{match_id}/join/", {}, format="json").status_code == 200
    final = play_to_the_end(match_id, players, random.Random(ruleset))
    assert final["status"] == "finished"
    for _, client in players:
        client.get(f"{MATCHES}{match_id}/events/", {"after": 0})
        client.get(f"{MATCHES}{match_id}/rounds/")
        client.get(f"{MATCHES}{match_id}/export/")
        client.get("/api/v1/me/")
    assert HeaderCheckingClient.answered > 20


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_streams_first_response_carries_the_headers(live_asgi):
    match = ActiveMatchFactory(players=2)
    player = match.seats.get(seat=0).player
    outsider = UserFactory()
    url = f"{live_asgi.url}{MATCHES}{match.pk}"
    opened = [
        StreamReader(f"{url}/stream/?after=0", token_create(user=player)[1]),
        StreamReader(f"{url}/seat-stream/", token_create(user=player)[1]),
        StreamReader(f"{live_asgi.url}/api/v1/stream/", token_create(user=player)[1]),
        StreamReader(f"{url}/seat-stream/", token_create(user=outsider)[1]),  # 403
        StreamReader(f"{url}/stream/", "not-a-token"),  # 401
    ]
    for stream in opened:
        assert stream.wait_for(lambda s: s.status is not None), stream.items
    assert [s.status for s in opened] == [200, 200, 200, 403, 401]
    for stream, policy in zip(opened, ["user"] * 4 + ["anon"], strict=True):
        headers = stream.response_headers
        assert f'"{policy}";q=' in headers["ratelimit-policy"], headers
        assert re.search(rf'"{policy}";r=\d+;t=\d+', headers["ratelimit"]), headers
        stream.drop()


def test_the_schema_declares_the_headers_on_every_response(api_client):
    document = api_client.get("/api/v1/schema/?format=json").json()
    assert set(document["components"]["headers"]) == {
        "RateLimit-Policy",
        "RateLimit",
        "Retry-After",
    }
    for path, item in document["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                headers = response.get("headers", {})
                assert {"RateLimit-Policy", "RateLimit"} <= set(headers), (method, path, status)
                assert ("Retry-After" in headers) == (status in ("429", "503")), (path, status)
