"""A tournament's spectators' stream (Server-Sent Events): its detail as
`GET /tournaments/{id}/` answers it, first as it is, then after every change (a
registration, a start, a table's end, a new stage, the end). A tournament has nothing
hidden, so anyone with a `read` token may follow it. Changes wake it through
`core.notifications` (`tournaments.notify`), as match events wake a match's stream."""

from collections.abc import AsyncIterator
from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from core import notifications
from core.errors import TooManyStreams
from core.live import (
    Pulse,
    StreamSlot,
    can_stream,
    db,
    live_view,
    sse_event,
    sse_response,
    stream_limit,
)
from core.schema import problems
from tournaments.api.views import detail_body
from tournaments.errors import TournamentNotFound
from tournaments.models import Tournament
from tournaments.notify import CHANNEL

OVER = (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)


class TournamentStreamSchema(APIView):
    token_scope = "read"

    @extend_schema(
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                description="Server-Sent Events: `id: <version>`, `event: tournament`, "
                "`data:` the tournament as `GET /tournaments/{tournament_id}/` answers it "
                "(`TournamentDetail`), first as it is now, then after each change; a "
                "`: heartbeat` comment every 15 s; it ends once the tournament is finished "
                "or cancelled."
            )
        },
        tags=["tournaments"],
        summary="A tournament's standings as they change (Server-Sent Events)",
        extensions=problems(TournamentNotFound, TooManyStreams),
    )
    def get(self, request: Request, tournament_id: int) -> None:
        """Documents `tournament_stream`."""


def _stream_start(request: Request, tournament_id: int) -> dict[str, Any]:
    return detail_body(tournament_id)


@live_view(TournamentStreamSchema, prepare=_stream_start)
async def tournament_stream(request: Request, first: dict, tournament_id: int) -> HttpResponse:
    slot = stream_limit.open(request.user.pk)
    return sse_response(_body(slot, first, tournament_id), request)


async def _body(slot: StreamSlot, detail: dict, tournament_id: int) -> AsyncIterator[bytes]:
    try:
        async with notifications.hub().subscribe((CHANNEL, tournament_id)) as sub:
            yield sse_event(detail["version"], "tournament", detail)
            pulse = Pulse()
            while detail["status"] not in OVER and can_stream() and not sub.closing:
                woken, _, beat = await pulse.wait(sub)
                if beat:
                    yield beat
                if not woken and sub.reliable:
                    continue
                fresh = await db(detail_body, tournament_id)
                if fresh["version"] != detail["version"]:
                    detail = fresh
                    yield sse_event(detail["version"], "tournament", detail)
    finally:
        slot.release()
