"""JSON-strict serializer fields: the API takes JSON types as the schema states them,
not DRF's lenient coercions ("5" for 5, 0 for false, 12 for "12")."""

from datetime import UTC, datetime
from typing import Any, overload

from rest_framework import serializers


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictIntegerField(serializers.IntegerField):
    default_error_messages = {"invalid": "A JSON integer is required."}

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictCharField(serializers.CharField):
    default_error_messages = {"invalid": "A JSON string is required."}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictRegexField(serializers.RegexField):
    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


@overload
def timestamp(value: datetime) -> str: ...
@overload
def timestamp(value: None) -> None: ...
def timestamp(value: datetime | None) -> str | None:
    """The API's one timestamp format, as DRF's DateTimeField writes it: RFC 3339 in
    UTC with `Z` (never `+00:00`)."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat().removesuffix("+00:00") + "Z"
