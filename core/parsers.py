"""The API's JSON parser: DRF's, made safe for any body a client can send.

DRF's parser lets `RecursionError` (deeply nested arrays) escape as a 500, decodes with
whatever codec the Content-Type's charset names (`charset=zlib_codec` inflates the body,
`charset=rot13` raises a TypeError), and accepts values PostgreSQL cannot store
(`\\u0000`), Python cannot encode again (an unpaired surrogate such as `\\ud800`) or
JSON cannot render (`1e999` is infinite), which would fail later wherever they are saved
or echoed in an error. Every such body is a 4xx here, before any view sees it.
"""

import codecs
import math
import re
from collections.abc import Mapping
from typing import Any

from rest_framework.exceptions import (
    ErrorDetail,
    ParseError,
    UnsupportedMediaType,
    ValidationError,
)
from rest_framework.parsers import JSONParser

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
