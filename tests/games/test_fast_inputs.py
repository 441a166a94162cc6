"""The hot inputs (an action, a chat message, the long poll's and the lists' query
parameters) are validated by `core.inputs.validated`, which skips building the
serializer for input it can vouch for: it must accept exactly what the serializer
accepts, return exactly what it returns, and leave every refusal to the serializer."""

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from core.fields import StrictIntegerField
from core.inputs import fast_check, validated
from core.pagination import CursorQuery
from games.api.streams import StreamQuery
from games.engine.limits import (
    BOX_SIZE,
    MAX_DICE_PER_PLAYER,
    MAX_FACE,
    MAX_HOLD,
    MAX_QUANTITY,
    MAX_SEAT,
    MIN_FACE,
)
from games.serializers import ActionInput, EventsQuery, MatchCreateInput, MessageInput

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ACTION_TYPES = ["bid", "challenge", "exact", "pass", "show_reroll", "accept", "reroll"]
# Strings near the edges of what the fields take: choices, ranks, blanks, whitespace to
# trim, too long, characters the validators refuse, a choice in the wrong case.
STRINGS = [
    *ACTION_TYPES,
    "left",
    "right",
    "A",
    "10",
    "junk",
    "Bid",
    "",
    " ",
    " A",
    "A\n",
    "KKKKKK",
    "\x00",
    "A\ud800",
    "ünï",
]


def by_serializer(serializer_class: type[serializers.Serializer], data: Any) -> dict:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def outcome(validate, serializer_class, data) -> str:
    """The validated data or the error, with every type and the key order showing
    (True is not 1, 3.0 is not 3)."""
    try:
        return repr(("valid", validate(serializer_class, data)))
    except ValidationError as exc:
        return repr(("invalid", exc.get_full_details()))


def assert_same_as_the_serializer(serializer_class, data) -> None:
    expected = outcome(by_serializer, serializer_class, data)
    assert outcome(validated, serializer_class, data) == expected
    vouched = fast_check(serializer_class)(data)
    if vouched is not None:  # what the check accepts, the serializer accepts the same
        assert repr(("valid", vouched)) == expected


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: st.lists(children, max_size=8) | st.dictionaries(st.text(), children),
    max_leaves=12,
)
# Values near the edges of the fields' ranges, alone or in lists, and anything JSON.
near_edges = (
    st.sampled_from(STRINGS)
    | st.integers(-2, 20)
    | st.sampled_from([None, True, False, 3.0, 2.5, 10**20, -(10**20)])
)
field_values = near_edges | st.lists(near_edges, max_size=8) | json_values
well_formed_actions = st.fixed_dictionaries(
    {"type": st.sampled_from(ACTION_TYPES)},
    optional={
        "quantity": st.integers(1, MAX_QUANTITY),
        "face": st.integers(MIN_FACE, MAX_FACE),
        "show": st.lists(st.integers(0, MAX_DICE_PER_PLAYER - 1), max_size=MAX_DICE_PER_PLAYER),
        "target_seat": st.integers(0, MAX_SEAT),
        "hand": st.lists(
            st.none() | st.sampled_from(["9", "10", "J", "Q", "K", "A", "junk"]),
            max_size=BOX_SIZE,
        ),
        "direction": st.sampled_from(["left", "right"]),
        "hold": st.lists(st.integers(0, BOX_SIZE - 1), max_size=MAX_HOLD),
        "expected_version": st.integers(min_value=0),
    },
)
# A well-formed action with a field or two replaced (or added, or dropped), so that one
# bad value is not hidden behind another.
action_bodies = st.builds(
    lambda action, changes, dropped: {
        key: value for key, value in {**action, **changes}.items() if key not in dropped
    },
    well_formed_actions,
    st.dictionaries(st.sampled_from([*ActionInput().fields, "unknown"]), field_values, max_size=3),
    st.sets(st.sampled_from(["type", "quantity"]), max_size=1),
)


@SETTINGS
@given(data=action_bodies | json_values)
def test_any_action_body_gets_the_serializers_answer(data):
    assert_same_as_the_serializer(ActionInput, data)


@SETTINGS
@given(data=well_formed_actions)
def test_every_well_formed_action_skips_the_serializer(data):
    assert fast_check(ActionInput)(data) is not None
    assert_same_as_the_serializer(ActionInput, data)


@pytest.mark.parametrize(
    "data",
    [
        {"type": "bid", "quantity": 3, "face": 4, "expected_version": 0},
        {"type": "challenge", "note": "refused", "quantity": None},
        {"type": "bid", "quantity": 3, "face": 4, "unknown": [1, {"x": None}]},
        {"type": "bid", "quantity": True, "face": 4},
        {"type": "bid", "quantity": False, "face": 4},
        {"type": "bid", "quantity": 3.0, "face": 4},
        {"type": "bid", "quantity": "3", "face": 4},
        {"type": "bid", "quantity": 0, "face": MAX_FACE + 1},
        {"type": "bid", "quantity": MAX_QUANTITY, "face": MIN_FACE},
        {"type": "bid", "quantity": MAX_QUANTITY + 1, "face": MIN_FACE - 1},
        {"type": "bid", "expected_version": -1},
        {"type": "bid", "expected_version": 10**30},
        {"type": None},
        {"type": ""},
        {"type": "BID"},
        {"type": ["bid"]},
        {"type": True},
        {"quantity": 3, "face": 4},
        {"type": "show_reroll", "show": list(range(MAX_DICE_PER_PLAYER))},
        {"type": "show_reroll", "show": list(range(MAX_DICE_PER_PLAYER + 1))},
        {"type": "show_reroll", "show": [0, MAX_DICE_PER_PLAYER]},
        {"type": "show_reroll", "show": [True]},
        {"type": "show_reroll", "show": "01"},
        {"type": "show_reroll", "show": {"0": 1}},
        {"type": "show_reroll", "show": None},
        {"type": "show_reroll", "show": [None]},
        {"type": "bid", "hand": ["A", None, "10", "junk", "K"]},
        {"type": "bid", "hand": ["A"] * (BOX_SIZE + 1)},
        {"type": "bid", "hand": [" A", "K\t"]},
        {"type": "bid", "hand": ["", " "]},
        {"type": "bid", "hand": ["KKKKKK", 7, True, ["A"]]},
        {"type": "bid", "hand": ["\x00", "A\ud800"]},
        {"type": "bid", "hand": None},
        {"type": "reroll", "hold": list(range(MAX_HOLD))},
        {"type": "reroll", "hold": list(range(MAX_HOLD + 1))},
        {"type": "reroll", "hold": [BOX_SIZE]},
        {"type": "reroll", "hold": []},
        {"type": "pass", "direction": "up", "target_seat": MAX_SEAT + 1},
        {"type": "pass", "direction": "left", "target_seat": MAX_SEAT},
        {},
        [],
        [{"type": "bid"}],
        "bid",
        3,
        None,
    ],
)
def test_a_spread_of_actions_gets_the_serializers_answer(data):
    assert_same_as_the_serializer(ActionInput, data)


@SETTINGS
@given(
    action=well_formed_actions,
    unknown=st.text(min_size=1, max_size=20).filter(lambda key: key not in ActionInput().fields),
    value=json_values,
)
def test_an_unknown_field_is_refused_by_name_never_vouched_for(action, unknown, value):
    data = {**action, unknown: value}
    assert fast_check(ActionInput)(data) is None
    with pytest.raises(ValidationError) as refused:
        validated(ActionInput, data)
    assert refused.value.get_full_details() == {
        unknown: [
            {
                "message": "Unknown field; the fields are type, quantity, face, show, "
                "target_seat, hand, direction, hold, expected_version.",
                "code": "unknown_field",
            }
        ]
    }


def test_an_unknown_field_is_listed_with_the_other_bad_fields():
    data = {"type": "bid", "quantity": True, "expectedVersion": 3, "face": 9}
    with pytest.raises(ValidationError) as refused:
        validated(ActionInput, data)
    codes = {
        field: [e["code"] for e in errors]
        for field, errors in refused.value.get_full_details().items()
    }
    assert codes == {
        "quantity": ["invalid"],
        "face": ["max_value"],
        "expectedVersion": ["unknown_field"],
    }


@SETTINGS
@given(
    data=st.fixed_dictionaries(
        {"text": st.text(max_size=510) | st.sampled_from(STRINGS)},
        optional={"unknown": json_values},
    )
    | st.dictionaries(st.sampled_from(["text", "unknown"]), field_values)
)
def test_any_chat_message_gets_the_serializers_answer(data):
    assert_same_as_the_serializer(MessageInput, data)


def test_a_plain_chat_message_skips_the_serializer():
    for text in ["gg", "five 4s? really?", "ü" * 500]:
        assert fast_check(MessageInput)({"text": text}) == {"text": text}
    for text in ["", " hi", "hi ", "x" * 501, "a\x00b"]:
        assert fast_check(MessageInput)({"text": text}) is None


# Query parameters as parse_query hands them over (strings), near the fields' limits
# and in the forms int() and float() read but parse_query refuses first.
QUERY_VALUES = [
    *("0", "1", "7", "12", "30", "31", "100", "101", "007", "0.5", "2.5", "30.0", "30.5"),
    *("-1", "-0", "1e1", " 7", "7 ", "7\n", "\u0663", "", " ", "next", "x" * 40, "1" * 19),
    "\x00",
]


@SETTINGS
@given(
    serializer_class=st.sampled_from([EventsQuery, StreamQuery, CursorQuery]),
    data=st.dictionaries(
        st.sampled_from(["after", "wait", "cursor", "page_size", "unknown"]),
        st.sampled_from(QUERY_VALUES) | st.text(max_size=6),
    ),
)
def test_any_query_gets_the_serializers_answer(serializer_class, data):
    assert_same_as_the_serializer(serializer_class, data)


def test_a_plain_query_skips_the_serializer():
    assert fast_check(EventsQuery)({"after": "12", "wait": "25"}) == {"after": 12, "wait": 25.0}
    assert fast_check(EventsQuery)({}) == {"after": 0, "wait": 0}
    assert fast_check(StreamQuery)({}) == {}
    assert fast_check(CursorQuery)({"cursor": "cD0x", "page_size": "50"}) == {
        "cursor": "cD0x",
        "page_size": 50,
    }


class WithValidate(serializers.Serializer):
    n = StrictIntegerField()

    def validate(self, data: dict) -> dict:
        raise serializers.ValidationError("never")


class WithFieldValidator(serializers.Serializer):
    n = StrictIntegerField(validators=[lambda value: None])


class WithBooleanField(serializers.Serializer):
    flag = serializers.BooleanField()


class WithDefault(serializers.Serializer):
    items = serializers.ListField(child=StrictIntegerField(), required=False, default=list)


@pytest.mark.parametrize(
    "serializer_class",
    [MatchCreateInput, WithValidate, WithFieldValidator, WithBooleanField, WithDefault],
)
def test_a_serializer_with_parts_the_check_cannot_reproduce_gets_no_check(serializer_class):
    assert fast_check(serializer_class) is None


class PlainSerializer(serializers.Serializer):
    n = StrictIntegerField()


def test_a_serializer_that_is_no_strict_input_keeps_ignoring_unknown_keys():
    assert fast_check(PlainSerializer)({"n": 1, "x": 2}) is None
    assert validated(PlainSerializer, {"n": 1, "x": 2}) == {"n": 1}


def test_without_a_check_the_serializer_decides():
    with pytest.raises(ValidationError):
        validated(WithValidate, {"n": 1})
    assert validated(WithDefault, {}) == {"items": []}
