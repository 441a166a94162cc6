"""The tournaments API's inputs and outputs (each output shape defined once, here)."""

from rest_framework import serializers

from accounts.serializers import PlayerRef
from core.fields import StrictBooleanField, StrictCharField, StrictIntegerField
from core.inputs import StrictInput
from core.pagination import CursorQuery
from games.engine.limits import MAX_PLAYERS, MIN_PLAYERS
from games.models import Match
from games.serializers import PRESET_NAMES, RuleOptionsField
from games.services.bot_players import STRATEGY_CHOICES, STRATEGY_HELP
from tournaments.models import Tournament
from tournaments.services import MAX_ENTRANTS


class TournamentCreateInput(StrictInput):
    name = StrictCharField(max_length=80)
    format = serializers.ChoiceField(choices=Tournament.Format.values)
    ruleset = serializers.ChoiceField(choices=PRESET_NAMES)
    options = RuleOptionsField(
        required=False, default=dict, help_text="Option overrides of the preset, for every table."
    )
    turn_seconds = StrictIntegerField(min_value=10, max_value=7 * 24 * 3600)
    table_size = StrictIntegerField(
        min_value=MIN_PLAYERS,
        max_value=MAX_PLAYERS,
        help_text="A sit-and-go's one table (2-8 seats, its entrants); a knockout's largest (3-8).",
    )
    advance = StrictIntegerField(
        min_value=1,
        max_value=MAX_PLAYERS - 1,
        required=False,
        help_text="Knockout: how many of each table (but the final) go on (default 1). "
        "A sit-and-go takes none of advance, min_entrants and max_entrants.",
    )
    seeding = serializers.ChoiceField(
        choices=Tournament.Seeding.values, required=False, default=Tournament.Seeding.RATING
    )
    min_entrants = StrictIntegerField(min_value=2, max_value=MAX_ENTRANTS, required=False)
    max_entrants = StrictIntegerField(min_value=2, max_value=MAX_ENTRANTS, required=False)
    starts_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Knockout: the start (cancelled and refunded if short of min_entrants "
        "then); none: it starts once min_entrants registered.",
    )
    buy_in = StrictIntegerField(min_value=0, max_value=1_000_000, required=False, default=0)
    fee = StrictIntegerField(
        min_value=0,
        max_value=1_000_000,
        required=False,
        default=0,
        help_text="Per entry, to the house: staff only.",
    )
    bots_allowed = StrictBooleanField(required=False, default=False)
    rated = StrictBooleanField(required=False, default=False)
    on_timeout = serializers.ChoiceField(
        choices=Match.TimeoutPolicy.values, required=False, default="auto"
    )
    max_timeouts = StrictIntegerField(min_value=1, max_value=20, required=False, default=3)


class TournamentBotInput(StrictInput):
    strategy = serializers.ChoiceField(choices=STRATEGY_CHOICES, help_text=STRATEGY_HELP)


class TournamentListQuery(CursorQuery):
    status = serializers.ChoiceField(choices=Tournament.Status.values, required=False)
    format = serializers.ChoiceField(choices=Tournament.Format.values, required=False)
    mine = serializers.BooleanField(required=False, default=False)


class TournamentOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    format = serializers.ChoiceField(choices=Tournament.Format.values)
    status = serializers.ChoiceField(choices=Tournament.Status.values)
    created_by = PlayerRef()
    ruleset = serializers.CharField()
    options = serializers.DictField()
    turn_seconds = serializers.IntegerField()
    on_timeout = serializers.ChoiceField(choices=Match.TimeoutPolicy.values)
    max_timeouts = serializers.IntegerField()
    rated = serializers.BooleanField()
    table_size = serializers.IntegerField()
    advance = serializers.IntegerField()
    seeding = serializers.ChoiceField(choices=Tournament.Seeding.values)
    min_entrants = serializers.IntegerField()
    max_entrants = serializers.IntegerField()
    entrant_count = serializers.IntegerField()
    starts_at = serializers.DateTimeField(allow_null=True)
    buy_in = serializers.IntegerField()
    fee = serializers.IntegerField()
    bots_allowed = serializers.BooleanField()
    pool = serializers.IntegerField(help_text="The prize pool, fixed at the start (0 before).")
    version = serializers.IntegerField(help_text="Bumped by every change (the stream's ids).")
    cancel_reason = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class PayoutPlaceOutput(serializers.Serializer):
    place = serializers.IntegerField()
    share_bp = serializers.IntegerField(help_text="Share of the pool in basis points (1/10000).")
    prize = serializers.IntegerField(help_text="Chips, of the pool as it stands.")


class PayoutOutput(serializers.Serializer):
    fixed = serializers.BooleanField(help_text="False before the start: it follows the entrants.")
    entrants = serializers.IntegerField()
    pool = serializers.IntegerField()
    places = PayoutPlaceOutput(many=True)
    remainder_rule = serializers.CharField()


class StandingOutput(serializers.Serializer):
    player = PlayerRef()
    seed = serializers.IntegerField(allow_null=True)
    place = serializers.IntegerField(allow_null=True, help_text="None while still playing.")
    prize = serializers.IntegerField(allow_null=True)
    out_in_stage = serializers.IntegerField(allow_null=True)


class TableOutput(serializers.Serializer):
    number = serializers.IntegerField()
    match_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Match.Status.values)
    advance = serializers.IntegerField(help_text="How many go on (0 at the final).")
    players = PlayerRef(many=True)


class StageOutput(serializers.Serializer):
    number = serializers.IntegerField()
    final = serializers.BooleanField()
    finished = serializers.BooleanField()
    tables = TableOutput(many=True)


class TournamentDetailOutput(TournamentOutput):
    standings = StandingOutput(many=True)
    stages = StageOutput(many=True)
    payout = PayoutOutput()
