"""The tournaments API: list and create, the detail, register and unregister, enter a
server bot, cancel, the payout table. Thin: services change, selectors read."""

from types import SimpleNamespace
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.idempotency import IDEMPOTENCY_HEADER, IdempotentView, idempotent
from core.inputs import NoInput, validated
from core.pagination import cursor_page
from core.query import parse_query
from core.schema import problems
from games.api.base import NewestFirst
from games.errors import HOUSE_STAKE_REFUSALS, ActionOrRulesInvalid
from ledger.errors import InsufficientChips
from tournaments import selectors, services
from tournaments.errors import (
    AlreadyRegistered,
    BotsNotAllowed,
    NotRegistered,
    NotTournamentCreator,
    RegistrationClosed,
    TournamentFull,
    TournamentNotFound,
    TournamentOver,
)
from tournaments.serializers import (
    PayoutOutput,
    TournamentBotInput,
    TournamentCreateInput,
    TournamentDetailOutput,
    TournamentListQuery,
    TournamentOutput,
)

TAGS = ["tournaments"]


def detail_body(tournament_id: int) -> dict[str, Any]:
    """A tournament's detail as the API and its stream send it."""
    tournament = selectors.tournament_get(tournament_id=tournament_id)
    return TournamentDetailOutput(selectors.tournament_detail(tournament)).data


def _detail(tournament_id: int, code: int = status.HTTP_200_OK) -> Response:
    return Response(detail_body(tournament_id), status=code)


class FormatIsAFilter(DefaultContentNegotiation):
    """This list's `?format=` names a tournament format, not a renderer (DRF's
    URL_FORMAT_OVERRIDE, which would answer 404 to `sit_and_go`)."""

    settings = SimpleNamespace(URL_FORMAT_OVERRIDE=None)


class TournamentListCreateApi(IdempotentView, APIView):
    token_scope = {"GET": "read", "POST": "play"}
    content_negotiation_class = FormatIsAFilter

    @extend_schema(
        parameters=[TournamentListQuery],
        responses={200: cursor_page("TournamentPage", TournamentOutput(many=True))},
        tags=TAGS,
        operation_id="tournaments_list",
        summary="Tournaments, newest first",
        description="Filter by `status` (`registering` for the upcoming, `running`, "
        "`finished`, `cancelled`) and `format`; `mine=true` lists those you entered.",
    )
    def get(self, request: Request) -> Response:
        filters = parse_query(request, TournamentListQuery)
        filters.pop("cursor", None)
        filters.pop("page_size", None)
        found = selectors.tournament_list(user=request.user, **filters)
        paginator = NewestFirst()
        page = paginator.paginate_queryset(found, request, view=self)
        return paginator.get_paginated_response(
            [TournamentOutput(selectors.tournament_summary(t)).data for t in page]
        )

    @extend_schema(
        request=TournamentCreateInput,
        responses={201: TournamentDetailOutput},
        parameters=[IDEMPOTENCY_HEADER],
        tags=TAGS,
        summary="Create a tournament (any player; a fee: staff only)",
        description="A sit-and-go seats `table_size` entrants at one table and starts when "
        "full. A knockout takes `min_entrants` to `max_entrants` (up to 256), starts at "
        "`starts_at` (or once `min_entrants` registered, without one), deals them to tables "
        "of at most `table_size` by `seeding`, and the top `advance` of each table go on "
        "until one final table decides the places. The creator does not enter by creating.",
        extensions=problems(ActionOrRulesInvalid),
    )
    @idempotent
    def post(self, request: Request) -> Response:
        tournament = services.tournament_create(
            user=request.user, **validated(TournamentCreateInput, request.data)
        )
        return _detail(tournament.pk, status.HTTP_201_CREATED)


class TournamentDetailApi(APIView):
    token_scope = "read"

    @extend_schema(
        responses={200: TournamentDetailOutput},
        tags=TAGS,
        summary="A tournament with its standings, stages, tables and payout",
        description="Standings list the placed first (by place, with prize), then those "
        "still playing by seed. Each stage lists its tables with the match to watch "
        "(`GET /matches/{match_id}/`) and how many of each go on.",
        extensions=problems(TournamentNotFound),
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        return _detail(tournament_id)


class TournamentPayoutApi(APIView):
    token_scope = "read"

    @extend_schema(
        responses={200: PayoutOutput},
        tags=TAGS,
        summary="The payout table",
        description="Each paid place's share of the pool and its prize in chips. Fixed "
        "at the start; before, it is the table for the entrants so far.",
        extensions=problems(TournamentNotFound),
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = selectors.tournament_get(tournament_id=tournament_id)
        return Response(PayoutOutput(selectors.payout_for(tournament)).data)


class _TournamentStepApi(IdempotentView, APIView):
    """A POST that changes a tournament with no input but the path."""

    token_scope = "play"

    def step(self, request: Request, tournament_id: int) -> None:
        raise NotImplementedError

    @idempotent
    def post(self, request: Request, tournament_id: int) -> Response:
        validated(NoInput, request.data)
        self.step(request, tournament_id)
        return _detail(tournament_id)


def _step_schema(summary: str, description: str, errors: tuple):
    return extend_schema(
        request=None,
        responses={200: TournamentDetailOutput},
        parameters=[IDEMPOTENCY_HEADER],
        tags=TAGS,
        summary=summary,
        description=description,
        extensions=problems(TournamentNotFound, *errors),
    )


class TournamentRegisterApi(_TournamentStepApi):
    @_step_schema(
        "Register: pay the buy-in (and fee) into the prize pool",
        "A bot account only where `bots_allowed`. The entry that fills a sit-and-go "
        "starts it: your table comes as a `tournament_table` account event.",
        (
            RegistrationClosed,
            TournamentFull,
            AlreadyRegistered,
            BotsNotAllowed,
            InsufficientChips,
        ),
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        return super().post(request, tournament_id)

    def step(self, request: Request, tournament_id: int) -> None:
        services.tournament_register(tournament_id=tournament_id, user=request.user)


class TournamentUnregisterApi(_TournamentStepApi):
    @_step_schema(
        "Unregister before the start: your buy-in and fee back, exactly",
        "Only while the tournament is registering.",
        (RegistrationClosed, NotRegistered),
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        return super().post(request, tournament_id)

    def step(self, request: Request, tournament_id: int) -> None:
        services.tournament_unregister(tournament_id=tournament_id, user=request.user)


class TournamentCancelApi(_TournamentStepApi):
    @_step_schema(
        "Cancel your tournament before its start: every entry refunded",
        "The creator's own, while registering (moderators cancel any, at any time, in "
        "the admin). Each entrant gets `tournament_cancelled`.",
        (NotTournamentCreator, RegistrationClosed, TournamentOver),
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        return super().post(request, tournament_id)

    def step(self, request: Request, tournament_id: int) -> None:
        services.tournament_cancel(
            tournament_id=tournament_id, actor=request.user, reason="cancelled by its creator"
        )


class TournamentBotsApi(IdempotentView, APIView):
    token_scope = "play"

    @extend_schema(
        request=TournamentBotInput,
        responses={200: TournamentDetailOutput},
        parameters=[IDEMPOTENCY_HEADER],
        tags=TAGS,
        summary="Enter one of the server's bots (the creator, where bots are allowed)",
        description="A bot of the `strategy` named (a level: `easy`, `medium`, `hard` or "
        "`expert`; see GET /bots/). The house pays its buy-in from its bankroll and takes "
        "its prize, as at any table: with a buy-in, only a bot that `plays_for_chips` "
        "enters (`bot_not_staked`), at most `HOUSE_BOT_MAX_STAKE` (`bot_stake_too_high`), "
        "while the bankroll covers it (`house_bankroll_insufficient`).",
        extensions=problems(
            TournamentNotFound,
            NotTournamentCreator,
            BotsNotAllowed,
            RegistrationClosed,
            TournamentFull,
            *HOUSE_STAKE_REFUSALS,
        ),
    )
    @idempotent
    def post(self, request: Request, tournament_id: int) -> Response:
        services.tournament_add_bot(
            tournament_id=tournament_id,
            user=request.user,
            **validated(TournamentBotInput, request.data),
        )
        return _detail(tournament_id)
