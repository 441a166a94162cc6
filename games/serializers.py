from rest_framework import serializers

from accounts.serializers import PlayerRef
from core.fields import StrictBooleanField, StrictCharField, StrictIntegerField
from games import engine
from games.services.bot_players import STRATEGIES

PRESET_NAMES = sorted(engine.PRESETS)


class BotInput(serializers.Serializer):
    strategy = serializers.ChoiceField(choices=STRATEGIES)


class MatchCreateInput(serializers.Serializer):
    ruleset = serializers.ChoiceField(choices=PRESET_NAMES)
    options = serializers.DictField(
        required=False,
        default=dict,
        help_text="Option overrides of the preset (see GET /rulesets/).",
    )
    max_players = StrictIntegerField(min_value=2, max_value=8)
    turn_seconds = StrictIntegerField(min_value=10, max_value=7 * 24 * 3600)
    buy_in = StrictIntegerField(min_value=0, max_value=1_000_000, required=False, default=0)
    ante = StrictIntegerField(min_value=0, max_value=1_000_000, required=False, default=0)
    private = StrictBooleanField(required=False, default=False)
    bots = BotInput(many=True, required=False, default=list)
    on_timeout = serializers.ChoiceField(
        choices=["auto", "challenge", "forfeit"],
        required=False,
        default="auto",
        help_text="auto: the cautious bot plays for an absent player (out after "
        "max_timeouts in a row); challenge: the standing bid is challenged; forfeit: out.",
    )
    max_timeouts = StrictIntegerField(min_value=1, max_value=20, required=False, default=3)
    opener_seat = StrictIntegerField(
        min_value=0,
        max_value=7,
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


class JoinInput(serializers.Serializer):
    invite_code = StrictCharField(max_length=32, required=False)


class ActionInput(serializers.Serializer):
    """One action; which fields apply depends on `type` (see API.md)."""

    type = serializers.ChoiceField(
        choices=["bid", "challenge", "exact", "pass", "show_reroll", "accept", "reroll"]
    )
    quantity = StrictIntegerField(required=False, min_value=1, max_value=80)
    face = StrictIntegerField(required=False, min_value=1, max_value=6)
    show = serializers.ListField(
        child=StrictIntegerField(min_value=0, max_value=9), required=False, max_length=10
    )
    target_seat = StrictIntegerField(required=False, min_value=0, max_value=7)
    hand = serializers.ListField(
        child=StrictCharField(allow_null=True, max_length=5),
        required=False,
        max_length=5,
        help_text='Poker dice: ranks "9","10","J","Q","K","A", null for an unnamed die, '
        'or ["junk"] as an opening bid.',
    )
    direction = serializers.ChoiceField(choices=["left", "right"], required=False)
    hold = serializers.ListField(
        child=StrictIntegerField(min_value=0, max_value=4), required=False, max_length=5
    )
    expected_version = StrictIntegerField(required=False, min_value=0)


class MessageInput(serializers.Serializer):
    text = StrictCharField(min_length=1, max_length=500)


class LeaderboardQuery(serializers.Serializer):
    by = serializers.ChoiceField(choices=["chips", "rating"], default="chips")
    limit = serializers.IntegerField(min_value=1, max_value=200, required=False)
    offset = serializers.IntegerField(min_value=0, required=False)


class CursorQuery(serializers.Serializer):
    cursor = serializers.CharField(required=False, help_text="From `next` / `previous`.")
    page_size = serializers.IntegerField(min_value=1, max_value=100, required=False)


class MatchListQuery(CursorQuery):
    status = serializers.ChoiceField(
        choices=["open", "active", "finished", "aborted"], required=False
    )
    mine = serializers.BooleanField(required=False, default=False)


class EventsQuery(serializers.Serializer):
    after = serializers.IntegerField(min_value=0, default=0)
    wait = serializers.FloatField(min_value=0, max_value=30, default=0)


# --- output shapes (for the schema; views return plain dicts on the hot paths) -------


class SeatOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    player = PlayerRef()
    dice_count = serializers.IntegerField(allow_null=True)
    lives = serializers.IntegerField(allow_null=True)
    stack = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["playing", "out", "left"])


class MatchOutput(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["open", "active", "finished", "aborted"])
    ruleset = serializers.CharField()
    rules = serializers.DictField()
    family = serializers.ChoiceField(choices=["common_pool", "poker_dice"])
    version = serializers.IntegerField()
    created_by = PlayerRef()
    max_players = serializers.IntegerField()
    turn_seconds = serializers.IntegerField()
    buy_in = serializers.IntegerField()
    ante = serializers.IntegerField()
    private = serializers.BooleanField()
    on_timeout = serializers.CharField()
    max_timeouts = serializers.IntegerField()
    opener_seat = serializers.IntegerField(
        allow_null=True, help_text="The lobby seat the creator named to open round 1."
    )
    invite_code = serializers.CharField(allow_null=True, help_text="Creator only.")
    seats = SeatOutput(many=True)
    round = serializers.DictField(
        allow_null=True,
        help_text="number, opener_seat, turn_seat, turn_deadline, current_bid, actions, "
        "your_dice, shown_dice, pots {round, game}, dice_commitments.",
    )
    last_round = serializers.DictField(allow_null=True, help_text="The last finished round.")
    your_seat = serializers.IntegerField(allow_null=True)
    legal_actions = serializers.ListField(child=serializers.DictField())
    winner_seats = serializers.ListField(child=serializers.IntegerField())
    event_seq = serializers.IntegerField(help_text="Sequence number of the latest event.")


class MatchSummaryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    ruleset = serializers.CharField()
    family = serializers.CharField()
    max_players = serializers.IntegerField()
    turn_seconds = serializers.IntegerField()
    buy_in = serializers.IntegerField()
    ante = serializers.IntegerField()
    private = serializers.BooleanField()
    created_by = PlayerRef()
    players = PlayerRef(many=True)
    created_at = serializers.DateTimeField()


class EventOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField()
    data = serializers.DictField()
    created_at = serializers.DateTimeField()


class EventsOutput(serializers.Serializer):
    events = EventOutput(many=True)
    last_seq = serializers.IntegerField()


class RoundsOutput(serializers.Serializer):
    rounds = serializers.ListField(child=serializers.DictField())
    current = serializers.DictField(allow_null=True)


class MessageOutput(serializers.Serializer):
    id = serializers.IntegerField()
    author = PlayerRef()
    text = serializers.CharField()
    created_at = serializers.DateTimeField()


class RulesetOutput(serializers.Serializer):
    name = serializers.CharField()
    family = serializers.CharField()
    options = serializers.DictField()


class LeaderboardEntryOutput(PlayerRef):
    score = serializers.FloatField(allow_null=True)
