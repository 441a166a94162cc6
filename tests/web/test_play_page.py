"""The play page at `/` is a static shell: the same bytes for everyone, no database
read, no game data, and a Content-Security-Policy that lets only its own scripts run."""

from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse

from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

MODULES = sorted(p.name for p in Path(finders.find("web/app.js")).parent.glob("*.js"))


def test_the_page_is_served_at_the_root_with_a_strict_policy(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    assert response["Referrer-Policy"] == "no-referrer"
    body = response.content.decode()
    assert 'type="module"' in body and "web/app.js" in body
    assert "<script>" not in body  # no inline script for the policy to allow
    assert reverse("play") == "/"


def test_the_page_carries_no_game_data_whoever_asks(client):
    """Logged in to the admin or not, with a match running: the same shell, since the
    page gets everything through the API in the browser."""
    anonymous = client.get("/").content
    player = PlayerFactory()
    client.force_login(player)
    assert client.get("/").content == anonymous


def test_the_favicon_is_served_where_browsers_look(client):
    assert 'rel="icon"' in client.get("/").content.decode()
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    icon = client.get(response["Location"])
    assert icon.status_code == 200 and b"<svg" in b"".join(icon.streaming_content)


def test_only_safe_methods_are_answered(client):
    assert client.post("/").status_code == 405


@pytest.mark.parametrize("name", [*MODULES, "style.css"])
def test_every_module_the_page_loads_is_a_static_file(client, name):
    path = finders.find(f"web/{name}")
    assert path, name
    response = client.get(f"/static/web/{name}")
    assert response.status_code == 200
    content = b"".join(response.streaming_content)
    assert content == Path(path).read_bytes()


def test_the_page_builds_no_markup_from_strings():
    """Names, chat and every other API text reach the DOM as text nodes only."""
    for name in MODULES:
        source = Path(finders.find(f"web/{name}")).read_text(encoding="utf-8")
        for risky in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert risky not in source, (name, risky)


def test_commitments_follow_the_server_format():
    """verify.js hashes exactly the text games.fairness commits to: "<salt>:<d1>,<d2>,...";
    the browser tests check real rounds against it."""
    import inspect

    from games import fairness

    assert "f\"{salt}:{','.join(str(d) for d in dice)}\"" in inspect.getsource(fairness.commitment)
    source = Path(finders.find("web/verify.js")).read_text(encoding="utf-8")
    assert 'return `${salt}:${dice.map(String).join(",")}`;' in source
