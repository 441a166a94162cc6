import re
from collections.abc import Mapping
from typing import Any

from rest_framework import serializers
from rest_framework.request import Request

# ASCII digits only: DRF's number fields take int()'s and float()'s view, which accepts
# " 7", "7.0", "1e1" and other scripts' digits ("٣").
_NUMBER_FORMATS = (
    (serializers.IntegerField, re.compile(r"^-?[0-9]{1,18}$")),
    (serializers.FloatField, re.compile(r"^-?[0-9]{1,18}(\.[0-9]{1,18})?$")),
)


def _malformed_numbers(request: Request, fields: Mapping[str, serializers.Field]) -> list[str]:
    names = []
    for name, field in fields.items():
        value = request.query_params.get(name)
        for field_class, pattern in _NUMBER_FORMATS:
            if value is not None and isinstance(field, field_class) and not pattern.match(value):
                names.append(name)
    return sorted(names)


def parse_query(request: Request, serializer_class: type[serializers.Serializer]) -> dict[str, Any]:
    """Validates query parameters strictly: an unknown parameter is an error, as a typo in
    a filter should not silently return everything."""
    query = serializer_class(data=request.query_params.dict())
    unknown = sorted(set(request.query_params) - set(query.fields))
    if unknown:
        raise serializers.ValidationError(
            {name: ["Unknown query parameter."] for name in unknown}, code="unknown_parameter"
        )
    repeated = sorted(k for k in request.query_params if len(request.query_params.getlist(k)) > 1)
    if repeated:
        raise serializers.ValidationError(
            {name: ["Give this parameter once."] for name in repeated}, code="repeated_parameter"
        )
    malformed = _malformed_numbers(request, query.fields)
    if malformed:
        raise serializers.ValidationError(
            {name: ["A number in ASCII digits is required."] for name in malformed},
            code="invalid",
        )
    query.is_valid(raise_exception=True)
    return dict(query.validated_data)
