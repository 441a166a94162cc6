"""Players' side of moderation: reporting a player to the moderators."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.scopes import ACCOUNT
from accounts.serializers import PlayerRef
from core.fields import StrictCharField, StrictIntegerField
from core.idempotency import IDEMPOTENCY_HEADER, IdempotentView, idempotent
from core.inputs import StrictInput, validated
from core.schema import problems
from moderation import services
from moderation.errors import AlreadyReported, CannotReportOneself, NotAtThatMatch
from moderation.models import PlayerReport


class PlayerReportInput(StrictInput):
    reason = serializers.ChoiceField(
        choices=PlayerReport.Reason.choices,
        help_text="cheating (or collusion), abuse (in chat), name, stalling, other.",
    )
    detail = StrictCharField(
        max_length=1000, required=False, default="", allow_blank=True, help_text="What happened."
    )
    match_id = StrictIntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        default=None,
        help_text="A match you both sat at.",
    )


class PlayerReportOutput(serializers.Serializer):
    id = serializers.IntegerField()
    reported = PlayerRef()
    reason = serializers.ChoiceField(choices=PlayerReport.Reason.choices)
    detail = serializers.CharField()
    match_id = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=PlayerReport.Status.choices)
    created_at = serializers.DateTimeField()


class PlayerReportApi(IdempotentView, APIView):
    token_scope = ACCOUNT

    @extend_schema(
        request=PlayerReportInput,
        responses={201: PlayerReportOutput},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["accounts"],
        summary="Report a player to the moderators",
        description="Files a report for the moderators (the admin's player reports), "
        "optionally about a match you both sat at. The reported player is not told. One "
        "open report per player and match: a second is a 409 `already_reported`.",
        extensions=problems(CannotReportOneself, NotAtThatMatch, AlreadyReported),
    )
    @idempotent
    def post(self, request: Request, username: str) -> Response:
        report = services.player_report(
            reporter=request.user, username=username, **validated(PlayerReportInput, request.data)
        )
        return Response(PlayerReportOutput(report).data, status=status.HTTP_201_CREATED)
