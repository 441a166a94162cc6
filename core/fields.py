"""JSON-strict serializer fields: the API takes JSON types as the schema states them,
not DRF's lenient coercions ("5" for 5, 0 for false, 12 for "12"). What the API sends
is `core.payloads`'."""

from typing import Any

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
