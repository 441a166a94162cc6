import functools
import re
from typing import Any

from rest_framework import serializers
from rest_framework.request import Request

from core.inputs import DECIMAL_NUMBER, WHOLE_NUMBER, validated

# ASCII digits only (core.inputs says why).
_NUMBER_FORMATS = (
    (serializers.IntegerField, WHOLE_NUMBER),
    (serializers.FloatField, DECIMAL_NUMBER),
)


@functools.cache
def _query_shape(
    serializer_class: type[serializers.Serializer],
) -> tuple[frozenset[str], tuple[tuple[str, re.Pattern], ...]]:
    """The parameter names the serializer takes, and the format of each number among
    them: read once per class, not from a serializer built for every request."""
    fields = serializer_class().fields
    numbers = tuple(
        (name, pattern)
        for name, field in fields.items()
        for field_class, pattern in _NUMBER_FORMATS
        if isinstance(field, field_class)
    )
    return frozenset(fields), numbers


def _malformed_numbers(request: Request, numbers: tuple[tuple[str, re.Pattern], ...]) -> list[str]:
    names = []
    for name, pattern in numbers:
        value = request.query_params.get(name)
        if value is not None and not pattern.match(value):
            names.append(name)
    return sorted(names)


def parse_query(request: Request, serializer_class: type[serializers.Serializer]) -> dict[str, Any]:
    """Validates query parameters strictly: an unknown parameter is an error, as a typo in
    a filter should not silently return everything."""
    names, numbers = _query_shape(serializer_class)
    unknown = sorted(set(request.query_params) - names)
    if unknown:
        raise serializers.ValidationError(
            {name: ["Unknown query parameter."] for name in unknown}, code="unknown_parameter"
        )
    repeated = sorted(k for k in request.query_params if len(request.query_params.getlist(k)) > 1)
    if repeated:
        raise serializers.ValidationError(
            {name: ["Give this parameter once."] for name in repeated}, code="repeated_parameter"
        )
    malformed = _malformed_numbers(request, numbers)
    if malformed:
        raise serializers.ValidationError(
            {name: ["A number in ASCII digits is required."] for name in malformed},
            code="invalid",
        )
    return validated(serializer_class, request.query_params.dict())
