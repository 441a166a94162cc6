"""Your API tokens: list them, revoke one."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors, services
from accounts.models import ApiToken
from accounts.serializers import TokenListEntryOutput
from core.pagination import CursorQuery, IdCursorPagination, cursor_page
from core.query import parse_query


def _token(token: ApiToken, current: ApiToken | None) -> dict:
    return TokenListEntryOutput(
        {
            "id": token.pk,
            "name": token.name,
            "prefix": token.prefix,
            "created_at": token.created_at,
            "last_used_at": token.last_used_at,
            "expires_at": token.expires_at,
            "scopes": token.scopes,
            "current": current is not None and token.pk == current.pk,
        }
    ).data


class TokenListApi(APIView):
    token_scope = "account"

    @extend_schema(
        parameters=[CursorQuery],
        responses={200: cursor_page("TokenPage", TokenListEntryOutput(many=True))},
        tags=["auth"],
        summary="Your tokens, newest first",
        description="Every token of yours not revoked, expired ones included; the secret "
        "itself is never shown again after it was issued.",
    )
    def get(self, request: Request) -> Response:
        parse_query(request, CursorQuery)
        paginator = IdCursorPagination()
        paginator.page_size = 20
        page = paginator.paginate_queryset(
            selectors.tokens_of(user=request.user), request, view=self
        )
        current = request.auth if isinstance(request.auth, ApiToken) else None
        return paginator.get_paginated_response([_token(t, current) for t in page])


class TokenDetailApi(APIView):
    token_scope = "account"

    @extend_schema(
        responses={204: None},
        tags=["auth"],
        summary="Revoke one of your tokens",
        description="It stops working at once (this request's own token too, if named).",
    )
    def delete(self, request: Request, token_id: int) -> Response:
        services.token_revoke_by_id(user=request.user, token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
