"""Direct challenges: create, list, accept, decline, cancel."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.serializers import PlayerRef
from core.errors import Problem
from core.fields import StrictBooleanField, StrictCharField, StrictIntegerField
from core.idempotency import IDEMPOTENCY_HEADER, IdempotentView, idempotent
from core.inputs import NoInput, StrictInput, validated
from core.pagination import CursorQuery, cursor_page
from core.query import parse_query
from core.schema import problems
from games import matchmaking, services
from games.api.base import NewestFirst
from games.errors import (
    ChallengeClosed,
    ChallengeExpired,
    NotChallenged,
    NotChallenger,
    PlayerUnavailable,
)
from games.models import Challenge
from games.serializers import PRESET_NAMES, RATED_HELP
from ledger.errors import InsufficientChips


class ChallengeInput(StrictInput):
    usernames = serializers.ListField(
        child=StrictCharField(max_length=150),
        min_length=1,
        max_length=7,
        help_text="1 to 7 other players.",
    )
    ruleset = serializers.ChoiceField(choices=PRESET_NAMES)
    options = serializers.DictField(
        required=False, default=dict, help_text="Option overrides of the preset."
    )
    turn_seconds = StrictIntegerField(min_value=10, max_value=7 * 24 * 3600)
    buy_in = StrictIntegerField(min_value=0, max_value=1_000_000, required=False, default=0)
    ante = StrictIntegerField(min_value=0, max_value=1_000_000, required=False, default=0)
    rated = StrictBooleanField(required=False, default=True, help_text=RATED_HELP)

    def validate(self, data: dict) -> dict:
        if data["ante"] > data["buy_in"]:
            raise serializers.ValidationError({"ante": "The ante cannot exceed the buy-in."})
        return data


class ChallengeListQuery(CursorQuery):
    direction = serializers.ChoiceField(choices=["incoming", "outgoing"], required=False)
    status = serializers.ChoiceField(choices=Challenge.Status.values, required=False)


class ChallengedOutput(serializers.Serializer):
    player = PlayerRef()
    response = serializers.ChoiceField(choices=["pending", "accepted", "declined"])


class ChallengeOutput(serializers.Serializer):
    id = serializers.IntegerField()
    challenger = PlayerRef()
    players = ChallengedOutput(many=True, help_text="The challenged, in seat order.")
    ruleset = serializers.CharField()
    options = serializers.DictField()
    turn_seconds = serializers.IntegerField()
    buy_in = serializers.IntegerField()
    ante = serializers.IntegerField()
    rated = serializers.BooleanField()
    status = serializers.ChoiceField(choices=Challenge.Status.values)
    match_id = serializers.IntegerField(
        allow_null=True, help_text="The match, once every player accepted."
    )
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


def _challenge(challenge: Challenge, code: int = status.HTTP_200_OK) -> Response:
    body = matchmaking.challenge_payload(
        matchmaking.challenge_get(challenge_id=challenge.pk, user=challenge.challenger)
    )
    return Response(ChallengeOutput(body).data, status=code)


class ChallengeListCreateApi(IdempotentView, APIView):
    token_scope = {"GET": "read", "POST": "challenge"}

    @extend_schema(
        parameters=[ChallengeListQuery],
        responses={200: cursor_page("ChallengePage", ChallengeOutput(many=True))},
        tags=["challenges"],
        summary="Challenges you sent or received, newest first",
        description="`direction=incoming` for challenges waiting on your answer, "
        "`outgoing` for the ones you sent; filter by `status`.",
    )
    def get(self, request: Request) -> Response:
        query = parse_query(request, ChallengeListQuery)
        found = matchmaking.challenges_of(
            user=request.user, direction=query.get("direction"), status=query.get("status")
        )
        paginator = NewestFirst()
        page = paginator.paginate_queryset(found, request, view=self)
        return paginator.get_paginated_response(
            [ChallengeOutput(matchmaking.challenge_payload(c)).data for c in page]
        )

    @extend_schema(
        request=ChallengeInput,
        responses={201: ChallengeOutput},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["challenges"],
        summary="Challenge players to a match",
        description="Each challenged player gets a `challenge_received` account event (and "
        "webhook). The match starts, you in seat 0, once every one accepts; one refusal "
        "ends the challenge; unanswered, it expires (`expires_at`).",
        extensions=problems(InsufficientChips),
    )
    @idempotent
    def post(self, request: Request) -> Response:
        challenge = services.challenge_create(
            user=request.user, **validated(ChallengeInput, request.data)
        )
        return _challenge(challenge, status.HTTP_201_CREATED)


class _ChallengeAnswerApi(IdempotentView, APIView):
    token_scope = "challenge"

    """One POST that changes a challenge's state."""

    def answer(self, request: Request, challenge_id: int) -> Challenge:
        raise NotImplementedError

    @idempotent
    def post(self, request: Request, challenge_id: int) -> Response:
        validated(NoInput, request.data)
        return _challenge(self.answer(request, challenge_id))


# A challenge no longer waiting for answers.
_CLOSED = (ChallengeClosed, ChallengeExpired)


def _answer_schema(summary: str, description: str, errors: tuple[type[Problem], ...]):
    return extend_schema(
        request=None,
        responses={200: ChallengeOutput},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["challenges"],
        summary=summary,
        description=description,
        extensions=problems(*errors),
    )


@_answer_schema(
    "Accept a challenge",
    "The last acceptance starts the match (`match_id`); everyone gets a "
    "`challenge_accepted` account event.",
    (NotChallenged, *_CLOSED, InsufficientChips, PlayerUnavailable),
)
class ChallengeAcceptApi(_ChallengeAnswerApi):
    def answer(self, request: Request, challenge_id: int) -> Challenge:
        return services.challenge_accept(challenge_id=challenge_id, user=request.user)


@_answer_schema(
    "Decline a challenge",
    "It ends for everyone (`challenge_declined` event).",
    (NotChallenged, *_CLOSED),
)
class ChallengeDeclineApi(_ChallengeAnswerApi):
    def answer(self, request: Request, challenge_id: int) -> Challenge:
        return services.challenge_decline(challenge_id=challenge_id, user=request.user)


@_answer_schema(
    "Cancel your challenge",
    "The challenged get a `challenge_cancelled` event.",
    (NotChallenger, *_CLOSED),
)
class ChallengeCancelApi(_ChallengeAnswerApi):
    def answer(self, request: Request, challenge_id: int) -> Challenge:
        return services.challenge_cancel(challenge_id=challenge_id, user=request.user)
