"""One way of doing things across the API: cursor pages, 201 on creates, an index at
the root, and operation descriptions written for clients."""

import inspect
import re
from urllib.parse import urlsplit

import pytest
from django.urls import URLResolver, get_resolver, resolve

from accounts.models import User
from config.urls import api_v1
from core.apis import INDEX_LINKS
from tests.conftest import client_for
from tests.factories import PlayerFactory, establish
from tests.games.helpers import MATCHES, seated_players
from tests.problems import assert_problem


def _walk(client, url: str, direction: str) -> list[int]:
    ids = []
    while url:
        page = client.get(url).json()
        chunk = [row["id"] for row in page["results"]]
        ids = chunk + ids if direction == "previous" else ids + chunk
        url = page[direction]
    return ids


@pytest.mark.django_db
@pytest.mark.parametrize("by", ["chips", "rating"])
def test_the_leaderboard_pages_by_cursor_through_ties(by):
    # Seven players on the same chips and rating (new accounts), three richer ones; all
    # listed: each shows their balance and has an established record (issue 33).
    players = [PlayerFactory() for _ in range(7)] + [PlayerFactory(chips=c) for c in (5, 9, 7)]
    User.objects.filter(pk__in=[p.pk for p in players]).update(show_chips=True)
    players = [establish(p) for p in players]
    client = client_for(players[0])
    everyone = client.get("/api/v1/leaderboard/", {"by": by, "page_size": 200}).json()
    assert everyone["next"] is None and everyone["previous"] is None
    ranked = [row["id"] for row in everyone["results"]]
    assert sorted(ranked) == sorted(p.pk for p in players)
    scores = [row["score"] for row in everyone["results"]]
    assert scores == sorted(scores, reverse=True)

    forward = _walk(client, f"/api/v1/leaderboard/?by={by}&page_size=3", "next")
    assert forward == ranked
    last = client.get(f"/api/v1/leaderboard/?by={by}&page_size=3").json()
    while last["next"]:
        last = client.get(last["next"]).json()
    assert last["previous"] is not None
    backward = _walk(client, last["previous"], "previous")
    assert backward + [row["id"] for row in last["results"]] == ranked


@pytest.mark.django_db
def test_seating_a_bot_answers_201():
    (_, creator), *_ = seated_players(1)
    match_id = creator.post(
        MATCHES, {"ruleset": "classic", "max_players": 3, "turn_seconds": 60}, format="json"
    ).json()["id"]
    response = creator.post(f"{MATCHES}{match_id}/bots/", {"strategy": "random"}, format="json")
    assert response.status_code == 201
    assert len(response.json()["seats"]) == 2


@pytest.mark.django_db
def test_the_api_root_answers_an_index_of_links_and_the_site_root_is_not_a_404(api_client):
    assert api_client.get("/").status_code == 200
    response = api_client.get("/api/v1/")
    assert response.status_code == 200
    links = response.json()["links"]
    assert {"matches", "rulesets", "leaderboard", "schema", "docs", "register"} <= set(links)
    assert {"challenges", "seeks", "account_stream", "match_stream", "match_export"} <= set(links)
    for name, url in links.items():
        if "{" in url:
            continue
        answer = api_client.get(url)
        assert answer.status_code in (200, 401, 405), (name, url, answer.status_code)
    assert "{match_id}" in links["match"] and "{username}" in links["player"]
    assert links["match_stream"].endswith("/api/v1/matches/{match_id}/stream/")


def _route_names(patterns) -> set[str]:
    names = set()
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            names |= _route_names(pattern.url_patterns)
        elif pattern.name:
            names.add(pattern.name)
    return names


@pytest.mark.django_db
def test_the_index_links_every_route_of_the_api(api_client):
    routes = _route_names(api_v1) - {"api-index"}
    indexed = {t if isinstance(t, str) else t[0] for t in INDEX_LINKS.values()}
    assert indexed == routes, {"missing": routes - indexed, "unknown": indexed - routes}
    links = api_client.get("/api/v1/").json()["links"]
    assert set(links) == set(INDEX_LINKS)
    for name, url in links.items():
        target = INDEX_LINKS[name]
        url_name, *params = (target,) if isinstance(target, str) else target
        path = urlsplit(url).path
        assert re.findall(r"\{(\w+)\}", path) == params, (name, url)
        # Filled in, each link reaches the route it names.
        assert resolve(re.sub(r"\{\w+\}", "7", path)).url_name == url_name, (name, url)


@pytest.mark.django_db
def test_an_unknown_api_path_is_still_a_problem_404(api_client):
    assert_problem(api_client.get("/api/v1/nothing-here/"), 404, "not_found")


@pytest.mark.django_db
def test_every_operation_has_a_summary_and_a_description_for_clients(api_client):
    schema = api_client.get("/api/v1/schema/?format=json").json()
    docstrings = {
        inspect.getdoc(cls)
        for pattern in get_resolver().url_patterns
        for cls in [getattr(getattr(pattern, "callback", None), "view_class", None)]
        if cls is not None and inspect.getdoc(cls)
    }
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            assert operation.get("summary"), (method, path)
            description = operation.get("description", "")
            assert len(description) > 20, (method, path)
            assert "Mixed into" not in description and description not in docstrings


@pytest.mark.django_db
def test_problem_responses_follow_each_operations_shape(api_client):
    schema = api_client.get("/api/v1/schema/?format=json").json()
    codes = set(schema["components"]["schemas"]["Problem"]["properties"]["code"]["enum"])
    assert {"payload_too_large", "not_your_turn", "stale_version", "throttled"} <= codes
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            statuses = set(operation["responses"])
            assert {"400", "406", "429"} <= statuses
            has_body = "requestBody" in operation
            assert ("413" in statuses) == has_body == ("415" in statuses), (method, path)
            assert ("404" in statuses) == ("{" in path or "cursor" in str(operation)), path
    action = schema["paths"]["/api/v1/matches/{match_id}/actions/"]["post"]["responses"]
    assert "`not_your_turn`" in action["409"]["description"]
    assert "403" not in schema["paths"]["/api/v1/"]["get"]["responses"]  # needs no scope
    public_read = schema["paths"]["/api/v1/rulesets/"]["get"]["responses"]
    assert public_read["403"]["description"] == "Not allowed: `insufficient_scope`."
