from typing import Any

from rest_framework import serializers
from rest_framework.request import Request


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
    query.is_valid(raise_exception=True)
    return dict(query.validated_data)
