"""Idempotency records stay usable whatever a request held: an error response echoing
characters jsonb refuses is still kept, one that cannot be kept frees its key, a claim
whose process died (SIGKILL) is taken over by the next retry at once while a live one
answers 409, and records go after 24 h."""

import subprocess
import sys
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connections
from django.utils import timezone
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory, force_authenticate

from core.idempotency import KEEP_FOR, OWNER_LOCK_SPACE, idempotent, purge_expired
from core.models import IdempotencyRecord
from core.tasks import purge_idempotency_records
from games.api.base import MatchApiBase
from games.models import Match
from tests.celery.conftest import ROOT, Processes
from tests.conftest import client_for
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db

MATCHES = "/api/v1/matches/"
NEW_MATCH = {"ruleset": "milton_bradley", "max_players": 3, "turn_seconds": 120}


class EchoingView(MatchApiBase):
    """Fails the way a ChoiceField does, echoing the input (here, a NUL) in its error."""

    calls = 0

    @idempotent
    def post(self, request: Request) -> Response:
        type(self).calls += 1
        raise ValidationError({"type": ['"\x00" is not a valid choice.']})


class UnstorableView(EchoingView):
    """An error response jsonb cannot take at all (a set is not JSON)."""

    calls = 0

    def handle_exception_for_idempotency(self, exc: Exception) -> Response | None:
        return Response({"odd": {1, 2}}, status=400)


def call(view: type[MatchApiBase], user, key: str) -> Response:
    request = APIRequestFactory().post("/x/", {}, format="json", HTTP_IDEMPOTENCY_KEY=key)
    force_authenticate(request, user=user)
    return view.as_view()(request)


def test_an_error_echoing_a_nul_is_kept_and_replayed():
    user = UserFactory()
    EchoingView.calls = 0
    first = call(EchoingView, user, "echo-1")
    assert first.status_code == 400
    record = IdempotencyRecord.objects.get(user=user, key="echo-1")
    assert record.response_status == 400
    assert "\ufffd" in record.response_body["detail"]
    replay = call(EchoingView, user, "echo-1")
    assert replay.status_code == 400
    assert replay["Idempotent-Replayed"] == "true"
    assert replay.data == record.response_body
    assert EchoingView.calls == 1


def test_a_response_that_cannot_be_stored_frees_its_key():
    user = UserFactory()
    UnstorableView.calls = 0
    assert call(UnstorableView, user, "odd-1").status_code == 400
    assert not IdempotencyRecord.objects.filter(user=user, key="odd-1").exists()
    # Not stuck "in flight": the retry runs again instead of a 409.
    assert call(UnstorableView, user, "odd-1").status_code == 400
    assert UnstorableView.calls == 2


def _claim_left_behind(user, key: str, age: timedelta) -> IdempotencyRecord:
    return IdempotencyRecord.objects.create(
        user=user, key=key, request_hash="0" * 64, created_at=timezone.now() - age
    )


def test_a_claim_whose_owner_is_gone_is_taken_over_at_once():
    player = PlayerFactory()
    client = client_for(player)
    _claim_left_behind(player, "died-1", timedelta(seconds=1))
    response = client.post(MATCHES, NEW_MATCH, format="json", HTTP_IDEMPOTENCY_KEY="died-1")
    assert response.status_code == 201
    record = IdempotencyRecord.objects.get(user=player, key="died-1")
    assert record.response_status == 201
    assert record.response_body["id"] == response.json()["id"]


def test_a_claim_whose_owner_still_runs_is_in_flight_however_old():
    player = PlayerFactory()
    client = client_for(player)
    first = client.post(MATCHES, NEW_MATCH, format="json", HTTP_IDEMPOTENCY_KEY="busy-1")
    assert first.status_code == 201
    # As if the first request were still running (for longer than any timeout): its
    # record unanswered, its connection holding the owner lock.
    IdempotencyRecord.objects.filter(key="busy-1").update(
        response_status=None, response_body=None, created_at=timezone.now() - KEEP_FOR / 2
    )
    owner = connections.create_connection("default")
    try:
        with owner.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_lock(%s, hashtext(%s))",
                [OWNER_LOCK_SPACE, f"{player.pk}:busy-1"],
            )
        response = client.post(MATCHES, NEW_MATCH, format="json", HTTP_IDEMPOTENCY_KEY="busy-1")
        # A different body under a running key is refused as such.
        other = client.post(
            MATCHES, {**NEW_MATCH, "max_players": 4}, format="json", HTTP_IDEMPOTENCY_KEY="busy-1"
        )
    finally:
        owner.close()
    assert response.status_code == 409
    assert response.json()["code"] == "idempotency_key_in_use"
    assert other.status_code == 422
    assert Match.objects.count() == 1
    assert IdempotencyRecord.objects.filter(key="busy-1", response_status=None).exists()


class FinishingView(MatchApiBase):
    calls = 0

    @idempotent
    def post(self, request: Request) -> Response:
        type(self).calls += 1
        return Response({"done": True}, status=201)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_retry_takes_over_the_key_of_a_killed_process(tmp_path):
    """The request that claimed the key runs in another process, killed by SIGKILL in its
    handler: the retry runs at once instead of answering 409 for minutes."""
    user = UserFactory()
    owner = subprocess.Popen(
        [sys.executable, "-m", "tests.api.idempotency_owner", str(user.pk), "killed-1"],
        cwd=ROOT,
        env=Processes(tmp_path).env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert owner.stdout.readline().strip() == "working"
        assert IdempotencyRecord.objects.filter(user=user, key="killed-1").exists()
        FinishingView.calls = 0
        assert call(FinishingView, user, "killed-1").status_code == 409  # alive: in flight
    finally:
        owner.kill()
        owner.wait(timeout=30)
    # The server notices the closed connection and drops its lock within moments.
    deadline = time.monotonic() + 30
    while (response := call(FinishingView, user, "killed-1")).status_code == 409:
        assert time.monotonic() < deadline, "the dead owner's claim was never taken over"
        time.sleep(0.1)
    assert response.status_code == 201 and FinishingView.calls == 1
    assert IdempotencyRecord.objects.get(user=user, key="killed-1").response_status == 201
    replay = call(FinishingView, user, "killed-1")
    assert replay["Idempotent-Replayed"] == "true" and FinishingView.calls == 1


def test_an_answered_record_hours_old_still_replays():
    player = PlayerFactory()
    client = client_for(player)
    first = client.post(MATCHES, NEW_MATCH, format="json", HTTP_IDEMPOTENCY_KEY="old-1")
    assert first.status_code == 201
    IdempotencyRecord.objects.filter(key="old-1").update(created_at=timezone.now() - KEEP_FOR / 2)
    replay = client.post(MATCHES, NEW_MATCH, format="json", HTTP_IDEMPOTENCY_KEY="old-1")
    assert replay.status_code == 201
    assert replay["Idempotent-Replayed"] == "true"
    assert Match.objects.count() == 1


def _records(user) -> dict[str, IdempotencyRecord]:
    now = timezone.now()
    ages = {
        "answered-25h": (KEEP_FOR + timedelta(hours=1), 201),
        "claimed-25h": (KEEP_FOR + timedelta(hours=1), None),
        "answered-23h": (KEEP_FOR - timedelta(hours=1), 201),
        "claimed-1m": (timedelta(minutes=1), None),
    }
    return {
        key: IdempotencyRecord.objects.create(
            user=user,
            key=key,
            request_hash="0" * 64,
            response_status=status,
            response_body={} if status else None,
            created_at=now - age,
        )
        for key, (age, status) in ages.items()
    }


def test_purge_deletes_only_records_older_than_24_hours():
    user = UserFactory()
    _records(user)
    assert purge_expired() == 2
    assert sorted(IdempotencyRecord.objects.values_list("key", flat=True)) == [
        "answered-23h",
        "claimed-1m",
    ]
    assert purge_expired() == 0


def test_the_purge_task_runs_the_purge_and_beat_schedules_it():
    _records(UserFactory())
    assert purge_idempotency_records() == 2
    assert IdempotencyRecord.objects.count() == 2
    entry = settings.CELERY_BEAT_SCHEDULE["purge-idempotency-records"]
    assert entry["task"] == purge_idempotency_records.name
