"""Players ranked by chips or by rating."""

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import TokenHasScope
from accounts.rating_scale import shown_rating
from core.pagination import RankCursorPagination, cursor_page
from core.query import parse_query
from games import selectors
from games.serializers import LeaderboardQuery
from games.shapes import LeaderboardEntryOutput


class LeaderboardApi(APIView):
    permission_classes = [AllowAny, TokenHasScope]
    token_scope = "read"

    @extend_schema(
        parameters=[LeaderboardQuery],
        responses={200: cursor_page("LeaderboardPage", LeaderboardEntryOutput(many=True))},
        tags=["accounts"],
        summary="Players by chips or by rating",
        description="Active players, best first. `by=chips`: only players who chose to show "
        "their balance (`show_chips` on `PATCH /me/`), by wallet chips; balances are "
        "private otherwise. `by=rating`: by the conservative rating (mu - 3 sigma), only "
        "players with enough rated matches in the scope (LEADERBOARD_MIN_GAMES, 10 by "
        "default) against enough distinct opponents who were established when met "
        "(LEADERBOARD_MIN_OPPONENTS, 5). Cursor-paginated like every list; ties are "
        "ordered by player id.",
    )
    def get(self, request: Request) -> Response:
        query = parse_query(request, LeaderboardQuery)
        paginator = RankCursorPagination()
        page = paginator.paginate_queryset(
            selectors.leaderboard(by=query["by"], ruleset=query.get("ruleset")),
            request,
            view=self,
        )
        by_rating = query["by"] == "rating"
        return paginator.get_paginated_response(
            [
                {
                    "id": u.pk,
                    "username": u.username,
                    "is_bot": u.is_bot,
                    "score": u.score,
                    "rating_shown": shown_rating(u.mu, u.sigma) if by_rating else None,
                }
                for u in page
            ]
        )
