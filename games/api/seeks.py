"""Quick play: seek a table, see your seeks, withdraw one."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.fields import StrictBooleanField, StrictIntegerField
from core.idempotency import IDEMPOTENCY_HEADER, IdempotentView, idempotent
from core.inputs import StrictInput, validated
from core.pagination import CursorQuery, cursor_page
from core.query import parse_query
from core.schema import problems
from games import matchmaking, services
from games.api.base import NewestFirst
from games.errors import AlreadySeeking, SeekClosed
from games.models import Seek
from games.serializers import PRESET_NAMES, RATED_HELP
from ledger.errors import InsufficientChips

AGAINST_PEOPLE_HELP = (
    "For a bot's account: be paired with people too. A bot's seek without it is paired "
    "with bots only; a person's seek is paired with people and with bots that asked."
)


class SeekInput(StrictInput):
    ruleset = serializers.ChoiceField(choices=PRESET_NAMES)
    players = StrictIntegerField(min_value=2, max_value=8, help_text="Seats at the table.")
    turn_seconds = StrictIntegerField(min_value=10, max_value=7 * 24 * 3600)
    buy_in = StrictIntegerField(min_value=0, max_value=1_000_000, required=False, default=0)
    ante = StrictIntegerField(min_value=0, max_value=1_000_000, required=False, default=0)
    rated = StrictBooleanField(
        required=False, default=True, help_text=f"{RATED_HELP} Paired only with the same kind."
    )
    against_people = StrictBooleanField(
        required=False,
        default=False,
        help_text=AGAINST_PEOPLE_HELP,
    )

    def validate(self, data: dict) -> dict:
        if data["ante"] > data["buy_in"]:
            raise serializers.ValidationError({"ante": "The ante cannot exceed the buy-in."})
        return data


class SeekListQuery(CursorQuery):
    status = serializers.ChoiceField(choices=Seek.Status.values, required=False)


class SeekOutput(serializers.Serializer):
    id = serializers.IntegerField()
    ruleset = serializers.CharField()
    players = serializers.IntegerField()
    turn_seconds = serializers.IntegerField()
    buy_in = serializers.IntegerField()
    ante = serializers.IntegerField()
    rated = serializers.BooleanField()
    against_people = serializers.BooleanField(help_text=AGAINST_PEOPLE_HELP)
    rating = serializers.FloatField(help_text="Your rating in the preset when you sought.")
    status = serializers.ChoiceField(choices=Seek.Status.values)
    match_id = serializers.IntegerField(allow_null=True, help_text="Once matched.")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


def _seek(seek: Seek, code: int = status.HTTP_200_OK) -> Response:
    return Response(SeekOutput(matchmaking.seek_payload(seek)).data, status=code)


class SeekListCreateApi(IdempotentView, APIView):
    token_scope = {"GET": "read", "POST": "challenge"}

    @extend_schema(
        parameters=[SeekListQuery],
        responses={200: cursor_page("SeekPage", SeekOutput(many=True))},
        tags=["quick play"],
        operation_id="seeks_list",
        summary="Your seeks, newest first",
        description="Every seek you made, waiting or closed; filter by `status`.",
    )
    def get(self, request: Request) -> Response:
        query = parse_query(request, SeekListQuery)
        found = matchmaking.seeks_of(user=request.user, status=query.get("status"))
        paginator = NewestFirst()
        page = paginator.paginate_queryset(found, request, view=self)
        return paginator.get_paginated_response(
            [SeekOutput(matchmaking.seek_payload(s)).data for s in page]
        )

    @extend_schema(
        request=SeekInput,
        responses={201: SeekOutput},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["quick play"],
        summary="Seek a table (quick play)",
        description="Seeks with the same preset, players, turn time, buy-in and ante are "
        "paired, nearest rating in the preset first, into a match that starts at once "
        "(the longest-waiting seeker in seat 0). Comes back `matched` with `match_id` "
        "when that happens now; else `waiting` until a `seek_matched` account event (and "
        "webhook), or until `expires_at`. One waiting seek per player (409 "
        "`already_seeking`). People and bot accounts are kept apart unless a bot's seek "
        "says `against_people`.",
        extensions=problems(AlreadySeeking, InsufficientChips),
    )
    @idempotent
    def post(self, request: Request) -> Response:
        seek = services.seek_create(user=request.user, **validated(SeekInput, request.data))
        return _seek(seek, status.HTTP_201_CREATED)


class SeekDetailApi(APIView):
    token_scope = {"GET": "read", "DELETE": "challenge"}

    @extend_schema(
        responses={200: SeekOutput},
        tags=["quick play"],
        summary="One of your seeks",
        description="Its status, and `match_id` once it is matched.",
    )
    def get(self, request: Request, seek_id: int) -> Response:
        return _seek(matchmaking.seek_get(seek_id=seek_id, user=request.user))

    @extend_schema(
        responses={204: None},
        tags=["quick play"],
        summary="Withdraw a waiting seek",
        description="409 `seek_closed` once it is matched, cancelled or expired.",
        extensions=problems(SeekClosed),
    )
    def delete(self, request: Request, seek_id: int) -> Response:
        services.seek_cancel(seek_id=seek_id, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
