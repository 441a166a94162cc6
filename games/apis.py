"""Thin API views for matches: parse input, call a service or selector, return a dict."""

import time

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.idempotency import IDEMPOTENCY_HEADER, IdempotentView, idempotent
from core.pagination import IdCursorPagination
from core.query import parse_query
from games import engine, selectors, services
from games.models import Match
from games.notify import listener
from games.serializers import (
    ActionInput,
    BotInput,
    CursorQuery,
    EventsOutput,
    EventsQuery,
    JoinInput,
    LeaderboardEntryOutput,
    LeaderboardQuery,
    MatchCreateInput,
    MatchListQuery,
    MatchOutput,
    MatchSummaryOutput,
    MessageInput,
    MessageOutput,
    RoundsOutput,
    RulesetOutput,
)
from games.services import MatchChange
from games.throttles import ChatThrottle

# How long a long poll sleeps at most before reading the events again itself.
RECHECK_SECONDS = 5.0


class NewestFirst(IdCursorPagination):
    page_size = 20
    max_page_size = 100
    page_size_query_param = "page_size"


class Ranked(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200


def cursor_page(name: str, item: serializers.Serializer) -> serializers.Serializer:
    return inline_serializer(
        name,
        fields={
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": item,
        },
    )


def offset_page(name: str, item: serializers.Serializer) -> serializers.Serializer:
    return inline_serializer(
        name,
        fields={
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": item,
        },
    )


class MatchApiBase(IdempotentView, APIView):
    def match_response(self, match: Match, code: int = status.HTTP_200_OK) -> Response:
        return Response(selectors.match_view(match=match, user=self.request.user), status=code)

    def change_response(self, change: MatchChange, code: int = status.HTTP_200_OK) -> Response:
        """The match a service just changed, reusing the seats and state it loaded."""
        view = selectors.match_view(
            match=change.match, user=self.request.user, seats=change.seats, state=change.state
        )
        return Response(view, status=code)


class RulesetListApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: RulesetOutput(many=True)},
        tags=["rules"],
        summary="Every preset with all its options",
    )
    def get(self, request: Request) -> Response:
        return Response(engine.preset_list())


class MatchListCreateApi(MatchApiBase):
    @extend_schema(
        parameters=[MatchListQuery],
        responses={200: cursor_page("MatchPage", MatchSummaryOutput(many=True))},
        tags=["matches"],
        operation_id="matches_list",
        summary="The lobby: matches, newest first",
    )
    def get(self, request: Request) -> Response:
        filters = parse_query(request, MatchListQuery)
        filters.pop("cursor", None)
        filters.pop("page_size", None)
        matches = selectors.match_list(user=request.user, **filters)
        paginator = NewestFirst()
        page = paginator.paginate_queryset(
            matches.prefetch_related("seats__player"), request, view=self
        )
        return paginator.get_paginated_response(
            [selectors.match_summary(m, list(m.seats.all())) for m in page]
        )

    @extend_schema(
        request=MatchCreateInput,
        responses={201: MatchOutput},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["matches"],
        summary="Create a match; you take seat 0",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        payload = MatchCreateInput(data=request.data)
        payload.is_valid(raise_exception=True)
        data = dict(payload.validated_data)
        data["bots"] = [b["strategy"] for b in data.get("bots", [])]
        change = services.match_create(user=request.user, **data)
        return self.change_response(change, status.HTTP_201_CREATED)


class MatchDetailApi(MatchApiBase):
    @extend_schema(
        responses={200: MatchOutput}, tags=["matches"], summary="The match as you may see it"
    )
    def get(self, request: Request, match_id: int) -> Response:
        return self.match_response(selectors.match_get(match_id=match_id, user=request.user))


class MatchJoinApi(MatchApiBase):
    @extend_schema(
        request=JoinInput,
        responses={200: MatchOutput},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["matches"],
        summary="Take a seat",
    )
    @idempotent
    def post(self, request: Request, match_id: int) -> Response:
        payload = JoinInput(data=request.data)
        payload.is_valid(raise_exception=True)
        change = services.match_join(match_id=match_id, user=request.user, **payload.validated_data)
        return self.change_response(change)


class MatchLeaveApi(MatchApiBase):
    @extend_schema(
        request=None,
        responses={200: MatchOutput},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["matches"],
        summary="Give up your seat before the start",
    )
    @idempotent
    def post(self, request: Request, match_id: int) -> Response:
        return self.change_response(services.match_leave(match_id=match_id, user=request.user))


class MatchBotsApi(MatchApiBase):
    @extend_schema(
        request=BotInput,
        responses={200: MatchOutput},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["matches"],
        summary="Seat a bot (creator, before the start)",
    )
    @idempotent
    def post(self, request: Request, match_id: int) -> Response:
        payload = BotInput(data=request.data)
        payload.is_valid(raise_exception=True)
        change = services.match_add_bot(
            match_id=match_id, user=request.user, **payload.validated_data
        )
        return self.change_response(change)


class MatchStartApi(MatchApiBase):
    @extend_schema(
        request=None,
        responses={200: MatchOutput},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["matches"],
        summary="Start the match (creator, 2+ seats)",
    )
    @idempotent
    def post(self, request: Request, match_id: int) -> Response:
        return self.change_response(services.match_start(match_id=match_id, user=request.user))


class MatchActionApi(MatchApiBase):
    @extend_schema(
        request=ActionInput,
        responses={201: MatchOutput},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["play"],
        summary="Act on your turn (follow legal_actions)",
    )
    @idempotent
    def post(self, request: Request, match_id: int) -> Response:
        payload = ActionInput(data=request.data)
        payload.is_valid(raise_exception=True)
        action = dict(payload.validated_data)
        expected = action.pop("expected_version", None)
        change = services.action_submit(
            match_id=match_id, user=request.user, action=action, expected_version=expected
        )
        return self.change_response(change, status.HTTP_201_CREATED)


class MatchEventsApi(MatchApiBase):
    @extend_schema(
        parameters=[EventsQuery],
        responses={200: EventsOutput},
        tags=["play"],
        summary="Events after a sequence number (long poll with wait)",
    )
    def get(self, request: Request, match_id: int) -> Response:
        query = parse_query(request, EventsQuery)
        after, wait = query["after"], query["wait"]
        match = selectors.match_get(match_id=match_id, user=request.user)
        events = selectors.events_after(match=match, after=after)
        if not events and wait > 0:
            events = self._wait_for_events(match, after, wait)
        last = events[-1]["seq"] if events else after
        return Response({"events": events, "last_seq": last})

    @staticmethod
    def _wait_for_events(match, after: int, wait: float) -> list[dict]:
        deadline = time.monotonic() + wait
        signal = listener.register(match.pk)
        try:
            while True:
                # Checked after registering, so an event written meanwhile is not missed.
                events = selectors.events_after(match=match, after=after)
                remaining = deadline - time.monotonic()
                if events or remaining <= 0:
                    return events
                # Bounded: should the listener die, its waiters still see new events soon.
                signal.wait(min(remaining, RECHECK_SECONDS))
                signal.clear()
        finally:
            listener.unregister(match.pk, signal)


class MatchRoundsApi(MatchApiBase):
    @extend_schema(
        responses={200: RoundsOutput},
        tags=["play"],
        summary="Every finished round in full, and the current one as you see it",
    )
    def get(self, request: Request, match_id: int) -> Response:
        match = selectors.match_get(match_id=match_id, user=request.user)
        return Response(selectors.rounds_list(match=match, user=request.user))


class MatchMessagesApi(MatchApiBase):
    def get_throttles(self):
        throttles = super().get_throttles()
        return [*throttles, ChatThrottle()] if self.request.method == "POST" else throttles

    @extend_schema(
        parameters=[CursorQuery],
        responses={200: cursor_page("MessagePage", MessageOutput(many=True))},
        tags=["chat"],
        summary="Table talk, newest first",
    )
    def get(self, request: Request, match_id: int) -> Response:
        parse_query(request, CursorQuery)
        match = selectors.match_get(match_id=match_id, user=request.user)
        paginator = NewestFirst()
        page = paginator.paginate_queryset(
            selectors.messages_visible(match=match), request, view=self
        )
        return paginator.get_paginated_response([_message(m) for m in page])

    @extend_schema(
        request=MessageInput,
        responses={201: MessageOutput},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["chat"],
        summary="Say something",
    )
    @idempotent
    def post(self, request: Request, match_id: int) -> Response:
        payload = MessageInput(data=request.data)
        payload.is_valid(raise_exception=True)
        message = services.message_post(
            match_id=match_id, user=request.user, **payload.validated_data
        )
        return Response(_message(message), status=status.HTTP_201_CREATED)


def _message(message) -> dict:
    author = message.author
    return {
        "id": message.pk,
        "author": {"id": author.pk, "username": author.username, "is_bot": author.is_bot},
        "text": message.text,
        "created_at": message.created_at.isoformat(),
    }


class LeaderboardApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[LeaderboardQuery],
        responses={200: offset_page("LeaderboardPage", LeaderboardEntryOutput(many=True))},
        tags=["accounts"],
        summary="Players by chips or by rating",
    )
    def get(self, request: Request) -> Response:
        query = parse_query(request, LeaderboardQuery)
        paginator = Ranked()
        page = paginator.paginate_queryset(
            selectors.leaderboard(by=query["by"]), request, view=self
        )
        return paginator.get_paginated_response(
            [
                {"id": u.pk, "username": u.username, "is_bot": u.is_bot, "score": u.score}
                for u in page
            ]
        )
