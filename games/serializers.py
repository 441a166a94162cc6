from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail

from core.fields import StrictBooleanField, StrictCharField, StrictIntegerField
from core.inputs import StrictInput
from core.pagination import CursorQuery
from games import engine
from games.engine.limits import (
    BOX_SIZE,
    MAX_DICE_PER_PLAYER,
    MAX_FACE,
    MAX_HOLD,
    MAX_PLAYERS,
    MAX_QUANTITY,
    MAX_SEAT,
    MIN_FACE,
    MIN_PLAYERS,
)
from games.services.bot_players import STRATEGY_CHOICES, STRATEGY_HELP
from games.shapes import RuleOptionsInput

PRESET_NAMES = sorted(engine.PRESETS)

RATED_HELP = "false: a casual match, whose result changes no rating."


# Every option of either family.
OPTION_NAMES = frozenset(
    name for e in engine.ENGINES.values() for name in e.rules_type.option_names
)


@extend_schema_field(RuleOptionsInput)
class RuleOptionsField(serializers.DictField):
    """A name that is no family's option is refused here, field by field; the engine
    checks the values and names an option of the other family."""

    def to_internal_value(self, data: Any) -> dict:
        options = super().to_internal_value(data)
        unknown = [name for name in options if name not in OPTION_NAMES]
        if unknown:
            message = f"Unknown option; the options are {', '.join(sorted(OPTION_NAMES))}."
            raise serializers.ValidationError(
                {name: [ErrorDetail(message, code="unknown_field")] for name in unknown}
            )
        return options


class BotInput(StrictInput):
    strategy = serializers.ChoiceField(choices=STRATEGY_CHOICES, help_text=STRATEGY_HELP)


class MatchCreateInput(StrictInput):
    ruleset = serializers.ChoiceField(choices=PRESET_NAMES)
    options = RuleOptionsField(
        required=False,
        default=dict,
        help_text="Option overrides of the preset's family (see GET /rulesets/); an "
        "unknown option or one of the other family is a 400.",
    )
    max_players = StrictIntegerField(min_value=MIN_PLAYERS, max_value=MAX_PLAYERS)
    turn_seconds = StrictIntegerField(min_value=10, max_value=7 * 24 * 3600)
    buy_in = StrictIntegerField(min_value=0, max_value=1_000_000, required=False, default=0)
    ante = StrictIntegerField(min_value=0, max_value=1_000_000, required=False, default=0)
    private = StrictBooleanField(required=False, default=False)
    rated = StrictBooleanField(required=False, default=True, help_text=RATED_HELP)
    bots = BotInput(
        many=True,
        required=False,
        default=list,
        help_text="Server bots seated after you, in order (see GET /bots/ for the levels).",
    )
    on_timeout = serializers.ChoiceField(
        choices=["auto", "challenge", "forfeit"],
        required=False,
        default="auto",
        help_text="auto: the cautious (medium) bot plays for an absent player (out after "
        "max_timeouts in a row); challenge: the standing bid is challenged; forfeit: out.",
    )
    max_timeouts = StrictIntegerField(min_value=1, max_value=20, required=False, default=3)
    opener_seat = StrictIntegerField(
        min_value=0,
        max_value=MAX_SEAT,
        required=False,
        allow_null=True,
        default=None,
        help_text="With first_opener `creator`: the seat that opens round 1 (0 to "
        "max_players - 1); the creator's seat when omitted or when nobody sits there.",
    )

    def validate(self, data: dict) -> dict:
        if data["ante"] and not data["buy_in"]:
            raise serializers.ValidationError({"ante": "An ante needs a buy-in."})
        if data["ante"] > data["buy_in"]:
            raise serializers.ValidationError({"ante": "The ante cannot exceed the buy-in."})
        return data


class JoinInput(StrictInput):
    invite_code = StrictCharField(max_length=32, required=False)


class ActionInput(StrictInput):
    """One action; which fields apply depends on `type` (see API.md). Shapes only: the
    engine decides what is legal."""

    type = serializers.ChoiceField(
        choices=["bid", "challenge", "exact", "pass", "show_reroll", "accept", "reroll"]
    )
    quantity = StrictIntegerField(required=False, min_value=1, max_value=MAX_QUANTITY)
    face = StrictIntegerField(required=False, min_value=MIN_FACE, max_value=MAX_FACE)
    # Indexes into the seat's cup (the engine keeps one die in the cup to reroll).
    show = serializers.ListField(
        child=StrictIntegerField(min_value=0, max_value=MAX_DICE_PER_PLAYER - 1),
        required=False,
        max_length=MAX_DICE_PER_PLAYER,
    )
    target_seat = StrictIntegerField(required=False, min_value=0, max_value=MAX_SEAT)
    hand = serializers.ListField(
        child=StrictCharField(allow_null=True, max_length=5),
        required=False,
        max_length=BOX_SIZE,
        help_text='Poker dice: ranks "9","10","J","Q","K","A", null for an unnamed die, '
        'or ["junk"] as an opening bid.',
    )
    direction = serializers.ChoiceField(choices=["left", "right"], required=False)
    hold = serializers.ListField(
        child=StrictIntegerField(min_value=0, max_value=BOX_SIZE - 1),
        required=False,
        max_length=MAX_HOLD,
    )
    expected_version = StrictIntegerField(required=False, min_value=0)


class VersionInput(StrictInput):
    """The body of a POST that changes a match and takes no other field."""

    expected_version = StrictIntegerField(
        required=False,
        min_value=0,
        help_text="The match's `version` you saw: refused with `stale_version` if it moved on.",
    )


class MessageInput(StrictInput):
    text = StrictCharField(min_length=1, max_length=500)


class LeaderboardQuery(serializers.Serializer):
    by = serializers.ChoiceField(choices=["chips", "rating"], default="chips")
    ruleset = serializers.ChoiceField(
        choices=PRESET_NAMES,
        required=False,
        help_text="With by=rating: the rating in this preset (players rated in it only).",
    )
    cursor = serializers.CharField(required=False, help_text="From `next` / `previous`.")
    page_size = serializers.IntegerField(min_value=1, max_value=200, required=False)

    def validate(self, data: dict) -> dict:
        if data.get("ruleset") and data["by"] != "rating":
            raise serializers.ValidationError({"ruleset": "A preset ranks by rating only."})
        return data


class MatchListQuery(CursorQuery):
    status = serializers.ChoiceField(
        choices=["open", "active", "finished", "aborted"], required=False
    )
    mine = serializers.BooleanField(required=False, default=False)
    ruleset = serializers.ChoiceField(
        choices=PRESET_NAMES, required=False, help_text="Only matches of this preset."
    )
    players = serializers.IntegerField(
        min_value=MIN_PLAYERS,
        max_value=MAX_PLAYERS,
        required=False,
        help_text="Only tables of this many seats (`max_players`), as a seek's `players`.",
    )
    buy_in_min = serializers.IntegerField(
        min_value=0, required=False, help_text="Only matches whose buy-in is at least this."
    )
    buy_in_max = serializers.IntegerField(
        min_value=0,
        required=False,
        help_text="Only matches whose buy-in is at most this (0: matches without chips).",
    )

    def validate(self, data: dict) -> dict:
        low, high = data.get("buy_in_min"), data.get("buy_in_max")
        if low is not None and high is not None and low > high:
            raise serializers.ValidationError({"buy_in_max": "Give at least `buy_in_min`."})
        return data


class EventsQuery(serializers.Serializer):
    after = serializers.IntegerField(min_value=0, default=0)
    wait = serializers.FloatField(min_value=0, max_value=30, default=0)
