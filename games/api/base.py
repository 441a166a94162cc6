"""What the views of `games.api` share: a match's answer, and newest-first pages."""

from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from core.idempotency import IdempotentView
from core.pagination import IdCursorPagination
from games import selectors, services


class NewestFirst(IdCursorPagination):
    page_size = 20
    max_page_size = 100
    page_size_query_param = "page_size"


class MatchApiBase(IdempotentView, APIView):
    def change_response(
        self, change: services.MatchChange, code: int = status.HTTP_200_OK
    ) -> Response:
        """The match a service just changed, reusing the seats and state it loaded."""
        view = selectors.match_view(
            match=change.match, user=self.request.user, seats=change.seats, state=change.state
        )
        return Response(view, status=code)
