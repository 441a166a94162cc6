"""Issuing tokens: scopes and expiry wherever a token is made, one live token per login
name, and the bot kind chosen once."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import ApiToken, User
from accounts.scopes import SCOPES
from accounts.services import token_create
from tests.conftest import client_for
from tests.factories import DEFAULT_PASSWORD, ActiveMatchFactory, UserFactory
from tests.games.helpers import MATCHES
from tests.problems import assert_problem

pytestmark = pytest.mark.django_db
REGISTER = "/api/v1/auth/register/"
TOKEN = "/api/v1/auth/token/"
ME = "/api/v1/me/"


def _login(api_client, user, **body):
    return api_client.post(
        TOKEN, {"username": user.username, "password": DEFAULT_PASSWORD, **body}, format="json"
    )


def test_register_takes_scopes_expiry_and_the_bot_kind(api_client):
    answer = api_client.post(
        REGISTER,
        {
            "username": "robo",
            "password": "a-long-pass-phrase-42",
            "is_bot": True,
            "scopes": ["play", "read"],
            "expires_in": 3600,
        },
        format="json",
    )
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["is_bot"] is True and body["scopes"] == ["read", "play"]  # in SCOPES order
    token = ApiToken.objects.get(user__username="robo")
    assert token.scopes == ["read", "play"] and token.name == "registration"
    assert timedelta(minutes=59) < token.expires_at - timezone.now() <= timedelta(hours=1)
    assert User.objects.get(username="robo").is_bot
    me = api_client.get(ME, headers={"Authorization": f"Bearer {body['token']}"})
    assert me.json()["is_bot"] is True
    person = api_client.post(
        REGISTER, {"username": "human", "password": "a-long-pass-phrase-42"}, format="json"
    ).json()
    assert person["is_bot"] is False and person["scopes"] == list(SCOPES)
    assert person["expires_at"] is None


@pytest.mark.parametrize("scopes", [[], ["fly"], "read", ["read"] * 6, [1]])
def test_bad_scopes_are_a_400_and_issue_nothing(api_client, scopes):
    user = UserFactory()
    assert_problem(_login(api_client, user, scopes=scopes), 400, "validation_error")
    registered = api_client.post(
        REGISTER,
        {"username": "x-y-z", "password": "a-long-pass-phrase-42", "scopes": scopes},
        format="json",
    )
    assert_problem(registered, 400, "validation_error")
    assert not ApiToken.objects.exists()


def test_login_returns_its_scopes_and_name(api_client):
    user = UserFactory()
    body = _login(api_client, user, scopes=["chat"], name="chatter").json()
    assert body["scopes"] == ["chat"] and body["name"] == "chatter"
    assert _login(api_client, user).json()["name"] == "login"


def test_repeated_named_logins_leave_one_live_token(api_client, client):
    user = UserFactory()
    match = ActiveMatchFactory(players=2)
    url = f"{MATCHES}{match.pk}/events/?after=0&wait=0"
    raws = [_login(api_client, user, name="laptop bot").json()["token"] for _ in range(3)]
    # The live one is remembered by the live views' token check before it is replaced.
    first = {"Authorization": f"Bearer {raws[-1]}"}
    assert client.get(url, headers=first).status_code == 200
    newest = _login(api_client, user, name="laptop bot").json()["token"]
    live = ApiToken.objects.filter(user=user, revoked_at__isnull=True)
    assert list(live.values_list("name", flat=True)) == ["laptop bot"]
    assert live.get().prefix == newest[:10]
    assert ApiToken.objects.filter(user=user).count() == 4
    assert_problem(client.get(url, headers=first), 401, "authentication_failed")
    for old in raws:
        refused = client.get(ME, headers={"Authorization": f"Bearer {old}"})
        assert_problem(refused, 401, "authentication_failed")
    assert client.get(ME, headers={"Authorization": f"Bearer {newest}"}).status_code == 200


def test_logins_without_a_name_replace_each_other_and_spare_other_names(api_client):
    user = UserFactory()
    kept, _ = token_create(user=user, name="webhook relay")
    for _ in range(3):
        assert _login(api_client, user).status_code == 200
        assert _login(api_client, user, name="").status_code == 200
    live = ApiToken.objects.filter(user=user, revoked_at__isnull=True)
    assert sorted(live.values_list("name", flat=True)) == ["login", "webhook relay"]
    assert live.filter(pk=kept.pk).exists()
    other = UserFactory()
    _login(api_client, other)
    assert ApiToken.objects.filter(user=other, revoked_at__isnull=True).count() == 1
    assert live.count() == 2  # another user's login replaced none of these


def test_an_expired_token_is_refused_everywhere(api_client, client):
    user = UserFactory()
    raw = _login(api_client, user, expires_in=60).json()["token"]
    headers = {"Authorization": f"Bearer {raw}"}
    match = ActiveMatchFactory(players=2)
    assert client.get(f"{MATCHES}{match.pk}/", headers=headers).status_code == 200
    ApiToken.objects.filter(user=user).update(expires_at=timezone.now() - timedelta(seconds=1))
    for url in (ME, f"{MATCHES}{match.pk}/", f"{MATCHES}{match.pk}/stream/", "/api/v1/stream/"):
        assert_problem(client.get(url, headers=headers), 401, "token_expired")


def test_a_person_becomes_a_bot_once_and_never_back():
    user = UserFactory()
    me = client_for(user)
    assert me.patch(ME, {"is_bot": False}, format="json").json()["is_bot"] is False
    assert me.patch(ME, {"is_bot": True}, format="json").json()["is_bot"] is True
    assert me.patch(ME, {"is_bot": True}, format="json").status_code == 200
    assert_problem(me.patch(ME, {"is_bot": False}, format="json"), 409, "bot_for_good")
    assert me.patch(ME, {}, format="json").json()["is_bot"] is True
    user.refresh_from_db()
    assert user.is_bot
    profile = me.get(f"/api/v1/players/{user.username}/").json()
    assert profile["is_bot"] is True
