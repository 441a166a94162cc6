"""The server's bots a match or a tournament can seat, and what each plays like."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import TokenHasScope
from games.engine.bots import LEVELS
from games.services.bot_players import STRATEGY_CHOICES, strategy_list


class BotStrategyOutput(serializers.Serializer):
    strategy = serializers.ChoiceField(
        choices=STRATEGY_CHOICES, help_text="The name to send as `strategy` to seat this bot."
    )
    level = serializers.IntegerField(
        min_value=1,
        max_value=len(LEVELS),
        allow_null=True,
        help_text="Its rank on the ladder, 1 the weakest; null for a strategy outside it.",
    )
    description = serializers.CharField(help_text="What it plays like, in plain words.")
    plays_for_chips = serializers.BooleanField(
        help_text="Whether the house stakes it where there is a buy-in; the others only "
        "play for free (`bot_not_staked`)."
    )


class BotListApi(APIView):
    permission_classes = [AllowAny, TokenHasScope]
    token_scope = "read"

    @extend_schema(
        responses={200: BotStrategyOutput(many=True)},
        tags=["matches"],
        summary="The server's bots, levels weakest first",
        description="Every `strategy` a match's or a tournament's `bots/` accepts: the "
        "levels `easy`, `medium`, `hard`, `expert` (each measured to beat the one below "
        "it in every preset), then `random` and `cautious` (the `medium` bot under its "
        "first name), which have no level. Only those with `plays_for_chips` play where "
        "there is a buy-in, staked by the house's bankroll.",
    )
    def get(self, request: Request) -> Response:
        return Response(strategy_list())
