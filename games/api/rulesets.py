"""The rule presets, and the rules as players read them."""

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import TokenHasScope
from games import engine
from games.rules_help import rules_help
from games.shapes import RULESETS, RulesHelpOutput


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


class RulesHelpApi(APIView):
    permission_classes = [AllowAny, TokenHasScope]
    token_scope = "read"

    @extend_schema(
        responses={200: RulesHelpOutput},
        tags=["rules"],
        summary="The rules in plain words",
        description="For players: each family's round step by step, what chips cost, "
        "every option and each of its values with a short label, poker dice's hands, and "
        "each preset with examples from its rule sheet. The same texts are docs/RULES.md "
        "section 5.",
    )
    def get(self, request: Request) -> Response:
        return Response(rules_help())
