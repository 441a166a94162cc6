"""Bad input anywhere in a request (body, path, query string, headers, size, method)
gets a 4xx application/problem+json with a stable `code`, never a 500, and changes
nothing in the database."""

import base64
import re

import pytest
from django.apps import apps
from django.test import Client, override_settings
from drf_spectacular.generators import SchemaGenerator

from accounts.models import User
from ledger.models import Account
from tests.conftest import client_for
from tests.factories import PlayerFactory, UserFactory
from tests.problems import assert_problem

pytestmark = pytest.mark.django_db

REGISTER = "/api/v1/auth/register/"
MATCHES = "/api/v1/matches/"
STRONG = "a-Long-and-unusual-passphrase-42"
NEW_MATCH = {"ruleset": "milton_bradley", "max_players": 3, "turn_seconds": 120}


def db_state() -> dict:
    """Every row count of the project's apps, and every balance."""
    state = {
        model._meta.label: model.objects.count()
        for model in apps.get_models()
        if model._meta.app_label in ("accounts", "ledger", "games", "moderation")
    }
    state["balances"] = sorted(Account.objects.values_list("id", "balance"))
    return state


@pytest.fixture
def anon() -> Client:
    # A real client would get no CSRF exemption from the test client either.
    return Client(enforce_csrf_checks=True, raise_request_exception=False)


@pytest.fixture
def player_client():
    client = client_for(PlayerFactory())
    client.raise_request_exception = False
    return client


def post_json(client, path: str, body: str | bytes, **extra):
    content_type = extra.pop("content_type", "application/json")
    return client.generic("POST", path, body, content_type=content_type, **extra)


# 1. Bodies the JSON parser must refuse cleanly -------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "[" * 50_000,  # unterminated: json's own recursion limit (RecursionError)
        "[" * 40 + "]" * 40,  # well formed, deeper than any request needs
        '{"a":' * 40 + "1" + "}" * 40,
    ],
    ids=["unterminated-arrays", "deep-arrays", "deep-objects"],
)
def test_deeply_nested_json_is_a_parse_error(anon, player_client, body):
    before = db_state()
    assert_problem(post_json(anon, REGISTER, body), 400, "parse_error")
    response = post_json(player_client, MATCHES, body, HTTP_IDEMPOTENCY_KEY="deep-1")
    assert_problem(response, 400, "parse_error")
    assert db_state() == before


@pytest.mark.parametrize(
    ("body", "field", "field_code"),
    [
        ('{"username": "ab\\u0000cd", "password": "x"}', "username", "null_characters_not_allowed"),
        ('{"username": "abc", "password": "pw\\u0000pw-long-enough"}', "password", None),
        ('{"username": "abc", "x": {"y": ["\\u0000"]}}', "x.y.0", "null_characters_not_allowed"),
        ('{"username": "abc", "k\\u0000": 1}', "k\ufffd", "null_characters_not_allowed"),
        ('{"username": "\\ud800abc", "password": "x"}', "username", "invalid_unicode"),
        ('{"username": "abc", "password": 1e999}', "password", "invalid"),
        ('"\\u0000"', "non_field_errors", "null_characters_not_allowed"),
    ],
)
def test_strings_and_numbers_the_database_cannot_hold_are_refused(anon, body, field, field_code):
    before = db_state()
    problem = assert_problem(post_json(anon, REGISTER, body), 400, "validation_error")
    fields = {e["field"]: e["code"] for e in problem["errors"]}
    assert field in fields
    if field_code:
        assert fields[field] == field_code
    assert "\x00" not in str(problem)
    assert db_state() == before


def test_only_utf8_json_is_parsed(anon):
    before = db_state()
    body = b'{"username": "zlibber", "password": "a-Long-and-unusual-passphrase-42"}'
    for charset in ("rot13", "zlib_codec", "utf-16"):
        response = post_json(
            anon, REGISTER, body, content_type=f"application/json; charset={charset}"
        )
        assert_problem(response, 415, "unsupported_media_type")
    assert_problem(post_json(anon, REGISTER, b'{"username": "\xff"}'), 400, "parse_error")
    assert db_state() == before
    response = post_json(anon, REGISTER, body, content_type="application/json; charset=UTF-8")
    assert response.status_code == 201


# 2. NUL characters (and non-usernames) in the URL, the query and the body ---------------


@pytest.mark.parametrize(
    "path", ["/api/v1/players/%00/", "/api/v1/players/a%00b/", "/api/v1/matches/%00/"]
)
def test_nul_in_the_path_is_not_found(player_client, path):
    before = db_state()
    assert_problem(player_client.get(path), 404, "not_found")
    assert db_state() == before


@pytest.mark.parametrize("username", ["a b", "a/b", "x" * 151, "a%2Fb", "%E2%80%AE"])
def test_what_cannot_be_a_username_is_not_found(anon, username):
    assert_problem(anon.get(f"/api/v1/players/{username}/"), 404, "not_found")


def test_a_real_username_is_still_found(anon):
    UserFactory(username="some.one-else@x")
    assert anon.get("/api/v1/players/SOME.ONE-ELSE@X/").status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/me/?unknown=%00",
        "/api/v1/me/transactions/?cursor=%00",
        "/api/v1/matches/?status=%00",
        "/api/v1/matches/?%00=1",
        "/api/v1/leaderboard/?by=%00",
        "/api/v1/matches/1/events/?after=%00",
    ],
)
def test_nul_in_the_query_string_is_a_validation_error(player_client, path):
    before = db_state()
    problem = assert_problem(player_client.get(path), 400, "validation_error")
    assert problem["errors"][0]["code"] == "null_characters_not_allowed"
    assert db_state() == before


def test_nul_in_an_admin_search_is_refused_too():
    admin = UserFactory(is_staff=True, is_superuser=True)
    client = Client(raise_request_exception=False)
    client.force_login(admin)
    assert_problem(client.get("/admin/accounts/user/?q=%00"), 400, "validation_error")


def test_nul_in_login_register_chat_and_webhook_bodies(anon, player_client):
    created = player_client.post(MATCHES, NEW_MATCH, format="json")
    assert created.status_code == 201
    match_id = created.json()["id"]
    before = db_state()
    requests = [
        (anon, "/api/v1/auth/token/", '{"username": "a\\u0000b", "password": "x"}'),
        (anon, REGISTER, '{"username": "abc\\u0000", "password": "a-Long-passphrase-42"}'),
        (player_client, f"{MATCHES}{match_id}/messages/", '{"text": "hi\\u0000"}'),
        (player_client, "/api/v1/webhooks/", '{"url": "https://example.com/\\u0000"}'),
        (player_client, MATCHES, '{"ruleset": "milton_bradley", "options": {"\\u0000": 1}}'),
    ]
    for client, path, body in requests:
        assert_problem(post_json(client, path, body), 400, "validation_error")
    assert db_state() == before


# 3. Strict bodies: a field no operation takes is refused by name -----------------------


def _operations_with_a_body() -> list[tuple[str, str]]:
    document = SchemaGenerator().get_schema(request=None, public=True)
    return sorted(
        (method.upper(), re.sub(r"\{[^}]+\}", "1", path))
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if "requestBody" in operation
    )


def test_every_body_refuses_an_unknown_field_by_name(player_client):
    operations = _operations_with_a_body()
    assert {
        ("POST", "/api/v1/auth/register/"),
        ("PATCH", "/api/v1/me/"),
        ("POST", "/api/v1/matches/1/actions/"),
        ("POST", "/api/v1/challenges/"),
        ("POST", "/api/v1/seeks/"),
    } <= set(operations)
    before = db_state()
    for method, path in operations:
        response = player_client.generic(
            method, path, '{"zz_unknown": 1}', content_type="application/json"
        )
        problem = assert_problem(response, 400, "validation_error")
        unknown = [e for e in problem["errors"] if e["field"] == "zz_unknown"]
        assert [e["code"] for e in unknown] == ["unknown_field"], (method, path, problem)
        assert unknown[0]["detail"].startswith("Unknown field; the fields are ")
    assert db_state() == before


def test_nested_objects_refuse_unknown_fields_too(player_client):
    before = db_state()
    body = {**NEW_MATCH, "bots": [{"strategy": "random", "level": 9}], "options": {"lifes": 3}}
    response = player_client.post(MATCHES, body, format="json")
    problem = assert_problem(response, 400, "validation_error")
    assert [(e["field"], e["code"]) for e in problem["errors"]] == [
        ("options.lifes", "unknown_field"),
        ("bots.0.level", "unknown_field"),
    ]
    assert problem["errors"][1]["detail"] == "Unknown field; the fields are strategy."
    assert db_state() == before


def test_missing_and_mistyped_fields_are_all_listed(anon):
    before = db_state()
    response = post_json(anon, REGISTER, '{"username": 7, "passwd": "x"}')
    problem = assert_problem(response, 400, "validation_error")
    assert [(e["field"], e["code"]) for e in problem["errors"]] == [
        ("username", "invalid"),
        ("password", "required"),
        ("passwd", "unknown_field"),
    ]
    assert db_state() == before


def test_a_token_name_may_be_left_blank_as_its_default_is(anon):
    UserFactory(username="named", password=STRONG)
    body = {"username": "named", "password": STRONG, "name": ""}
    assert (
        anon.post("/api/v1/auth/token/", body, content_type="application/json").status_code == 200
    )


# 4. Integers in query parameters: ASCII digits only ------------------------------------


@pytest.mark.parametrize("value", ["%C2%B2", "%D9%A3", "+5", "%205", "5.0", "0", "201", "1e2"])
def test_transactions_page_size_is_strict(player_client, value):
    response = player_client.get(f"/api/v1/me/transactions/?page_size={value}")
    problem = assert_problem(response, 400, "validation_error")
    assert problem["errors"][0]["field"] == "page_size"


def test_transactions_page_size_in_range_works(player_client):
    response = player_client.get("/api/v1/me/transactions/?page_size=1")
    assert response.status_code == 200
    assert len(response.json()["results"]) == 1


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/matches/?page_size=%C2%B2",
        "/api/v1/matches/?page_size=%D9%A3",
        "/api/v1/leaderboard/?page_size=%C2%B2",
        "/api/v1/leaderboard/?page_size=%D9%A3",
        "/api/v1/matches/1/events/?after=%D9%A3",
        "/api/v1/matches/1/events/?after=1.0",
        "/api/v1/matches/1/events/?wait=%D9%A3",
    ],
)
def test_other_numeric_query_parameters_are_strict(player_client, path):
    problem = assert_problem(player_client.get(path), 400, "validation_error")
    assert "ASCII" in problem["detail"]


@pytest.mark.parametrize("position", ["abc", "\x00", "", "1" * 40, "-1"])
@pytest.mark.parametrize("path", ["/api/v1/me/transactions/", MATCHES, "/api/v1/leaderboard/"])
def test_a_tampered_cursor_is_not_found(player_client, path, position):
    cursor = base64.b64encode(f"p={position}".encode()).decode()
    response = player_client.get(path, {"cursor": cursor})
    assert_problem(response, 404, "not_found")


# 5. Body size -------------------------------------------------------------------------


def test_a_body_over_the_limit_is_refused_before_it_is_read(anon):
    before = db_state()
    body = '{"username": "big", "password": "' + "x" * 70_000 + '"}'
    response = post_json(anon, REGISTER, body)
    problem = assert_problem(response, 413, "payload_too_large")
    assert "65536" in problem["detail"]
    assert response["X-Content-Type-Options"] == "nosniff"
    assert db_state() == before


def test_the_body_limit_is_a_setting(anon):
    body = '{"username": "sized", "password": "a-Long-and-unusual-passphrase-42"}'
    with override_settings(API_MAX_BODY_BYTES=len(body) - 1):
        assert_problem(post_json(anon, REGISTER, body), 413, "payload_too_large")
        assert not User.objects.filter(username="sized").exists()
    with override_settings(API_MAX_BODY_BYTES=len(body)):
        assert post_json(anon, REGISTER, body).status_code == 201


@pytest.mark.parametrize(
    ("length", "status", "code"),
    [("9" * 5000, 413, "payload_too_large"), ("²", 400, "bad_request"), ("-1", 400, "bad_request")],
)
def test_a_malformed_content_length_is_refused(anon, length, status, code):
    response = post_json(anon, REGISTER, b"{}", CONTENT_LENGTH=length)
    assert_problem(response, status, code)


def test_a_chunked_body_without_a_length_is_refused(anon):
    before = db_state()
    response = anon.generic(
        "POST", REGISTER, b"", content_type="application/json", HTTP_TRANSFER_ENCODING="chunked"
    )
    assert_problem(response, 411, "length_required")
    assert db_state() == before


# 6. Errors Django produces itself -------------------------------------------------------


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_healthz_other_methods_are_405_problems(anon, method):
    response = anon.generic(method, "/healthz", b"{}", content_type="application/json")
    assert_problem(response, 405, "method_not_allowed")
    assert response["Allow"] == "GET, HEAD"


@pytest.mark.parametrize("debug", [False, True])
def test_a_post_without_the_trailing_slash_is_a_404_problem(anon, debug):
    before = db_state()
    body = '{"username": "slashless", "password": "a-Long-and-unusual-passphrase-42"}'
    with override_settings(DEBUG=debug):
        problem = assert_problem(post_json(anon, REGISTER.rstrip("/"), body), 404, "not_found")
        assert f"{REGISTER} (with the trailing slash)" in problem["detail"]
        assert_problem(anon.get("/api/v1/no/such/thing/"), 404, "not_found")
        assert_problem(anon.get("/api/v1/matches/x/"), 404, "not_found")
    assert db_state() == before


def test_the_admin_still_appends_its_slash():
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    response = client.get("/admin/accounts/user")
    assert response.status_code == 301
    assert response["Location"] == "/admin/accounts/user/"


@pytest.mark.urls("tests.api.urls")
def test_csrf_failures_are_problems_on_api_paths_only(anon):
    problem = assert_problem(anon.post("/api/v1/test-plain/"), 403, "csrf_failed")
    assert "CSRF" in problem["detail"]
    response = anon.post("/admin/login/", {"username": "a", "password": "b"})
    assert response.status_code == 403
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.urls("tests.api.urls")
@pytest.mark.parametrize("debug", [False, True])
def test_a_server_error_is_a_problem_with_debug_on_or_off(anon, debug):
    with override_settings(DEBUG=debug):
        response = anon.get("/api/v1/test-failing/")
    body = assert_problem(response, 500, "server_error")
    assert "a bug" not in str(body)
    assert response["X-Content-Type-Options"] == "nosniff"


# 7. Idempotency-Key with bad input ------------------------------------------------------


def test_bad_input_under_an_idempotency_key_leaves_the_key_free(player_client):
    before = db_state()
    for body in ('{"ruleset": "\\u0000"}', '{"ruleset": "\\ud800"}', "[" * 50_000):
        response = post_json(player_client, MATCHES, body, HTTP_IDEMPOTENCY_KEY="k-1")
        assert response.status_code == 400
        assert response["Content-Type"] == "application/problem+json"
    assert db_state() == before
    # The key was never claimed: the same key now creates the match.
    response = player_client.post(MATCHES, NEW_MATCH, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert response.status_code == 201


@pytest.mark.parametrize("key", ["a\x00b", "tab\there", "x" * 256])
def test_a_malformed_idempotency_key_is_refused(player_client, key):
    before = db_state()
    response = player_client.post(MATCHES, NEW_MATCH, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert_problem(response, 400, "validation_error")
    assert db_state() == before
