"""Cursor pagination over the primary key with strict input: a tampered cursor or an
odd `page_size` is a 4xx, never a 500 or a silently different page size."""

import re

from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.request import Request

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

    def get_page_size(self, request: Request) -> int:
        """`page_size` is one whole number (ASCII digits) from 1 to max_page_size, or
        absent. (`"²".isdigit()` is true, and int() takes other scripts' digits.)"""
        values = request.query_params.getlist(self.page_size_query_param)
        if not values:
            return self.page_size
        if len(values) == 1 and _ASCII_DIGITS.match(values[0]):
            value = int(values[0])
            if 1 <= value <= self.max_page_size:
                return value
        message = f"Give one whole number from 1 to {self.max_page_size}."
        raise ValidationError({self.page_size_query_param: [message]}, code="invalid")
