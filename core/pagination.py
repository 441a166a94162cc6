"""Cursor pagination over the primary key with strict input: a tampered cursor or an
odd `page_size` is a 4xx, never a 500 or a silently different page size."""

import binascii
import re
from base64 import b64decode, b64encode
from dataclasses import dataclass
from typing import Any

from django.db.models import F, Q, QuerySet
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import BasePagination, Cursor, CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param

_ASCII_DIGITS = re.compile(r"^[0-9]{1,18}$")


class IdCursorPagination(CursorPagination):
    """Newest first by `id`. DRF trusts the cursor's position and filters `id` with it,
    so a cursor such as base64("p=x") made the database layer raise (a 500)."""

    ordering = "-id"
    page_size_query_param = "page_size"
    max_page_size = 100

    def decode_cursor(self, request: Request) -> Cursor | None:
        cursor = super().decode_cursor(request)
        position = cursor.position if cursor is not None else None
        if position is not None and not _ASCII_DIGITS.match(position):
            raise NotFound(self.invalid_cursor_message)
        return cursor

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        """DRF's, with `null` spelled for OpenAPI 3.1 (DRF writes 3.0's `nullable`)."""
        page = super().get_paginated_response_schema(schema)
        for link in ("next", "previous"):
            page["properties"][link].pop("nullable", None)
            page["properties"][link]["type"] = ["string", "null"]
        return page

    def get_page_size(self, request: Request) -> int:
        return strict_page_size(
            request, self.page_size_query_param, self.page_size, self.max_page_size
        )


def strict_page_size(request: Request, name: str, default: int, maximum: int) -> int:
    """`page_size` is one whole number (ASCII digits) from 1 to `maximum`, or absent.
    (`"²".isdigit()` is true, and int() takes other scripts' digits.)"""
    values = request.query_params.getlist(name)
    if not values:
        return default
    if len(values) == 1 and _ASCII_DIGITS.match(values[0]):
        value = int(values[0])
        if 1 <= value <= maximum:
            return value
    message = f"Give one whole number from 1 to {maximum}."
    raise ValidationError({name: [message]}, code="invalid")


_SCORE = re.compile(r"^-?[0-9]{1,18}(\.[0-9]{1,18})?(e-?[0-9]{1,3})?$")


@dataclass(frozen=True)
class RankPosition:
    """Where a ranked page starts: after (or, going back, before) this score and id."""

    score: int | float
    pk: int
    backwards: bool


class RankCursorPagination(BasePagination):
    """Keyset pages over a queryset annotated with a non-null `score`, ordered by score
    (highest first) then id: a cursor names the (score, id) a page ends at, so pages
    stay cheap at any depth, and many players on the same score (every new account has
    the same chips) page exactly. The same `{next, previous, results}` as every other
    list, with the same strict `cursor` and `page_size`."""

    page_size = 50
    max_page_size = 200
    page_size_query_param = "page_size"
    cursor_query_param = "cursor"
    invalid_cursor_message = "Invalid cursor"

    def paginate_queryset(
        self, queryset: QuerySet, request: Request, view: Any = None
    ) -> list[Any]:
        self.request = request
        size = strict_page_size(
            request, self.page_size_query_param, self.page_size, self.max_page_size
        )
        position = self._decode(request)
        if position is None:
            rows = list(queryset.order_by(F("score").desc(), "id")[: size + 1])
            self.has_previous, self.has_next = False, len(rows) > size
            self.page = rows[:size]
        elif not position.backwards:
            after = Q(score__lt=position.score) | Q(score=position.score, id__gt=position.pk)
            rows = list(queryset.filter(after).order_by(F("score").desc(), "id")[: size + 1])
            self.has_previous, self.has_next = True, len(rows) > size
            self.page = rows[:size]
        else:
            before = Q(score__gt=position.score) | Q(score=position.score, id__lt=position.pk)
            rows = list(queryset.filter(before).order_by(F("score").asc(), "-id")[: size + 1])
            self.has_previous, self.has_next = len(rows) > size, True
            self.page = rows[:size][::-1]
        return self.page

    def get_paginated_response(self, data: list[Any]) -> Response:
        return Response({"next": self._link(-1), "previous": self._link(0), "results": data})

    def _link(self, index: int) -> str | None:
        wanted = self.has_next if index == -1 else self.has_previous
        if not wanted or not self.page:
            return None
        row = self.page[index]
        raw = f"s={row.score}&i={row.pk}&b={int(index == 0)}"
        token = b64encode(raw.encode("ascii")).decode("ascii")
        return replace_query_param(
            self.request.build_absolute_uri(), self.cursor_query_param, token
        )

    def _decode(self, request: Request) -> RankPosition | None:
        encoded = request.query_params.get(self.cursor_query_param)
        if encoded is None:
            return None
        try:
            fields = dict(
                part.split("=", 1) for part in b64decode(encoded, validate=True).decode().split("&")
            )
            score, pk, back = fields["s"], fields["i"], fields["b"]
        except (ValueError, KeyError, UnicodeDecodeError, binascii.Error):
            raise NotFound(self.invalid_cursor_message) from None
        if not (_SCORE.match(score) and _ASCII_DIGITS.match(pk) and back in ("0", "1")):
            raise NotFound(self.invalid_cursor_message)
        number = float(score) if any(c in score for c in ".e") else int(score)
        return RankPosition(score=number, pk=int(pk), backwards=back == "1")

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        return [
            {
                "name": self.cursor_query_param,
                "required": False,
                "in": "query",
                "description": "From `next` / `previous`.",
                "schema": {"type": "string"},
            },
            {
                "name": self.page_size_query_param,
                "required": False,
                "in": "query",
                "schema": {"type": "integer", "minimum": 1, "maximum": self.max_page_size},
            },
        ]


class CursorQuery(serializers.Serializer):
    """The query parameters of a cursor-paginated list."""

    cursor = serializers.CharField(required=False, help_text="From `next` / `previous`.")
    page_size = serializers.IntegerField(min_value=1, max_value=100, required=False)


def cursor_page(name: str, item: serializers.Serializer) -> serializers.Serializer:
    """The schema of one page of a cursor-paginated list of `item`."""
    return inline_serializer(
        name,
        fields={
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": item,
        },
    )
