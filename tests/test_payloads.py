"""core.payloads: what the API sends comes from the same declaration as its schema."""

from dataclasses import dataclass
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Annotated, Literal

import pytest
from rest_framework import serializers

from core.payloads import payload_json, payload_schema, render, timestamp
from core.schema import ConstField, NullField


class Ref(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class Shape(serializers.Serializer):
    kind = ConstField("thing")
    id = serializers.IntegerField(source="pk")
    owner = Ref()
    others = Ref(many=True)
    gone = NullField()
    at = serializers.DateTimeField(allow_null=True)
    note = serializers.CharField(required=False)


WHEN = datetime(2026, 11, 25, 17, 0, tzinfo=UTC)


def test_render_sends_exactly_the_declared_fields_in_order():
    owner = SimpleNamespace(id=1, name="ann", password="secret")
    source = SimpleNamespace(pk=7, owner=owner, at=WHEN, hidden="never sent")
    body = render(Shape, source, others=[{"id": 2, "name": "bo", "extra": True}])
    assert list(body) == ["kind", "id", "owner", "others", "gone", "at"]
    assert body == {
        "kind": "thing",
        "id": 7,
        "owner": {"id": 1, "name": "ann"},
        "others": [{"id": 2, "name": "bo"}],
        "gone": None,
        "at": "2026-11-25T17:00:00Z",
    }
    with_note = render(Shape, {"pk": 7, "owner": owner, "others": [], "at": None, "note": "n"})
    assert with_note["note"] == "n" and with_note["at"] is None


def test_render_sends_null_for_a_missing_nullable_field_as_drf_does():
    owner = SimpleNamespace(id=1, name="ann")
    assert render(Shape, {"pk": 1, "owner": owner, "others": []})["at"] is None


def test_render_refuses_a_required_field_it_has_no_value_for():
    with pytest.raises(KeyError, match=r"Shape\.owner"):
        render(Shape, {"pk": 1, "others": [], "at": None})


@dataclass(frozen=True)
class Payload:
    """A payload."""

    n: Annotated[int, "A number."]
    when: datetime | None
    tags: list[str]
    kind: Literal["a", "b"]


def test_a_payload_gives_its_json_and_a_closed_schema_that_agree():
    payload = Payload(n=1, when=WHEN, tags=["x"], kind="a")
    assert payload_json(payload) == {"n": 1, "when": timestamp(WHEN), "tags": ["x"], "kind": "a"}
    schema = payload_schema(Payload)
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["n", "when", "tags", "kind"]
    assert schema["properties"]["n"] == {"type": "integer", "description": "A number."}
    assert schema["properties"]["when"] == {"type": ["string", "null"], "format": "date-time"}
    assert schema["properties"]["kind"] == {"type": "string", "enum": ["a", "b"]}
