"""config.asgi routes each request by a URL match it keeps per path and URLconf."""

from django.test import override_settings

from config import asgi
from core.problems import API_NOT_FOUND
from tests.api.urls import plain_post


def test_a_path_is_resolved_once_and_answers_the_same_match():
    first = asgi._resolve("/api/v1/matches/41/actions/")
    again = asgi._resolve("/api/v1/matches/41/actions/")
    other = asgi._resolve("/api/v1/matches/42/actions/")
    assert first is again
    assert first.kwargs == {"match_id": 41} and other.kwargs == {"match_id": 42}
    assert first.func is other.func
    assert asgi._resolve("/nowhere/at/all") is None


def test_a_changed_urlconf_resolves_afresh():
    path = "/api/v1/test-plain/"
    assert asgi._resolve(path).url_name == API_NOT_FOUND  # the project's catch-all
    with override_settings(ROOT_URLCONF="tests.api.urls"):
        assert asgi._resolve(path).func is plain_post
    assert asgi._resolve(path).url_name == API_NOT_FOUND
