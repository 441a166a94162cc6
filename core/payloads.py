"""What the API sends: its one timestamp format; typed payloads, where a frozen dataclass
is both the JSON a client receives (`payload_json`) and that JSON's schema
(`payload_schema`); and output shapes, where the serializer that feeds the schema also
gives the JSON (`render`), so neither can drift from its schema.

Field types: `int`, `str`, `bool`, `datetime` (RFC 3339 with `Z`), `list[T]`, a nested
payload dataclass, `Literal[...]`, and `T | None`. `Annotated[T, "text"]` documents a
field. Every field is always sent (a `None` as `null`), so every field is required.
"""

import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import fields, is_dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any, overload

from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers
from rest_framework.fields import empty

from core.schema import ConstField, NullField


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


_SCALARS: dict[type, dict[str, Any]] = {
    int: {"type": "integer"},
    str: {"type": "string"},
    bool: {"type": "boolean"},
    datetime: {"type": "string", "format": "date-time"},
}


def _json_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return timestamp(value)
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    if is_dataclass(value):
        return payload_json(value)
    return value


def payload_json(payload: Any) -> dict[str, Any]:
    """The payload as the JSON object sent to clients."""
    return {name: _json_value(getattr(payload, name)) for name in _field_names(type(payload))}


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def _type_schema(hint: Any) -> dict[str, Any]:
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        base, *notes = typing.get_args(hint)
        return {**_type_schema(base), "description": " ".join(str(n) for n in notes)}
    if origin in (types.UnionType, typing.Union):
        members = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(members) != 1:
            raise TypeError(f"Only `T | None` unions are supported, not {hint}.")
        inner = _type_schema(members[0])
        if inner.get("type") in ("integer", "string", "boolean", "array", "object"):
            return {**inner, "type": [inner["type"], "null"]}
        return {"oneOf": [inner, {"type": "null"}]}
    if origin is typing.Literal:
        values = list(typing.get_args(hint))
        return {"type": "string", "enum": values} if len(values) > 1 else {"const": values[0]}
    if origin is list:
        (item,) = typing.get_args(hint)
        return {"type": "array", "items": _type_schema(item)}
    if is_dataclass(hint):
        return payload_schema(hint)
    if hint in _SCALARS:
        return dict(_SCALARS[hint])
    raise TypeError(f"No JSON schema for {hint!r}.")


def payload_schema(cls: type, *, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON Schema (2020-12) of `cls`'s JSON, closed to other fields; `extra`
    properties (an envelope's own fields) come first and are required too."""
    hints = typing.get_type_hints(cls, include_extras=True)
    properties = dict(extra or {})
    properties.update({name: _type_schema(hints[name]) for name in _field_names(cls)})
    schema: dict[str, Any] = {"type": "object"}
    if cls.__doc__ and not cls.__doc__.startswith(f"{cls.__name__}("):
        schema["description"] = " ".join(cls.__doc__.split())
    schema.update(properties=properties, required=list(properties), additionalProperties=False)
    return schema


# --- shapes rendered -------------------------------------------------------------------

_ABSENT = object()
_SKIP = object()


def render(shape: type[serializers.Serializer], source: Any, **computed: Any) -> dict[str, Any]:
    """The JSON of `source` in `shape`, an output serializer that also feeds the schema:
    its declared fields, in order, and nothing else. A field's value is `computed[name]`
    when given, else `source`'s attribute or key of the field's `source`; a field that is
    not required and absent from `source` is left out. Nested shapes are rendered in
    turn; a union (a schema-only `PolymorphicProxySerializer`) passes its value as is.
    Compiled once per shape: as fast as a dict written by hand, and never out of step
    with the schema."""
    return _renderer(shape)(source, computed)


@cache
def _renderer(shape: type[serializers.Serializer]) -> Callable[[Any, dict], dict[str, Any]]:
    steps = [(name, *_field_step(field)) for name, field in shape().fields.items()]

    def run(source: Any, computed: dict[str, Any]) -> dict[str, Any]:
        mapping = isinstance(source, Mapping)
        out = {}
        for name, key, fixed, missing, convert in steps:
            if fixed is not _ABSENT:
                out[name] = fixed
                continue
            value = computed.get(name, _ABSENT)
            if value is _ABSENT:
                value = source.get(key, _ABSENT) if mapping else getattr(source, key, _ABSENT)
            if value is _ABSENT:
                if missing is _SKIP:
                    continue
                if missing is _ABSENT:
                    raise KeyError(f"{shape.__name__}.{name}: nothing to send")
                value = missing
            out[name] = convert(value)
        return out

    return run


def _field_step(field: serializers.Field) -> tuple[str, Any, Any, Callable[[Any], Any]]:
    """(the attribute or key read, a fixed value or _ABSENT, what to do when the source
    lacks it, the conversion). As DRF: a missing value is the field's default, else null
    where it allows null, else left out where it is not required, else an error."""
    if field.write_only or "." in field.source or field.source == "*":
        raise TypeError(f"{field.field_name}: render reads plain attributes or keys only")
    fixed: Any = _ABSENT
    if isinstance(field, ConstField):
        fixed = field.value
    elif isinstance(field, NullField):
        fixed = None
    missing: Any = _ABSENT
    if field.default is not empty:
        missing = field.get_default()
    elif field.allow_null:
        missing = None
    elif not field.required:
        missing = _SKIP
    return field.source, fixed, missing, _converter(field)


def _converter(field: serializers.Field) -> Callable[[Any], Any]:
    if isinstance(field, PolymorphicProxySerializer):
        return _as_is
    if isinstance(field, serializers.ListSerializer):
        item = _converter(field.child)
        return lambda values: None if values is None else [item(v) for v in values]
    if isinstance(field, serializers.Serializer):
        shape = type(field)
        return lambda value: None if value is None else render(shape, value)
    if isinstance(field, serializers.DateTimeField):
        return lambda value: timestamp(value) if isinstance(value, datetime) else value
    return _as_is


def _as_is(value: Any) -> Any:
    return value
