import time
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone
from rest_framework.settings import api_settings

from accounts.models import ApiToken, User, hash_token
from accounts.services import token_create
from tests.conftest import client_for
from tests.factories import DEFAULT_PASSWORD, UserFactory
from tests.problems import assert_problem

pytestmark = pytest.mark.django_db

REGISTER = "/api/v1/auth/register/"
TOKEN = "/api/v1/auth/token/"
ME = "/api/v1/me/"
STRONG = "a-Long-and-unusual-passphrase-42"


def test_register_creates_account_and_returns_a_working_token(api_client):
    response = api_client.post(REGISTER, {"username": "alice", "password": STRONG}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["username"] == "alice"
    user = User.objects.get(pk=body["id"])
    assert user.check_password(STRONG)
    # The token is stored only as a hash.
    assert not ApiToken.objects.filter(key_hash=body["token"]).exists()
    assert ApiToken.objects.filter(key_hash=hash_token(body["token"]), user=user).exists()

    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {body['token']}")
    me = api_client.get(ME)
    assert me.status_code == 200
    assert me.json()["username"] == "alice"
    assert set(me.json()) >= {
        "id",
        "username",
        "is_bot",
        "chips",
        "rating",
        "games_played",
        "games_won",
    }


def test_register_duplicate_username_is_rejected_case_insensitively(api_client):
    UserFactory(username="Bob")
    response = api_client.post(REGISTER, {"username": "bob", "password": STRONG}, format="json")
    body = assert_problem(response, 400, "validation_error")
    assert body["errors"][0]["field"] == "username"
    assert body["errors"][0]["code"] == "username_taken"
    assert User.objects.filter(username__iexact="bob").count() == 1


@pytest.mark.parametrize("password", ["short", "password123", "12345678901", "alice1234"])
def test_register_weak_password_is_rejected(api_client, password):
    response = api_client.post(REGISTER, {"username": "alice", "password": password}, format="json")
    body = assert_problem(response, 400, "validation_error")
    assert body["errors"][0]["field"] == "password"
    assert not User.objects.filter(username="alice").exists()


@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"username": "alice"},
        {"username": "x", "password": STRONG},
        {"username": "has space", "password": STRONG},
        {"username": 12, "password": STRONG},
        {"username": ["a"], "password": STRONG},
    ],
)
def test_register_bad_input_changes_nothing(api_client, payload):
    response = api_client.post(REGISTER, payload, format="json")
    assert_problem(response, 400, "validation_error")
    assert User.objects.count() == 0


def test_malformed_json_is_a_parse_error(api_client):
    response = api_client.post(REGISTER, b"{not json", content_type="application/json")
    assert_problem(response, 400, "parse_error")


def test_form_encoded_body_is_unsupported(api_client):
    response = api_client.post(REGISTER, {"username": "a", "password": "b"})
    assert_problem(response, 415, "unsupported_media_type")


def test_login_returns_new_token_and_wrong_password_fails(api_client, user):
    ok = api_client.post(
        TOKEN, {"username": user.username, "password": DEFAULT_PASSWORD}, format="json"
    )
    assert ok.status_code == 200
    assert ok.json()["expires_at"] is None
    assert ApiToken.objects.filter(user=user).count() == 1

    bad = api_client.post(TOKEN, {"username": user.username, "password": "nope"}, format="json")
    assert_problem(bad, 400, "invalid_credentials")
    unknown = api_client.post(TOKEN, {"username": "ghost", "password": "nope"}, format="json")
    assert_problem(unknown, 400, "invalid_credentials")
    assert ApiToken.objects.filter(user=user).count() == 1


def test_a_disabled_account_is_told_so_only_with_its_password(api_client, user):
    User.objects.filter(pk=user.pk).update(is_active=False)  # banned, or closed
    right = api_client.post(
        TOKEN, {"username": user.username, "password": DEFAULT_PASSWORD}, format="json"
    )
    assert "disabled" in assert_problem(right, 403, "account_disabled")["detail"]
    wrong = api_client.post(TOKEN, {"username": user.username, "password": "nope"}, format="json")
    assert_problem(wrong, 400, "invalid_credentials")
    assert not ApiToken.objects.filter(user=user).exists()


def test_login_with_expiry_sets_expires_at(api_client, user):
    response = api_client.post(
        TOKEN,
        {"username": user.username, "password": DEFAULT_PASSWORD, "expires_in": 3600},
        format="json",
    )
    assert response.status_code == 200
    token = ApiToken.objects.get(user=user)
    assert timedelta(minutes=59) < token.expires_at - timezone.now() <= timedelta(hours=1)


def test_missing_token_is_not_authenticated(api_client):
    response = api_client.get(ME)
    assert_problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_garbage_token_is_rejected(api_client):
    api_client.credentials(HTTP_AUTHORIZATION="Bearer not-a-token")
    assert_problem(api_client.get(ME), 401, "authentication_failed")


def test_revoke_makes_the_token_unusable_and_leaves_others(user):
    client = client_for(user)
    other_client = client_for(user)
    assert client.delete(TOKEN).status_code == 204
    assert_problem(client.get(ME), 401, "authentication_failed")
    assert other_client.get(ME).status_code == 200
    assert ApiToken.objects.filter(user=user, revoked_at__isnull=False).count() == 1


def test_expired_token_is_rejected(api_client, user):
    token, raw = token_create(user=user, expires_in=timedelta(minutes=5))
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert_problem(api_client.get(ME), 401, "token_expired")


def test_inactive_account_token_is_rejected(user):
    client = client_for(user)
    User.objects.filter(pk=user.pk).update(is_active=False)
    assert_problem(client.get(ME), 401, "authentication_failed")


def test_patch_me_declares_a_bot(auth_client, user):
    response = auth_client.patch(ME, {"is_bot": True}, format="json")
    assert response.status_code == 200
    assert response.json()["is_bot"] is True
    user.refresh_from_db()
    assert user.is_bot
    bad = auth_client.patch(ME, {"is_bot": "maybe"}, format="json")
    assert_problem(bad, 400, "validation_error")
    user.refresh_from_db()
    assert user.is_bot


def test_public_profile(api_client, user):
    response = api_client.get(f"/api/v1/players/{user.username.upper()}/")
    assert response.status_code == 200
    assert response.json()["username"] == user.username
    assert "chips" not in response.json()
    assert_problem(api_client.get("/api/v1/players/nobody/"), 404, "not_found")


def _rates(**overrides: str) -> dict:
    rates = dict(api_settings.DEFAULT_THROTTLE_RATES)
    rates.update(overrides)
    return rates


def _rest_framework_with(rates: dict) -> dict:
    from django.conf import settings

    return {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}


def _login(client, username: str, password: str, address: str):
    return client.post(
        TOKEN, {"username": username, "password": password}, format="json", REMOTE_ADDR=address
    )


@override_settings(LOGIN_FREE_ATTEMPTS=3)
def test_login_guesses_are_slowed_per_address_and_the_owner_still_gets_in(api_client, user):
    for _ in range(3):
        assert _login(api_client, user.username, "x", "10.0.0.1").status_code == 400
    # The attacker's address must now wait, even with the right password...
    r = _login(api_client, user.username, DEFAULT_PASSWORD, "10.0.0.1")
    body = assert_problem(r, 429, "throttled")
    assert int(r["Retry-After"]) >= 1
    assert "detail" in body
    assert ApiToken.objects.filter(user=user).count() == 0
    # ...while the owner, elsewhere, is not locked out.
    assert _login(api_client, user.username, DEFAULT_PASSWORD, "10.0.0.99").status_code == 200
    assert ApiToken.objects.filter(user=user).count() == 1


@override_settings(LOGIN_FREE_ATTEMPTS=2)
def test_a_successful_login_clears_the_count_at_its_address(api_client, user):
    assert _login(api_client, user.username, "x", "10.0.0.5").status_code == 400
    assert _login(api_client, user.username, DEFAULT_PASSWORD, "10.0.0.5").status_code == 200
    # The count started again: two more attempts pass at once.
    assert _login(api_client, user.username, "x", "10.0.0.5").status_code == 400
    assert _login(api_client, user.username, "x", "10.0.0.5").status_code == 400
    assert_problem(_login(api_client, user.username, "x", "10.0.0.5"), 429, "throttled")


def test_login_backoff_doubles_after_the_free_attempts():
    from core import ratelimit

    def attempt():
        return ratelimit.backoff_attempt("t", free=2, max_wait_seconds=60, memory_seconds=60)

    assert attempt().allowed and attempt().allowed
    first_wait = attempt()
    assert not first_wait.allowed and 0.5 < first_wait.wait_seconds <= 1.0
    time.sleep(first_wait.wait_seconds + 0.05)
    assert attempt().allowed  # the third attempt, after its wait
    second_wait = attempt()
    assert not second_wait.allowed and 1.5 < second_wait.wait_seconds <= 2.0
    ratelimit.backoff_reset("t")
    assert attempt().allowed


def test_login_is_throttled_per_address_across_usernames(api_client, user):
    with override_settings(REST_FRAMEWORK=_rest_framework_with(_rates(login_ip="3/min"))):
        for n in range(3):
            r = api_client.post(
                TOKEN,
                {"username": f"guess{n}", "password": "x"},
                format="json",
                REMOTE_ADDR="10.0.0.7",
            )
            assert r.status_code == 400
        r = api_client.post(
            TOKEN,
            {"username": user.username, "password": DEFAULT_PASSWORD},
            format="json",
            REMOTE_ADDR="10.0.0.7",
        )
        assert_problem(r, 429, "throttled")
        assert int(r["Retry-After"]) > 0
        assert ApiToken.objects.filter(user=user).count() == 0
        # The limit is per address: the same login from another one goes through.
        r = api_client.post(
            TOKEN,
            {"username": user.username, "password": DEFAULT_PASSWORD},
            format="json",
            REMOTE_ADDR="10.0.0.8",
        )
        assert r.status_code == 200
    assert ApiToken.objects.filter(user=user).count() == 1


def test_register_is_throttled_per_address(api_client):
    with override_settings(REST_FRAMEWORK=_rest_framework_with(_rates(register_ip="2/hour"))):
        for n in range(2):
            r = api_client.post(
                REGISTER, {"username": f"newbie{n}", "password": STRONG}, format="json"
            )
            assert r.status_code == 201
        r = api_client.post(REGISTER, {"username": "newbie9", "password": STRONG}, format="json")
        assert_problem(r, 429, "throttled")
    assert not User.objects.filter(username="newbie9").exists()


def test_general_per_user_throttle(auth_client):
    with override_settings(REST_FRAMEWORK=_rest_framework_with(_rates(user="2/min"))):
        assert auth_client.get(ME).status_code == 200
        assert auth_client.get(ME).status_code == 200
        assert_problem(auth_client.get(ME), 429, "throttled")
