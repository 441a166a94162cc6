"""Matches: the lobby (list, create), a match, join, leave, seat a bot, start; its
rounds and its chat."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from core.idempotency import IDEMPOTENCY_HEADER, idempotent
from core.inputs import NoInput, validated
from core.pagination import cursor_page
from core.payloads import timestamp
from core.query import parse_query
from core.schema import problems
from games import selectors, services
from games.api.base import MatchApiBase, NewestFirst
from games.errors import (
    HOUSE_STAKE_REFUSALS,
    ActionOrRulesInvalid,
    AlreadySeated,
    MatchFull,
    MatchNotOpen,
    Muted,
    NoSeatForCreator,
    NotCreator,
    NotEnoughPlayers,
    NotSeated,
)
from games.serializers import (
    BotInput,
    CursorQuery,
    JoinInput,
    MatchCreateInput,
    MatchListQuery,
    MessageInput,
)
from games.shapes import MATCH, ROUNDS, MatchSummaryOutput, MessageOutput
from games.throttles import ChatThrottle
from ledger.errors import HouseBankrollInsufficient, InsufficientChips


class MatchListCreateApi(MatchApiBase):
    token_scope = {"GET": "read", "POST": "play"}

    @extend_schema(
        parameters=[MatchListQuery],
        responses={200: cursor_page("MatchPage", MatchSummaryOutput(many=True))},
        tags=["matches"],
        operation_id="matches_list",
        summary="The lobby: matches, newest first",
        description="Public matches and the private ones you sit at, newest first, "
        "cursor-paginated. `status=open` lists the lobbies you can join, `status=active` "
        "the matches in play (any public one can be watched); `mine=true` only the matches "
        "you have a seat in. `ruleset`, `players` (the table's seats) and `buy_in_min` / "
        "`buy_in_max` narrow the list.",
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
        responses={201: MATCH},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["matches"],
        summary="Create a match; you take seat 0",
        description="Opens a lobby with you in seat 0 and any `bots` in the next seats. "
        "With every seat filled it starts at once (the answer is then `active` with your "
        "dice). A buy-in is taken from every wallet at the start.",
        extensions=problems(
            ActionOrRulesInvalid, NoSeatForCreator, InsufficientChips, *HOUSE_STAKE_REFUSALS
        ),
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = validated(MatchCreateInput, request.data)
        data["bots"] = [b["strategy"] for b in data.get("bots", [])]
        change = services.match_create(user=request.user, **data)
        return self.change_response(change, status.HTTP_201_CREATED)


class MatchDetailApi(MatchApiBase):
    token_scope = "read"

    @extend_schema(
        responses={200: MATCH},
        tags=["matches"],
        summary="The match as you may see it",
        description="The match, typed by `family`: seats, the round in play (your own "
        "dice only), the last ended round, and `legal_actions`: what you may do now. A "
        "client that follows `legal_actions` never gets a rules error. Private matches "
        "are found only by the players seated at them.",
    )
    def get(self, request: Request, match_id: int) -> Response:
        match, seats = selectors.match_with_seats(match_id=match_id, user=request.user)
        return Response(selectors.match_view(match=match, user=request.user, seats=seats))


class MatchJoinApi(MatchApiBase):
    token_scope = "play"

    @extend_schema(
        request=JoinInput,
        responses={200: MATCH},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["matches"],
        summary="Take a seat",
        description="Takes the next free seat of an open match (a private one needs its "
        "`invite_code`). Filling the last seat starts the match.",
        extensions=problems(
            MatchFull,
            MatchNotOpen,
            AlreadySeated,
            InsufficientChips,
            HouseBankrollInsufficient,
        ),
    )
    @idempotent
    def post(self, request: Request, match_id: int) -> Response:
        change = services.match_join(
            match_id=match_id, user=request.user, **validated(JoinInput, request.data)
        )
        return self.change_response(change)


class MatchLeaveApi(MatchApiBase):
    token_scope = "play"

    @extend_schema(
        request=None,
        responses={200: MATCH},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["matches"],
        summary="Give up your seat before the start",
        description="Leaves an open match. A leaving creator hands the lobby to the next "
        "player clockwise; a lobby left with no player is aborted.",
        extensions=problems(NotSeated, MatchNotOpen),
    )
    @idempotent
    def post(self, request: Request, match_id: int) -> Response:
        validated(NoInput, request.data)
        return self.change_response(services.match_leave(match_id=match_id, user=request.user))


class MatchBotsApi(MatchApiBase):
    token_scope = "play"

    @extend_schema(
        request=BotInput,
        responses={201: MATCH},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["matches"],
        summary="Seat a bot (creator, before the start)",
        description="Seats a server bot of the `strategy` named (a level: `easy`, `medium`, "
        "`hard` or `expert`; GET /bots/ says what each plays like) in the next free seat; "
        "filling the last seat starts the match. Answers 201: a seat was created. At a "
        "table with a buy-in the house stakes the bot from its bankroll: only a bot that "
        "`plays_for_chips` sits there (`bot_not_staked`), at most `HOUSE_BOT_MAX_STAKE` "
        "(`bot_stake_too_high`), while the bankroll covers it "
        "(`house_bankroll_insufficient`).",
        extensions=problems(
            NotCreator, MatchFull, MatchNotOpen, InsufficientChips, *HOUSE_STAKE_REFUSALS
        ),
    )
    @idempotent
    def post(self, request: Request, match_id: int) -> Response:
        change = services.match_add_bot(
            match_id=match_id, user=request.user, **validated(BotInput, request.data)
        )
        return self.change_response(change, status.HTTP_201_CREATED)


class MatchStartApi(MatchApiBase):
    token_scope = "play"

    @extend_schema(
        request=None,
        responses={200: MATCH},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["matches"],
        summary="Start the match (creator, 2+ seats)",
        description="Starts an open match with the players seated now (two or more). "
        "Players who can no longer pay the buy-in lose their seat first.",
        extensions=problems(
            NotCreator,
            MatchNotOpen,
            NotEnoughPlayers,
            InsufficientChips,
            HouseBankrollInsufficient,
        ),
    )
    @idempotent
    def post(self, request: Request, match_id: int) -> Response:
        validated(NoInput, request.data)
        return self.change_response(services.match_start(match_id=match_id, user=request.user))


class MatchRoundsApi(MatchApiBase):
    token_scope = "read"

    @extend_schema(
        responses={200: ROUNDS},
        tags=["play"],
        summary="Every finished round in full, and the current one as you see it",
        description="Ended rounds with every die, the salts that open the dice "
        "commitments, every action, the result and the chips moved; and the round in play "
        "as you may see it. Typed by `family`.",
    )
    def get(self, request: Request, match_id: int) -> Response:
        match = selectors.match_get(match_id=match_id, user=request.user)
        return Response(selectors.rounds_list(match=match, user=request.user))


class MatchMessagesApi(MatchApiBase):
    token_scope = {"GET": "read", "POST": "chat"}

    def get_throttles(self):
        throttles = super().get_throttles()
        return [*throttles, ChatThrottle()] if self.request.method == "POST" else throttles

    @extend_schema(
        parameters=[CursorQuery],
        responses={200: cursor_page("MessagePage", MessageOutput(many=True))},
        tags=["chat"],
        summary="Table talk, newest first",
        description="The match's chat, newest first, cursor-paginated; messages a "
        "moderator hid are left out.",
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
        description="Posts a chat message at a table you sit at (up to 500 characters; "
        "rate-limited per player).",
        extensions=problems(NotSeated, Muted),
    )
    @idempotent
    def post(self, request: Request, match_id: int) -> Response:
        message = services.message_post(
            match_id=match_id, user=request.user, **validated(MessageInput, request.data)
        )
        return Response(_message(message), status=status.HTTP_201_CREATED)


def _message(message) -> dict:
    author = message.author
    return {
        "id": message.pk,
        "author": {"id": author.pk, "username": author.username, "is_bot": author.is_bot},
        "text": message.text,
        "created_at": timestamp(message.created_at),
    }
