"""Token scopes: every operation declares the one it needs, a token without it is
refused (DRF views and live views alike), and the schema says which."""

import pytest
from drf_spectacular.generators import EndpointEnumerator

from accounts.permissions import TokenHasScope
from accounts.scopes import SCOPES, required_scope
from accounts.services import token_create
from games.models import Match
from tests.factories import ActiveMatchFactory, UserFactory
from tests.games.helpers import MATCHES, seated_players
from tests.problems import assert_problem


def _operations() -> list[tuple[str, str, type]]:
    """(path, method, view class) of every API operation, the live views' included (not
    the schema's own pages, drf-spectacular's, which check no scope)."""
    return [
        (path, method, callback.cls)
        for path, _regex, method, callback in EndpointEnumerator().get_api_endpoints()
        if not callback.cls.__module__.startswith("drf_spectacular.")
    ]


def test_every_operation_declares_its_scope():
    operations = _operations()
    assert len(operations) > 40
    assert {"/api/v1/matches/{match_id}/stream/", "/api/v1/stream/"} <= {
        path for path, _, _ in operations
    }
    for path, method, cls in operations:
        view = cls()
        scope = required_scope(view, method)  # raises for a view declaring nothing
        assert scope is None or scope in SCOPES, (method, path, scope)
        if scope is not None:
            assert any(isinstance(p, TokenHasScope) for p in view.get_permissions()), path


def test_a_view_that_declares_nothing_is_refused():
    class Undeclared:
        pass

    class Partial:
        token_scope = {"GET": "read"}

    with pytest.raises(Exception, match="declares no token_scope"):
        required_scope(Undeclared(), "GET")
    with pytest.raises(Exception, match="names no scope for POST"):
        required_scope(Partial(), "POST")
    assert required_scope(Partial(), "HEAD") == "read"


@pytest.mark.django_db
def test_the_schema_names_each_operations_scope(api_client):
    schema = api_client.get("/api/v1/schema/?format=json").json()
    assert schema["openapi"].startswith("3.1")  # scopes on an http scheme's requirement
    declared = {(path, method.lower()): cls for path, method, cls in _operations()}
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            scope = required_scope(declared[(path, method)](), method.upper())
            security = operation.get("security", [])
            bearer = [r["bearerAuth"] for r in security if "bearerAuth" in r]
            assert bearer == ([[scope]] if scope else bearer), (method, path)
            assert (
                scope is None
                or not bearer
                or "insufficient_scope" in str(operation["responses"]["403"])
            ), (method, path)
    actions = schema["paths"]["/api/v1/matches/{match_id}/actions/"]["post"]
    assert actions["security"] == [{"bearerAuth": ["play"]}]
    public = schema["paths"]["/api/v1/leaderboard/"]["get"]["security"]
    assert public == [{"bearerAuth": ["read"]}, {}]
    assert "`challenge`" in schema["components"]["securitySchemes"]["bearerAuth"]["description"]


@pytest.mark.django_db
def test_a_read_token_watches_a_match_but_cannot_move(client):
    (player, _), (other, _) = seated_players(2)
    match = ActiveMatchFactory(players=[player, other])
    _, read_only = token_create(user=player, scopes=["read"])
    headers = {"Authorization": f"Bearer {read_only}"}
    seen = client.get(f"{MATCHES}{match.pk}/", headers=headers)
    assert seen.status_code == 200, seen.content
    move = seen.json()["legal_actions"][0] if seen.json()["legal_actions"] else {"type": "bid"}
    move = {"type": move["type"], "expected_version": seen.json()["version"]}
    refused = client.post(
        f"{MATCHES}{match.pk}/actions/", move, content_type="application/json", headers=headers
    )
    assert_problem(refused, 403, "insufficient_scope")
    assert "`play`" in refused.json()["detail"]
    challenge = 'Bearer realm="api", error="insufficient_scope", scope="play"'
    assert refused["WWW-Authenticate"] == challenge  # RFC 6750, section 3
    assert Match.objects.get(pk=match.pk).version == seen.json()["version"]  # nothing moved
    seq = Match.objects.get(pk=match.pk).event_seq
    for live in (f"events/?after={seq}&wait=0", "stream/", "seat-stream/"):
        assert client.get(f"{MATCHES}{match.pk}/{live}", headers=headers).status_code == 200
    assert client.get("/api/v1/stream/", headers=headers).status_code == 200
    chat = client.post(
        f"{MATCHES}{match.pk}/messages/",
        {"text": "hi"},
        content_type="application/json",
        headers=headers,
    )
    assert_problem(chat, 403, "insufficient_scope")


@pytest.mark.django_db
def test_a_token_without_read_is_refused_by_reads_and_live_views(client):
    match = ActiveMatchFactory(players=2)
    _, play_only = token_create(user=UserFactory(), scopes=["play"])
    headers = {"Authorization": f"Bearer {play_only}"}
    for url in (
        f"{MATCHES}{match.pk}/",
        f"{MATCHES}{match.pk}/events/?after=0&wait=0",
        f"{MATCHES}{match.pk}/stream/",
        "/api/v1/stream/",
        "/api/v1/leaderboard/",  # a public read: a token sent must carry `read`
    ):
        refused = client.get(url, headers=headers)
        assert_problem(refused, 403, "insufficient_scope")
        assert 'scope="read"' in refused["WWW-Authenticate"]
    assert client.get("/api/v1/leaderboard/").status_code == 200  # anonymous: unaffected
    assert client.get("/api/v1/", headers=headers).status_code == 200  # needs no scope


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("scope", "method", "url", "body"),
    [
        ("account", "patch", "/api/v1/me/", {"is_bot": True}),
        ("account", "get", "/api/v1/auth/tokens/", None),
        ("account", "get", "/api/v1/webhooks/", None),
        ("challenge", "post", "/api/v1/seeks/", {"ruleset": "classic", "players": 2}),
        ("challenge", "post", "/api/v1/challenges/", {"usernames": ["nobody"]}),
        ("play", "post", MATCHES, {"ruleset": "classic"}),
    ],
)
def test_each_scope_guards_its_operations(client, scope, method, url, body):
    user = UserFactory()
    others = [s for s in SCOPES if s != scope]
    _, without = token_create(user=user, scopes=others)
    _, only = token_create(user=user, scopes=[scope])
    kwargs = {"content_type": "application/json"} if body is not None else {}
    args = (url, body) if body is not None else (url,)
    refused = getattr(client, method)(
        *args, headers={"Authorization": f"Bearer {without}"}, **kwargs
    )
    assert_problem(refused, 403, "insufficient_scope")
    allowed = getattr(client, method)(*args, headers={"Authorization": f"Bearer {only}"}, **kwargs)
    assert allowed.status_code != 403, allowed.content  # past the scope (maybe a 400)


@pytest.mark.django_db
def test_any_token_logs_itself_out(client):
    _, raw = token_create(user=UserFactory(), scopes=["chat"])
    headers = {"Authorization": f"Bearer {raw}"}
    assert client.delete("/api/v1/auth/token/", headers=headers).status_code == 204
    assert client.get("/api/v1/rulesets/", headers=headers).status_code == 401
