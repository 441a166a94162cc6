"""Accounts under hostile input: per-username throttles keyed by a hash of the
normalized name, registration throttled per username as well as per address, and
service errors that are domain errors (no DRF below the API layer) with the same
problem+json as before."""

import ast
from pathlib import Path

import pytest
from django.test import override_settings
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.test import APIRequestFactory

from accounts import services
from accounts.models import ApiToken, User
from accounts.throttles import RegisterUsernameThrottle, login_attempts_key
from core.errors import InvalidInput
from core.inputs import SafeJSONParser
from ledger.models import Account, Transfer
from tests.factories import DEFAULT_PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
REGISTER = "/api/v1/auth/register/"
TOKEN = "/api/v1/auth/token/"
STRONG = "a-Long-and-unusual-passphrase-42"


def _with_rates(**rates: str) -> override_settings:
    from django.conf import settings

    merged = {**api_settings.DEFAULT_THROTTLE_RATES, **rates}
    return override_settings(
        REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": merged}
    )


def _request(username: str) -> Request:
    django_request = APIRequestFactory().post("/x/", {"username": username}, format="json")
    return Request(django_request, parsers=[SafeJSONParser()])


def _register_key(username: str) -> str | None:
    return RegisterUsernameThrottle().get_cache_key(_request(username), view=None)


def _login_key(username: str) -> str | None:
    return login_attempts_key(_request(username), "10.0.0.1")


def test_register_is_throttled_per_username_across_addresses(api_client):
    with _with_rates(register_username="2/hour"):
        for n in range(2):
            response = api_client.post(
                REGISTER,
                {"username": "target", "password": "123"},
                format="json",
                REMOTE_ADDR=f"10.0.0.{n}",
            )
            assert response.status_code == 400
        state = (User.objects.count(), ApiToken.objects.count(), Transfer.objects.count())
        response = api_client.post(
            REGISTER,
            {"username": "TARGET", "password": STRONG},
            format="json",
            REMOTE_ADDR="10.0.0.99",
        )
        assert response.status_code == 429
        assert response["Content-Type"] == "application/problem+json"
        assert response.json()["code"] == "throttled"
        assert int(response["Retry-After"]) > 0
    assert (User.objects.count(), ApiToken.objects.count(), Transfer.objects.count()) == state
    assert not User.objects.filter(username__iexact="target").exists()
    # Another username from the same address is not held back.
    response = api_client.post(
        REGISTER, {"username": "other", "password": STRONG}, format="json", REMOTE_ADDR="10.0.0.99"
    )
    assert response.status_code == 201


@pytest.mark.parametrize("throttle_key", [_login_key, _register_key])
def test_username_throttle_keys_are_hashes_of_the_normalized_name(throttle_key):
    key = throttle_key("Alice")
    assert "alice" not in key.lower()
    # Case and Unicode compatibility forms (a fullwidth A) name the same counter.
    assert throttle_key("ALICE") == key
    assert throttle_key("\uff21lice") == key
    assert throttle_key("alicf") != key
    # Any length gives a key of one size, and no name at all gives no key.
    assert len(throttle_key("x" * 10_000)) == len(key)
    assert throttle_key("") is None


def test_login_throttle_counts_spellings_of_one_name_together(api_client):
    user = UserFactory(username="carol")
    with override_settings(LOGIN_FREE_ATTEMPTS=2):
        for spelling in ("CAROL", "Carol"):
            response = api_client.post(
                TOKEN, {"username": spelling, "password": "wrong"}, format="json"
            )
            assert response.status_code == 400
        response = api_client.post(
            TOKEN, {"username": "carol", "password": DEFAULT_PASSWORD}, format="json"
        )
        assert response.status_code == 429
    assert not ApiToken.objects.filter(user=user).exists()


def test_register_service_raises_domain_errors_with_field_errors():
    UserFactory(username="dora")
    with pytest.raises(InvalidInput) as taken:
        services.user_register(username="DORA", password=STRONG)
    assert taken.value.errors == [
        {"field": "username", "code": "username_taken", "detail": "This username is taken."}
    ]
    with pytest.raises(InvalidInput) as weak:
        services.user_register(username="eve", password="123")
    assert {e["field"] for e in weak.value.errors} == {"password"}
    assert {e["code"] for e in weak.value.errors} == {"weak_password"}
    assert not User.objects.filter(username="eve").exists()


def test_register_errors_keep_their_exact_problem_body(api_client):
    UserFactory(username="taken1")
    accounts_before = Account.objects.count()
    response = api_client.post(REGISTER, {"username": "TAKEN1", "password": STRONG}, format="json")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert response.json() == {
        "type": "https://liarsdice.example/problems/validation_error",
        "title": "Invalid input",
        "status": 400,
        "detail": "username: This username is taken.",
        "code": "validation_error",
        "errors": [
            {"field": "username", "code": "username_taken", "detail": "This username is taken."}
        ],
    }
    response = api_client.post(REGISTER, {"username": "fresh1", "password": "123"}, format="json")
    body = response.json()
    assert body["code"] == "validation_error"
    assert body["title"] == "Invalid input"
    assert body["detail"] == "; ".join(f"password: {e['detail']}" for e in body["errors"])
    assert len(body["errors"]) == 3
    assert {e["code"] for e in body["errors"]} == {"weak_password"}
    assert Account.objects.count() == accounts_before


@pytest.mark.parametrize(
    "module",
    sorted(
        str(path.relative_to(ROOT))
        for app in ("accounts", "ledger", "games", "moderation")
        for path in [*(ROOT / app).glob("*.py"), *(ROOT / app).glob("services/*.py")]
        if path.stem in ("services", "selectors") or path.parent.name == "services"
    ),
)
def test_services_and_selectors_do_not_depend_on_drf(module):
    tree = ast.parse((ROOT / module).read_text())
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not any(name.split(".")[0] == "rest_framework" for name in imported)
