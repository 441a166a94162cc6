"""The API's front door: `GET /api/v1/` lists where everything is."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

# Link name -> URL name; `{...}` marks a path parameter the client fills in.
INDEX_LINKS = {
    "register": "register",
    "token": "token",
    "me": "me",
    "my_transactions": "my-transactions",
    "player": ("player-profile", {"username": "{username}"}),
    "leaderboard": "leaderboard",
    "rulesets": "rulesets",
    "matches": "matches",
    "match": ("match", {"match_id": 0}),
    "match_events": ("match-events", {"match_id": 0}),
    "match_stream": ("match-stream", {"match_id": 0}),
    "seat_stream": ("match-seat-stream", {"match_id": 0}),
    "match_export": ("match-export", {"match_id": 0}),
    "challenges": "challenges",
    "seeks": "seeks",
    "account_stream": "account-stream",
    "tokens": "tokens",
    "webhooks": "webhooks",
    "schema": "schema",
    "docs": "docs",
}


class ApiIndexOutput(serializers.Serializer):
    name = serializers.CharField()
    version = serializers.CharField()
    links = serializers.DictField(
        child=serializers.CharField(),
        help_text="Absolute URLs by name; `{match_id}` and `{username}` are placeholders.",
    )


class ApiIndexApi(APIView):
    token_scope = None  # links only: nothing a token guards

    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: ApiIndexOutput},
        tags=["index"],
        summary="Where everything is",
        description="Links to every collection of the API, the OpenAPI schema and its "
        "browsable docs. Needs no token.",
    )
    def get(self, request: Request) -> Response:
        links = {}
        for name, target in INDEX_LINKS.items():
            if isinstance(target, tuple):
                url_name, kwargs = target
                url = reverse(url_name, kwargs=kwargs, request=request)
                # reverse() needs a value that fits the route and quotes braces: show
                # the placeholder as written.
                url = url.replace("/0/", "/{match_id}/").replace("%7B", "{").replace("%7D", "}")
            else:
                url = reverse(target, request=request)
            links[name] = url
        return Response({"name": "Liar's Dice API", "version": "v1", "links": links})
