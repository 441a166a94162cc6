"""Play: a seat's action on its turn; resigning a running match, aborting it by
agreement in round 1, claiming the win over gone opponents."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from core.idempotency import IDEMPOTENCY_HEADER, idempotent
from core.inputs import NoInput, validated
from core.schema import problems
from games import services
from games.api.base import MatchApiBase, MatchStepApi, match_step_schema
from games.engine.limits import CLAIM_AFTER_TIMEOUTS
from games.errors import (
    AbortNotAgreeable,
    AbortTooLate,
    ActionNotAllowed,
    ActionOrRulesInvalid,
    AlreadyAgreed,
    AlreadyOut,
    BidNotHigher,
    InvalidBid,
    MatchNotActive,
    MatchOver,
    NoAbortProposal,
    NotSeated,
    NotYourTurn,
    OpponentsNotGone,
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


_ENDING = (NotSeated, StaleVersion, MatchNotActive, AlreadyOut)


@match_step_schema(
    tag="play",
    summary="Propose or agree to abort the match (round 1 only)",
    description="The first call proposes (`abort_proposed`), the others agree "
    "(`abort_agreed`); the server's bots agree at once. When every seat still playing "
    "agrees, the match is aborted (`match_aborted`, reason `aborted by agreement`) and "
    "every chip goes back as a moderator's abort gives it back. `abort_proposal` on the "
    "match shows who agreed. Refused once round 2 is in play (`abort_too_late`); the "
    "proposal lapses when round 1 ends.",
    errors=(*_ENDING, AbortTooLate, AbortNotAgreeable, AlreadyAgreed),
)
class MatchAbortApi(MatchStepApi):
    def step(self, **arguments) -> services.MatchChange:
        return services.match_abort_agree(**arguments)


@match_step_schema(
    tag="play",
    summary="Withdraw or decline the proposal to abort",
    description="Any seat still playing ends the standing proposal for everyone "
    "(`abort_withdrawn`); it may be proposed again while round 1 lasts.",
    errors=(*_ENDING, NoAbortProposal),
)
class MatchAbortWithdrawApi(MatchStepApi):
    def step(self, **arguments) -> services.MatchChange:
        return services.match_abort_withdraw(**arguments)


@match_step_schema(
    tag="play",
    summary="Claim the win: every opponent is gone",
    description="Allowed once every opponent still playing has had their last "
    f"{CLAIM_AFTER_TIMEOUTS} turns played by the timeout policy (`turn_timed_out` "
    "events, `consecutive`); else `opponents_not_gone`. Each is forfeited "
    "(`victory_claimed`, then `player_out` with reason `forfeit`), and the match "
    "finishes as any match does: you win (poker dice: the first forfeited seat buys "
    "the jug and every other seat wins).",
    errors=(*_ENDING, OpponentsNotGone),
)
class MatchClaimVictoryApi(MatchStepApi):
    def step(self, **arguments) -> services.MatchChange:
        return services.match_claim_victory(**arguments)
