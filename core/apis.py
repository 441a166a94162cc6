"""The API's front door: `GET /api/v1/` lists where everything is."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

# Link name -> URL name, or (URL name, path parameters): every route of the API
# (tests/api/test_consistency.py compares it with the URL conf). A parameter shows as
# `{name}`, for the client to fill in.
INDEX_LINKS: dict[str, str | tuple[str, ...]] = {
    "register": "register",
    "token": "token",
    "tokens": "tokens",
    "token_detail": ("token-detail", "token_id"),
    "me": "me",
    "my_transactions": "my-transactions",
    "account_stream": "account-stream",
    "players": "players",
    "player": ("player-profile", "username"),
    "player_matches": ("player-matches", "username"),
    "player_reports": ("player-reports", "username"),
    "webhooks": "webhooks",
    "webhook": ("webhook", "webhook_id"),
    "webhook_deliveries": ("webhook-deliveries", "webhook_id"),
    "leaderboard": "leaderboard",
    "rulesets": "rulesets",
    "rules_help": "rules-help",
    "bots": "bots",
    "matches": "matches",
    "match": ("match", "match_id"),
    "match_join": ("match-join", "match_id"),
    "match_leave": ("match-leave", "match_id"),
    "match_bots": ("match-bots", "match_id"),
    "match_start": ("match-start", "match_id"),
    "match_actions": ("match-actions", "match_id"),
    "match_resign": ("match-resign", "match_id"),
    "match_abort": ("match-abort", "match_id"),
    "match_abort_withdraw": ("match-abort-withdraw", "match_id"),
    "match_claim_victory": ("match-claim-victory", "match_id"),
    "match_rematch": ("match-rematch", "match_id"),
    "match_rematch_decline": ("match-rematch-decline", "match_id"),
    "match_rounds": ("match-rounds", "match_id"),
    "match_messages": ("match-messages", "match_id"),
    "match_events": ("match-events", "match_id"),
    "match_stream": ("match-stream", "match_id"),
    "seat_stream": ("match-seat-stream", "match_id"),
    "match_export": ("match-export", "match_id"),
    "challenges": "challenges",
    "challenge_accept": ("challenge-accept", "challenge_id"),
    "challenge_decline": ("challenge-decline", "challenge_id"),
    "challenge_cancel": ("challenge-cancel", "challenge_id"),
    "seeks": "seeks",
    "seek": ("seek", "seek_id"),
    "tournaments": "tournaments",
    "tournament": ("tournament", "tournament_id"),
    "tournament_register": ("tournament-register", "tournament_id"),
    "tournament_unregister": ("tournament-unregister", "tournament_id"),
    "tournament_bots": ("tournament-bots", "tournament_id"),
    "tournament_cancel": ("tournament-cancel", "tournament_id"),
    "tournament_payouts": ("tournament-payouts", "tournament_id"),
    "tournament_stream": ("tournament-stream", "tournament_id"),
    "schema": "schema",
    "docs": "docs",
}
# Stand-ins reverse() accepts for any parameter (every one is an int or a str), swapped
# for `{name}` in the URL it builds.
_STAND_IN = 9_876_500


class ApiIndexOutput(serializers.Serializer):
    name = serializers.CharField()
    version = serializers.CharField()
    links = serializers.DictField(
        child=serializers.CharField(),
        help_text="Absolute URLs of every route by name; `{match_id}`, `{username}` and the "
        "like are placeholders for a path parameter.",
    )


class ApiIndexApi(APIView):
    token_scope = None  # links only: nothing a token guards

    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: ApiIndexOutput},
        tags=["index"],
        summary="Where everything is",
        description="Links to every route of the API (path parameters as `{placeholders}`), "
        "the OpenAPI schema and its browsable docs. Needs no token.",
    )
    def get(self, request: Request) -> Response:
        links = {}
        for name, target in INDEX_LINKS.items():
            url_name, *params = (target,) if isinstance(target, str) else target
            stand_ins = {param: _STAND_IN + i for i, param in enumerate(params)}
            url = reverse(url_name, kwargs=stand_ins, request=request)
            for param, stand_in in stand_ins.items():
                url = url.replace(f"/{stand_in}/", f"/{{{param}}}/")
            links[name] = url
        return Response({"name": "Liar's Dice API", "version": "v1", "links": links})
