"""The caller's account stream (Server-Sent Events): the account events of
`games.events` (turns, matches, challenges, quick play), from the account event store
(`accounts.events`). An async view that holds no thread and no database connection
while it waits (see `core.live`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.events import (
    CHANNEL,
    SESSIONS_CHANNEL,
    account_events_after,
    account_last_seq,
)
from core import notifications
from core.errors import TooManyStreams
from core.live import (
    Pulse,
    StreamSlot,
    can_stream,
    db,
    live_view,
    resume_position,
    sse_event,
    sse_response,
    stream_limit,
    token_still_valid,
)
from core.query import parse_query
from core.schema import event_stream, problems


class AccountStreamQuery(serializers.Serializer):
    after = serializers.IntegerField(
        min_value=0,
        required=False,
        help_text="Resume after this event id (Last-Event-ID wins); 0 replays all kept.",
    )


class AccountStreamSchema(APIView):
    token_scope = "read"

    @extend_schema(
        parameters=[
            AccountStreamQuery,
            OpenApiParameter(
                "Last-Event-ID",
                type=int,
                location=OpenApiParameter.HEADER,
                required=False,
                description="The id of the last event received: the stream resumes after it.",
            ),
        ],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                description=(
                    "Server-Sent Events for the caller's account, across all their matches "
                    "and invitations: `id: <n>` (increasing per account), `event: <type>`, "
                    "`data:` the event as one flat JSON object (`id`, `type`, `created_at` "
                    "and the payload's fields, as the webhooks send them), typed per "
                    "`event` below. Without a resume point the stream starts now; events "
                    "are kept at least 24 h. A `: heartbeat` comment every 15 s."
                ),
            )
        },
        tags=["accounts"],
        summary="Your account's events as they happen (Server-Sent Events)",
        extensions={**problems(TooManyStreams), **event_stream("account")},
    )
    def get(self, request: Request) -> None:
        """Documents `account_stream`."""


def _stream_start(request: Request) -> int | None:
    return resume_position(request, parse_query(request, AccountStreamQuery).get("after"))


@live_view(AccountStreamSchema, prepare=_stream_start)
async def account_stream(request: Request, after: int | None) -> HttpResponse:
    slot = stream_limit.open(request.user.pk)
    return sse_response(_account_stream_body(request, slot, after), request)


async def _account_stream_body(
    request: Request, slot: StreamSlot, after: int | None
) -> AsyncIterator[bytes]:
    user_id = request.user.pk
    hub = notifications.hub()
    try:
        async with hub.subscribe((CHANNEL, user_id), (SESSIONS_CHANNEL, user_id)) as sub:
            # Read after subscribing: an event committed meanwhile still wakes the stream.
            if after is None:
                after = await db(account_last_seq, user_id=user_id)
            pulse = Pulse()
            read = True
            while not sub.closing:
                if read:
                    events = await db(account_events_after, user_id=user_id, after=after)
                    for event in events:
                        yield sse_event(event["id"], event["type"], event)
                        after = event["id"]
                    if events:
                        continue  # a full page, maybe: read on before waiting
                    if not can_stream():
                        return
                woken, _now, beat = await pulse.wait(sub)
                if sub.take_woken(SESSIONS_CHANNEL, user_id) and not await token_still_valid(
                    request
                ):
                    return
                if beat:
                    yield beat
                # Silence the listener vouches for needs no read.
                read = woken or not sub.reliable
    finally:
        slot.release()
