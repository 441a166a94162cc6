"""A process that claims an Idempotency-Key and then hangs in its handler, for a test to
kill: `python -m tests.api.idempotency_owner <user id> <key>` (Django settings and
database from the environment). Prints "working" once it owns the key."""

import sys
import time

import django

django.setup()

from rest_framework.request import Request  # noqa: E402 - after django.setup()
from rest_framework.response import Response  # noqa: E402
from rest_framework.test import APIRequestFactory, force_authenticate  # noqa: E402

from accounts.models import User  # noqa: E402
from core.idempotency import idempotent  # noqa: E402
from games.api.base import MatchApiBase  # noqa: E402


class HangingView(MatchApiBase):
    @idempotent
    def post(self, request: Request) -> Response:
        print("working", flush=True)
        time.sleep(3600)
        return Response({}, status=201)


if __name__ == "__main__":
    user_id, key = int(sys.argv[1]), sys.argv[2]
    request = APIRequestFactory().post("/x/", {}, format="json", HTTP_IDEMPOTENCY_KEY=key)
    force_authenticate(request, user=User.objects.get(pk=user_id))
    HangingView.as_view()(request)
