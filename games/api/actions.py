"""Resigning a running match."""

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from core.idempotency import IDEMPOTENCY_HEADER, idempotent
from core.schema import problems
from games.api.base import MatchApiBase
from games.services.resign import match_resign
from games.shapes import MATCH


class MatchResignApi(MatchApiBase):
    @extend_schema(
        request=None,
        responses={200: MATCH},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["play"],
        summary="Resign: leave a running match at any time",
        description="Your seat is out at once, on your turn or not. The round in play is "
        "voided (antes go back); the match goes on among the others, or ends when one is "
        "left (poker dice: at once, you losing). Your stack returns to your wallet when "
        "the match ends; what you paid into the game pot stays there (RULES.md 1.9).",
        extensions=problems({403: ["not_a_player"], 409: ["match_not_active", "already_out"]}),
    )
    @idempotent
    def post(self, request: Request, match_id: int) -> Response:
        return self.change_response(match_resign(match_id=match_id, user=request.user))
