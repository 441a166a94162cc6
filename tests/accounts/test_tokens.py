"""Listing and revoking your own API tokens: never a secret, never another's token."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import ApiToken
from accounts.services import token_create
from tests.conftest import client_for
from tests.factories import DEFAULT_PASSWORD, UserFactory
from tests.problems import assert_problem

pytestmark = pytest.mark.django_db
TOKENS = "/api/v1/auth/tokens/"


def test_the_list_shows_your_tokens_without_their_secrets(api_client):
    user = UserFactory()
    logged_in = api_client.post(
        "/api/v1/auth/token/",
        {"username": user.username, "password": DEFAULT_PASSWORD, "name": "laptop bot"},
        format="json",
    )
    assert logged_in.status_code == 200
    secret = logged_in.json()["token"]
    _, expiring = token_create(user=user, expires_in=timedelta(hours=1), name="short")
    other = token_create(user=UserFactory(), name="not yours")[0]
    revoked, _ = token_create(user=user, name="gone")
    revoked.revoked_at = timezone.now()
    revoked.save()

    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    response = api_client.get(TOKENS)
    assert response.status_code == 200
    body = response.json()
    assert [t["name"] for t in body["results"]] == ["short", "laptop bot"]
    laptop = body["results"][1]
    assert laptop["current"] is True and laptop["prefix"] == secret[:10]
    assert laptop["last_used_at"] is not None  # this very request used it
    assert body["results"][0]["last_used_at"] is None
    assert body["results"][0]["expires_at"] is not None and laptop["expires_at"] is None
    assert secret not in response.content.decode() and expiring not in response.content.decode()
    assert other.pk not in [t["id"] for t in body["results"]]
    assert {
        "id",
        "name",
        "prefix",
        "created_at",
        "last_used_at",
        "expires_at",
        "scopes",
        "current",
    } == set(laptop)


def test_revoking_one_token_stops_it_and_only_it():
    user = UserFactory()
    keep = client_for(user)
    doomed, doomed_raw = token_create(user=user, name="old")
    assert keep.delete(f"{TOKENS}{doomed.pk}/").status_code == 204
    assert ApiToken.objects.get(pk=doomed.pk).revoked_at is not None
    keep.credentials(HTTP_AUTHORIZATION=f"Bearer {doomed_raw}")
    assert keep.get(TOKENS).status_code == 401
    assert client_for(user).get(TOKENS).status_code == 200


def test_another_players_token_or_a_revoked_one_is_not_found():
    user, someone = UserFactory(), UserFactory()
    theirs, _ = token_create(user=someone)
    client = client_for(user)
    assert_problem(client.delete(f"{TOKENS}{theirs.pk}/"), 404, "not_found")
    assert ApiToken.objects.get(pk=theirs.pk).revoked_at is None
    mine, _ = token_create(user=user)
    assert client.delete(f"{TOKENS}{mine.pk}/").status_code == 204
    assert_problem(client.delete(f"{TOKENS}{mine.pk}/"), 404, "not_found")


def test_last_use_is_written_once_a_minute_at_most():
    user = UserFactory()
    token, raw = token_create(user=user)
    client = client_for(user)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    client.get(TOKENS)
    first = ApiToken.objects.get(pk=token.pk).last_used_at
    client.get(TOKENS)
    assert ApiToken.objects.get(pk=token.pk).last_used_at == first
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=first - timedelta(minutes=2))
    client.get(TOKENS)
    assert ApiToken.objects.get(pk=token.pk).last_used_at > first


def test_listing_needs_a_token(api_client):
    assert_problem(api_client.get(TOKENS), 401, "not_authenticated")
