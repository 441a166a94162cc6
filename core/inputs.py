"""Request input, all of it: the JSON parser every body goes through, then the strict
serializers that check it.

The parser (`SafeJSONParser`): DRF's, made safe for any body a client can send.

DRF's parser lets `RecursionError` (deeply nested arrays) escape as a 500, decodes with
whatever codec the Content-Type's charset names (`charset=zlib_codec` inflates the body,
`charset=rot13` raises a TypeError), and accepts values PostgreSQL cannot store
(`\\u0000`), Python cannot encode again (an unpaired surrogate such as `\\ud800`) or
JSON cannot render (`1e999` is infinite), which would fail later wherever they are saved
or echoed in an error. Every such body is a 4xx here, before any view sees it.

`StrictInput` is the base of every request body's serializer: a field it does not
declare is refused by name (`unknown_field`), with every other bad field in the same
answer, so a misspelt `expected_version` is an error rather than a check silently
skipped. Nested input serializers refuse theirs too.

Building a DRF serializer costs more than running it: each instance deep-copies its
declared fields, which runs every field's `__init__` again (validators, messages, choice
maps), on every request. `validated` first tries a check compiled once per serializer
class from that serializer's own fields: it vouches only for input (a JSON body, or
query parameters as strings) the serializer would accept, and returns what the
serializer would. Any other input (a wrong type, a value out of range, a missing or an
unknown field, anything the check does not know how to judge) goes to the serializer
itself, so every refusal is the serializer's own, with its messages and codes, and the
serializer stays the one description of the input (the OpenAPI schema is built from it).

The compiled checks hold only plain values taken from the fields, never a field or a
serializer, so the threads serving requests share them safely.
"""

import codecs
import functools
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from django.core.validators import (
    MaxLengthValidator,
    MaxValueValidator,
    MinLengthValidator,
    MinValueValidator,
    ProhibitNullCharactersValidator,
)
from rest_framework import serializers
from rest_framework.exceptions import (
    ErrorDetail,
    ParseError,
    UnsupportedMediaType,
    ValidationError,
)
from rest_framework.fields import empty
from rest_framework.parsers import JSONParser
from rest_framework.validators import ProhibitSurrogateCharactersValidator

from core.fields import StrictCharField, StrictIntegerField

# No request of this API nests deeper than a few levels; the limit keeps every later
# recursive walk (serializers, fingerprints, renderers) far from Python's stack limit.
MAX_DEPTH = 32


# What PostgreSQL cannot store (NUL) or Python cannot encode again (lone surrogates).
UNSTORABLE_CHARACTERS = re.compile("[\x00\ud800-\udfff]")


def _bad_character(text: str) -> tuple[str, str] | None:
    if "\x00" in text:
        return "Null characters are not allowed.", "null_characters_not_allowed"
    if any("\ud800" <= char <= "\udfff" for char in text):
        return "Unpaired surrogate characters are not allowed.", "invalid_unicode"
    return None


def _printable(key: str) -> str:
    """A field name as it may appear in an error message (and so in the database)."""
    return "".join("\ufffd" if _bad_character(char) else char for char in key)


def check_json_value(data: Any) -> None:
    """Raises a 400 for a value nested deeper than MAX_DEPTH or holding a string (a key
    or a value) that cannot be stored or encoded. Iterative, so depth costs no stack."""
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, (dict, list)) and depth >= MAX_DEPTH:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels.")
        if isinstance(value, Mapping):
            for key, item in value.items():
                field = f"{path}.{_printable(key)}" if path else _printable(key)
                problem = _bad_character(key)
                if problem is not None:
                    raise ValidationError({field: [ErrorDetail(*problem)]})
                stack.append((item, field, depth + 1))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                stack.append((item, f"{path}.{index}" if path else str(index), depth + 1))
        elif isinstance(value, str):
            problem = _bad_character(value)
            if problem is not None:
                raise ValidationError({path or "non_field_errors": [ErrorDetail(*problem)]})
        elif isinstance(value, float) and not math.isfinite(value):
            raise ValidationError(
                {path or "non_field_errors": [ErrorDetail("Numbers must be finite.", "invalid")]}
            )


def _is_utf8(encoding: str) -> bool:
    try:
        return codecs.lookup(encoding).name in ("utf-8", "ascii")
    except LookupError:
        return False


class SafeJSONParser(JSONParser):
    """JSON in UTF-8 only (RFC 8259), checked by `check_json_value`."""

    def parse(
        self,
        stream: Any,
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        context = dict(parser_context or {})
        if not _is_utf8(context.get("encoding") or "utf-8"):
            raise UnsupportedMediaType(media_type, detail="JSON must be encoded in UTF-8.")
        context["encoding"] = "utf-8"
        try:
            data = super().parse(stream, media_type, context)
        except RecursionError as exc:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels.") from exc
        check_json_value(data)
        return data


# --- strict serializers ----------------------------------------------------------------

# What a field's check returns for a value it does not vouch for.
_UNSURE = object()

FieldCheck = Callable[[Any], Any]
InputCheck = Callable[[Any], dict[str, Any] | None]

# The serializer methods whose behaviour (DRF's, or StrictInput's) the compiled check
# reproduces.
_SERIALIZER_METHODS = (
    "is_valid",
    "run_validation",
    "validate_empty_values",
    "to_internal_value",
    "run_validators",
    "validate",
)

# The validators a field's own arguments add (max_value, max_length...), as a test of
# the value it passes on: what each one refuses, nothing more.
_LIMITS: dict[type, Callable[[Any], Callable[[Any], bool]]] = {
    MaxValueValidator: lambda limit: lambda value: value <= limit,
    MinValueValidator: lambda limit: lambda value: value >= limit,
    MaxLengthValidator: lambda limit: lambda value: len(value) <= limit,
    MinLengthValidator: lambda limit: lambda value: len(value) >= limit,
}
# CharField's own validators, which a string free of UNSTORABLE_CHARACTERS passes.
_CHARACTER_VALIDATORS = (ProhibitNullCharactersValidator, ProhibitSurrogateCharactersValidator)
# Defaults the serializer hands out as they are (it deep-copies them: these are immutable).
_PLAIN_DEFAULTS = (int, float, str, bool, type(None))
# Numbers as query parameters write them: ASCII digits, which int() and float() (what
# IntegerField and FloatField call) read exactly. Those fields take int()'s and float()'s
# view, which also accepts " 7", "7.0", "1e1" and other scripts' digits ("٣"):
# `core.query` refuses any other form with these.
WHOLE_NUMBER = re.compile(r"^-?[0-9]{1,18}$")
DECIMAL_NUMBER = re.compile(r"^-?[0-9]{1,18}(\.[0-9]{1,18})?$")


class StrictInput(serializers.Serializer):
    """A request body's serializer: a field it does not take is a validation error
    (`unknown_field`), listed with the other fields' errors."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        unknown = self._unknown_fields(data)
        if not unknown:
            return super().to_internal_value(data)
        try:
            super().to_internal_value(data)
        except serializers.ValidationError as exc:
            raise serializers.ValidationError({**exc.detail, **unknown}) from None
        raise serializers.ValidationError(unknown)

    def _unknown_fields(self, data: Any) -> dict[str, list[ErrorDetail]]:
        if not isinstance(data, Mapping):
            return {}  # DRF's own error says what is wrong
        names = [name for name, field in self.fields.items() if not field.read_only]
        unknown = [key for key in data if key not in names]
        if not unknown:
            return {}
        message = (
            f"Unknown field; the fields are {', '.join(names)}."
            if names
            else "Unknown field; this request takes none (send {} or no body)."
        )
        return {str(key): [ErrorDetail(message, code="unknown_field")] for key in unknown}


class NoInput(StrictInput):
    """The body of a POST that takes no fields: `{}` or none; any field is unknown."""


def validated(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    """`serializer_class(data=data)`'s validated data as a dict; raises its
    ValidationError when the serializer refuses `data`."""
    check = fast_check(serializer_class)
    result = check(data) if check is not None else None
    if result is not None:
        return result
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


@functools.cache
def fast_check(serializer_class: type[serializers.Serializer]) -> InputCheck | None:
    """A function that returns the validated data of input the serializer would accept
    (None for any it cannot vouch for), or None when the serializer has a part the check
    cannot reproduce: a `validate` method, a field type not known here, a default that
    is not a plain value... (then all input goes to the serializer)."""
    checks = _field_checks(serializer_class)
    if checks is None:
        return None

    def check_input(data: Any) -> dict[str, Any] | None:
        if type(data) is not dict:
            return None
        result = {}
        given = 0
        for name, required, default, check in checks:  # the serializer's order
            if name in data:
                value = check(data[name])
                if value is _UNSURE:
                    return None
                result[name] = value
                given += 1
            elif default is not empty:
                result[name] = default
            elif required:
                return None
        # A key that names no field: a StrictInput refuses it, another serializer
        # ignores it; either way the serializer says so.
        return result if given == len(data) else None

    return check_input


def _field_checks(
    serializer_class: type[serializers.Serializer],
) -> list[tuple[str, bool, Any, FieldCheck]] | None:
    """(name, required, default, check) of each field the serializer validates, in its
    order; None when one of them cannot be checked here."""
    base = StrictInput if issubclass(serializer_class, StrictInput) else serializers.Serializer
    if any(
        getattr(serializer_class, name) is not getattr(base, name) for name in _SERIALIZER_METHODS
    ):
        return None
    serializer = serializer_class()
    if serializer.get_validators():
        return None
    checks = []
    for name, field in serializer.fields.items():
        if field.read_only:
            continue  # never part of the validated data
        if (
            hasattr(serializer, f"validate_{name}")
            or field.source_attrs != [name]
            or (field.default is not empty and type(field.default) not in _PLAIN_DEFAULTS)
        ):
            return None
        check = _field_check(field)
        if check is None:
            return None
        checks.append((name, field.required, field.default, check))
    return checks


def _field_check(field: serializers.Field) -> FieldCheck | None:
    """The check of one field's value: the validated value, or _UNSURE."""
    build = _BUILDERS.get(type(field))
    if build is None:
        return None
    limits = []
    for validator in field.validators:
        if type(validator) in _LIMITS and not callable(validator.limit_value):
            limits.append(_LIMITS[type(validator)](validator.limit_value))
        elif not (
            type(field) in (StrictCharField, serializers.CharField)
            and type(validator) in _CHARACTER_VALIDATORS
        ):
            return None
    check = build(field)
    if check is None:
        return None
    allow_null = field.allow_null

    def check_value(value: Any) -> Any:
        if value is None:
            return None if allow_null else _UNSURE
        value = check(value)
        if value is _UNSURE or not all(within(value) for within in limits):
            return _UNSURE
        return value

    return check_value


def _integer_check(field: StrictIntegerField) -> FieldCheck:
    # A JSON integer (bool is an int to Python, not to StrictIntegerField).
    return lambda value: value if type(value) is int else _UNSURE


def _number_check(convert: type, pattern: re.Pattern) -> Callable[[Any], FieldCheck]:
    # A number as a string of ASCII digits (a query parameter), read as the field does.
    def build(field: serializers.Field) -> FieldCheck:
        return lambda value: (
            convert(value) if type(value) is str and pattern.match(value) else _UNSURE
        )

    return build


def _string_check(field: serializers.CharField) -> FieldCheck:
    # Only a string that CharField keeps as it is: not blank, nothing to trim, no
    # character its validators refuse.
    def check(value: Any) -> Any:
        if (
            type(value) is not str
            or not value
            or value.strip() != value
            or UNSTORABLE_CHARACTERS.search(value)
        ):
            return _UNSURE
        return value

    return check


def _choice_check(field: serializers.ChoiceField) -> FieldCheck:
    choices = dict(field.choice_strings_to_values)
    return lambda value: choices[value] if type(value) is str and value in choices else _UNSURE


def _list_check(field: serializers.ListField) -> FieldCheck | None:
    item_check = _field_check(field.child)
    if item_check is None:
        return None
    allow_empty = field.allow_empty

    def check(value: Any) -> Any:
        if type(value) is not list or not (value or allow_empty):
            return _UNSURE
        items = [item_check(item) for item in value]
        return _UNSURE if any(item is _UNSURE for item in items) else items

    return check


_BUILDERS: dict[type, Callable[[Any], FieldCheck | None]] = {
    StrictIntegerField: _integer_check,
    StrictCharField: _string_check,
    serializers.CharField: _string_check,
    serializers.IntegerField: _number_check(int, WHOLE_NUMBER),
    serializers.FloatField: _number_check(float, DECIMAL_NUMBER),
    serializers.ChoiceField: _choice_check,
    serializers.ListField: _list_check,
}
