"""A player's match history and the export of a finished match."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import TokenHasScope
from accounts.selectors import player_get
from accounts.serializers import PlayerRef
from core.pagination import CursorQuery, cursor_page
from core.payloads import render
from core.query import parse_query
from core.schema import problems
from games import engine, history, selectors
from games.api.base import NewestFirst
from games.errors import MatchNotFinished, NotExportable
from games.serializers import PRESET_NAMES, ActionInput
from games.shapes import (
    RULES,
    SEAT_STATUSES,
    ExportDiceOutput,
    MatchSummaryOutput,
    round_record,
)


class PlayerMatchesQuery(CursorQuery):
    ruleset = serializers.ChoiceField(choices=PRESET_NAMES, required=False)
    status = serializers.ChoiceField(
        choices=["open", "active", "finished", "aborted"], required=False
    )


class ExportSeatOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    player = PlayerRef()
    status = serializers.ChoiceField(choices=SEAT_STATUSES)


class ReplayActionOutput(serializers.Serializer):
    """One entry of `replay.actions`: an action as `POST actions/` takes it, with the
    `seat` that played it (what the server's bots and timeouts played too); or the
    server's forfeit of a seat (resignation, timeout, ban), `{"type": "forfeit", "seat"}`."""

    seat = serializers.IntegerField()
    type = serializers.ChoiceField(
        choices=[*ActionInput().fields["type"].choices, engine.FORFEIT_LOG_ENTRY]
    )
    quantity = serializers.IntegerField(required=False)
    face = serializers.IntegerField(required=False)
    show = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text="Indexes into the cup."
    )
    target_seat = serializers.IntegerField(required=False)
    hand = serializers.ListField(
        child=serializers.CharField(allow_null=True), required=False, help_text="Poker dice."
    )
    direction = serializers.ChoiceField(choices=["left", "right"], required=False)
    hold = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text="Indexes into the box."
    )


class ExportReplayOutput(serializers.Serializer):
    """The arguments of the engine's `replay(rules, n_players, rolls, actions,
    creator_seat=, opener_seat=)`, which rebuilds the final state exactly; `rolls` is
    the flat form of the export's `dice` (games.dice_log.rolls_from_dice)."""

    n_players = serializers.IntegerField()
    creator_seat = serializers.IntegerField()
    opener_seat = serializers.IntegerField(allow_null=True)
    rolls = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Deprecated (removed in liarsdice-match/2): the flat form of `dice`, "
        "every value drawn in order; poker ranks as 1..6.",
    )
    actions = ReplayActionOutput(many=True, help_text="Every action applied, in order.")


class ExportResultOutput(serializers.Serializer):
    winner_seats = serializers.ListField(child=serializers.IntegerField())
    placements = serializers.DictField(
        child=serializers.IntegerField(), help_text="Place by seat (1 = best; ties share)."
    )


class ExportChipOutput(serializers.Serializer):
    from_ = serializers.CharField()
    to = serializers.CharField()
    amount = serializers.IntegerField()
    kind = serializers.CharField()
    round = serializers.IntegerField(allow_null=True)

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")
        return fields


class MatchExportOutput(serializers.Serializer):
    format = serializers.CharField(help_text=f"`{history.EXPORT_FORMAT}`.")
    id = serializers.IntegerField()
    ruleset = serializers.CharField()
    family = serializers.ChoiceField(choices=["common_pool", "poker_dice"])
    rules = RULES
    buy_in = serializers.IntegerField()
    ante = serializers.IntegerField()
    turn_seconds = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField()
    seats = ExportSeatOutput(many=True)
    replay = ExportReplayOutput()
    rounds = round_record(
        many=True,
        help_text="Every round record in full: dice, commitments and their salts, actions, "
        "result, chips.",
    )
    dice = ExportDiceOutput(
        help_text="Every die of the match in structured form, with every commitment "
        "published (docs/API.md, The dice of an export)."
    )
    result = ExportResultOutput()
    chips = ExportChipOutput(many=True, help_text="Every chip movement of the match.")


class PlayerMatchesApi(APIView):
    permission_classes = [AllowAny, TokenHasScope]
    token_scope = "read"

    @extend_schema(
        parameters=[PlayerMatchesQuery],
        responses={200: cursor_page("PlayerMatchPage", MatchSummaryOutput(many=True))},
        tags=["matches"],
        summary="A player's matches, newest first",
        description="Public matches, and private ones you sat at too; filter by preset and status.",
    )
    def get(self, request: Request, username: str) -> Response:
        query = parse_query(request, PlayerMatchesQuery)
        player = player_get(username=username)
        matches = history.player_matches(
            player=player,
            viewer=request.user,
            ruleset=query.get("ruleset"),
            status=query.get("status"),
        )
        paginator = NewestFirst()
        page = paginator.paginate_queryset(matches.prefetch_related("seats__player"), request, self)
        return paginator.get_paginated_response(
            [selectors.match_summary(m, list(m.seats.all())) for m in page]
        )


class MatchExportApi(APIView):
    token_scope = "read"

    @extend_schema(
        responses={200: MatchExportOutput},
        tags=["matches"],
        summary="A finished match in full, for replay",
        description="One self-contained document: rules, seats, every round's dice and "
        "salts, every action, every die rolled (`dice`: per round the deal, each reroll "
        "and every commitment published), results and chips. `replay` holds what the "
        "engine's replay needs to rebuild the match exactly. Only finished matches export: "
        "409 `match_not_finished` before that; 404 for a match you may not see.",
        extensions=problems(MatchNotFinished, NotExportable),
    )
    def get(self, request: Request, match_id: int) -> Response:
        body = history.match_export(match_id=match_id, user=request.user)
        return Response(render(MatchExportOutput, body))
