"""The rule presets."""

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import TokenHasScope
from games import engine
from games.shapes import RULESETS


class RulesetListApi(APIView):
    permission_classes = [AllowAny, TokenHasScope]
    token_scope = "read"

    @extend_schema(
        responses={200: RULESETS},
        tags=["rules"],
        summary="Every preset with all its options",
        description="The rule presets (RULES.md) with every option's value, typed by "
        "`family`. Name one as `ruleset` when you create a match, and override single "
        "options of its family in `options`.",
    )
    def get(self, request: Request) -> Response:
        return Response(engine.preset_list())
