"""Passwords: Django's validators and ours, each refusal listed in the problem body."""

import pytest

from accounts.models import User
from tests.factories import STRONG_PASSWORD

REGISTER = "/api/v1/auth/register/"

pytestmark = pytest.mark.django_db


def _refusals(api_client, username: str, password: str) -> list[str]:
    response = api_client.post(
        REGISTER, {"username": username, "password": password}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert {e["field"] for e in body["errors"]} == {"password"}
    assert not User.objects.filter(username=username).exists()
    return [e["detail"] for e in body["errors"]]


@pytest.mark.parametrize("password", [" " * 8, " " * 20, "\t\t\t\t    \n"])
def test_a_whitespace_only_password_is_refused(api_client, password):
    assert "This password is only whitespace." in _refusals(api_client, "walter", password)


@pytest.mark.parametrize("password", ["liarsdice", "LiarsDice", "liars-dice-2024!", "LIARSDICE99"])
def test_the_site_name_is_refused(api_client, password):
    assert "This password is the site's name." in _refusals(api_client, "sam", password)


def test_every_reason_is_listed(api_client):
    # Too short, entirely numeric and a common password: three reasons at once.
    details = _refusals(api_client, "nora", "1234567")
    assert len(details) == 3
    assert any("too short" in d for d in details)
    assert any("entirely numeric" in d for d in details)
    assert any("too common" in d for d in details)


def test_a_password_like_the_username_is_refused(api_client):
    details = _refusals(api_client, "margaret-thatcher", "margaret-thatcher1")
    assert any("too similar to the username" in d for d in details)


def test_a_strong_password_and_a_passphrase_naming_the_site_are_accepted(api_client):
    for n, password in enumerate([STRONG_PASSWORD, "i-play-liarsdice-on-tuesdays"]):
        response = api_client.post(
            REGISTER, {"username": f"okay{n}", "password": password}, format="json"
        )
        assert response.status_code == 201, response.content
