"""What the views of `games.api` share: a match's answer, the POSTs that take only
`expected_version`, and newest-first pages."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import Problem
from core.idempotency import IDEMPOTENCY_HEADER, IdempotentView, idempotent
from core.inputs import validated
from core.pagination import IdCursorPagination
from core.schema import problems
from games import selectors, services
from games.serializers import VersionInput
from games.shapes import MATCH


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


class MatchStepApi(MatchApiBase):
    """A POST by a seated player that takes `{expected_version?}` only, calls one service
    (`step`) and answers the match."""

    token_scope = "play"

    def step(self, **arguments) -> services.MatchChange:
        raise NotImplementedError

    @idempotent
    def post(self, request: Request, match_id: int) -> Response:
        arguments = validated(VersionInput, request.data)
        return self.change_response(self.step(match_id=match_id, user=request.user, **arguments))


def match_step_schema(
    *, tag: str, summary: str, description: str, errors: tuple[type[Problem], ...]
):
    """The schema of a `MatchStepApi`: 200 the match, or one of `errors`."""
    return extend_schema(
        request=VersionInput,
        responses={200: MATCH},
        parameters=[IDEMPOTENCY_HEADER],
        tags=[tag],
        summary=summary,
        description=description,
        extensions=problems(*errors),
    )
