"""Play: a seat's action on its turn, and resigning a running match."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from core.idempotency import IDEMPOTENCY_HEADER, idempotent
from core.inputs import NoInput, validated
from core.schema import problems
from games import services
from games.api.base import MatchApiBase
from games.errors import (
    ActionNotAllowed,
    ActionOrRulesInvalid,
    AlreadyOut,
    BidNotHigher,
    InvalidBid,
    MatchNotActive,
    MatchOver,
    NotSeated,
    NotYourTurn,
    StaleVersion,
)
from games.serializers import ActionInput
from games.shapes import MATCH


class MatchActionApi(MatchApiBase):
    token_scope = "play"

    @extend_schema(
        request=ActionInput,
        responses={201: MATCH},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["play"],
        summary="Act on your turn (follow legal_actions)",
        description="One action on your turn, shaped by an entry of `legal_actions` "
        "(common pool: bid, challenge, exact, pass, show_reroll; poker dice: bid, accept, "
        "reroll, challenge). Send `expected_version` (the match's `version`) so an action "
        "meant for an older state is refused with `stale_version` instead of applied. "
        "Answers the match after the action.",
        extensions=problems(
            ActionOrRulesInvalid,
            ActionNotAllowed,
            InvalidBid,
            BidNotHigher,
            NotSeated,
            NotYourTurn,
            StaleVersion,
            MatchNotActive,
            MatchOver,
        ),
    )
    @idempotent
    def post(self, request: Request, match_id: int) -> Response:
        action = validated(ActionInput, request.data)
        expected = action.pop("expected_version", None)
        change = services.action_submit(
            match_id=match_id, user=request.user, action=action, expected_version=expected
        )
        return self.change_response(change, status.HTTP_201_CREATED)


class MatchResignApi(MatchApiBase):
    token_scope = "play"

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
        extensions=problems(NotSeated, MatchNotActive, AlreadyOut),
    )
    @idempotent
    def post(self, request: Request, match_id: int) -> Response:
        validated(NoInput, request.data)
        return self.change_response(services.match_resign(match_id=match_id, user=request.user))
