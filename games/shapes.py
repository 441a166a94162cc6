"""Typed output shapes of the game for the OpenAPI schema: rules, the match with its round
per family, legal actions, round records and events.

Each shape is written once: it feeds the schema, and `core.payloads.render` gives the
JSON from it (the match, its seats, rounds and round records: only the fields a shape
declares are ever sent); tests/api/test_typed_responses.py validates every response of
played matches against the generated schema (no undocumented field allowed). Unions:

* the match, its rules and the `rounds/` answer are discriminated on `family`
  (`common_pool` | `poker_dice`), so each family's round, seats, round records and
  legal actions are typed without guessing;
* legal actions, action records and events are discriminated on `type`;
* an event whose payload differs by family (`bid`, `round_started`, the round inside
  `round_finished`) carries a `oneOf` of the two family shapes, told apart by their
  required fields.
"""

from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from accounts.serializers import PlayerRef, ShownRatingOutput
from core.schema import ConstField, NullField
from games.engine.common_pool.rules import CHOICES
from games.engine.limits import (
    MAX_DICE_PER_PLAYER,
    MAX_FACE,
    MAX_LIVES,
    MIN_DICE_PER_PLAYER,
    MIN_FACE,
    MIN_LIVES,
)
from games.models import Match, Seat

INT_RANGES = {
    "dice_per_player": (MIN_DICE_PER_PLAYER, MAX_DICE_PER_PLAYER),
    "lives": (MIN_LIVES, MAX_LIVES),
}


def _rank() -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=["9", "10", "J", "Q", "K", "A"])


SEAT_KEY_HELP = "Keys are seat numbers as strings."
SEAT_STATUSES = Seat.Status.values
REFUNDS_HELP = "Chips each seat got back (its unsettled antes, then its stack), by seat number."


def seat_map(
    child: serializers.Field, help_text: str = SEAT_KEY_HELP, **kwargs: Any
) -> serializers.DictField:
    return serializers.DictField(child=child, help_text=help_text, **kwargs)


@extend_schema_field(
    {
        "type": "array",
        "items": {
            "type": ["string", "null"],
            "enum": ["9", "10", "J", "Q", "K", "A", "junk", None],
        },
        "minItems": 1,
        "maxItems": 5,
        "description": 'Poker hand: ranks "9".."A", category dice first, then kickers; null '
        'for an unnamed die; ["junk"] (only as the opening bid) for no pair.',
    }
)
class HandField(serializers.ListField):
    pass


def union(
    name: str, key: str, members: dict[str, type], many: bool = False
) -> PolymorphicProxySerializer:
    """A union discriminated by `key` (each member's ConstField of that name)."""
    return PolymorphicProxySerializer(
        component_name=name, serializers=members, resource_type_field_name=key, many=many
    )


# --- rules ---------------------------------------------------------------------------


def _int_option(name: str, help_text: str) -> serializers.IntegerField:
    low, high = INT_RANGES[name]
    return serializers.IntegerField(min_value=low, max_value=high, help_text=help_text)


def _choice_option(name: str, help_text: str) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=list(CHOICES[name]), help_text=help_text)


class CommonPoolOptions(serializers.Serializer):
    """Every option of a common-pool game (RULES.md 1)."""

    dice_per_player = _int_option("dice_per_player", "Dice each player starts with.")
    ones_wild = serializers.BooleanField(help_text="Ones count as every face bid on.")
    ones_bids = _choice_option("ones_bids", "How a bid on ones ranks (RULES 1.2).")
    loss = _choice_option("loss", "A lost challenge costs the difference, or one die.")
    exact_outcome = _choice_option("exact_outcome", "Who loses when the count is exact.")
    exact_spares_last_die = serializers.BooleanField()
    first_opener = _choice_option("first_opener", "Who opens round 1.")
    next_opener = _choice_option("next_opener", "Who opens the rounds after.")
    show_and_reroll = _choice_option("show_and_reroll", "Showing dice to reroll the rest.")
    exact_call = serializers.BooleanField(help_text="`exact` is allowed.")
    pass_call = serializers.BooleanField(help_text="`pass` is allowed (once a round).")
    palifico = serializers.BooleanField(
        required=False,
        help_text="Perudo's palifico rounds (RULES 1.10); absent on matches made before it.",
    )


class PokerDiceOptions(serializers.Serializer):
    """Every option of a poker-dice game (RULES.md 2)."""

    lives = _int_option("lives", "Lives each player starts with.")


class CommonPoolRules(CommonPoolOptions):
    family = ConstField("common_pool")


class PokerDiceRules(PokerDiceOptions):
    family = ConstField("poker_dice")


RULES = union("Rules", "family", {"common_pool": CommonPoolRules, "poker_dice": PokerDiceRules})


class RuleOptionsInput(CommonPoolOptions, PokerDiceOptions):
    """Overrides of a preset's options; only the options of the preset's family apply."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            field.required = False


class CommonPoolRuleset(serializers.Serializer):
    name = serializers.CharField(help_text="The preset's name, for `ruleset` in a new match.")
    family = ConstField("common_pool")
    options = CommonPoolOptions()


class PokerDiceRuleset(serializers.Serializer):
    name = serializers.CharField(help_text="The preset's name, for `ruleset` in a new match.")
    family = ConstField("poker_dice")
    options = PokerDiceOptions()


RULESETS = union(
    "Ruleset",
    "family",
    {"common_pool": CommonPoolRuleset, "poker_dice": PokerDiceRuleset},
    many=True,
)


# --- rules help (games/rules_help.py) ------------------------------------------------


@extend_schema_field(
    {
        "type": ["string", "boolean"],
        "description": "The option's value as the rules give it: a choice's name, or "
        "true/false for an on/off option.",
    }
)
class OptionValueField(serializers.Field):
    pass


class OptionValueHelp(serializers.Serializer):
    value = OptionValueField()
    label = serializers.CharField(help_text='Short, for a form ("Half as many").')
    text = serializers.CharField(help_text="What it means at the table.")


class OptionHelp(serializers.Serializer):
    name = serializers.CharField(help_text="The option, as in `options`.")
    label = serializers.CharField(help_text='Its plain name ("Bids on 1s").')
    text = serializers.CharField()
    values = OptionValueHelp(
        many=True, help_text="Each value of a choice or on/off option; empty for a number."
    )


class HandHelp(serializers.Serializer):
    name = serializers.CharField(help_text='The kind of hand ("Full house").')
    text = serializers.CharField()


class FamilyHelp(serializers.Serializer):
    family = serializers.ChoiceField(choices=["common_pool", "poker_dice"])
    title = serializers.CharField()
    basics = serializers.ListField(
        child=serializers.CharField(), help_text="A round, step by step."
    )
    chips = serializers.ListField(
        child=serializers.CharField(), help_text="What the buy-in and the ante cost and pay."
    )
    options = OptionHelp(many=True, help_text="Every option of the family, in `options` order.")
    hands = HandHelp(many=True, help_text="Poker dice: the hands, high to low; else empty.")
    kickers = serializers.CharField(
        allow_null=True, help_text="Poker dice: how naming the odd dice ranks a bid; else null."
    )


class PresetHelp(serializers.Serializer):
    name = serializers.CharField(help_text="The preset, as `ruleset`.")
    family = serializers.ChoiceField(choices=["common_pool", "poker_dice"])
    title = serializers.CharField()
    summary = serializers.CharField()
    examples = serializers.ListField(
        child=serializers.CharField(), help_text="From the preset's rule sheet."
    )


class RulesHelpOutput(serializers.Serializer):
    families = FamilyHelp(many=True)
    presets = PresetHelp(many=True, help_text="Every preset of `GET /rulesets/`, in its order.")


# --- action records (round.actions, round records, and the events of the same type) ---


class ChallengeRecord(serializers.Serializer):
    seat = serializers.IntegerField()
    type = ConstField("challenge")
    target_seat = serializers.IntegerField(help_text="The seat challenged.")


class CommonPoolBidRecord(serializers.Serializer):
    seat = serializers.IntegerField()
    type = ConstField("bid")
    quantity = serializers.IntegerField()
    face = serializers.IntegerField(min_value=MIN_FACE, max_value=MAX_FACE)
    shown = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        help_text="before_raise: the dice shown with this bid (the rest were rerolled).",
    )


class ShowRerollRecord(serializers.Serializer):
    seat = serializers.IntegerField()
    type = ConstField("show_reroll")
    shown = serializers.ListField(child=serializers.IntegerField(), help_text="Values shown.")
    rerolled = serializers.IntegerField(help_text="How many dice were rerolled.")


class ExactRecord(serializers.Serializer):
    seat = serializers.IntegerField()
    type = ConstField("exact")


class PassRecord(serializers.Serializer):
    seat = serializers.IntegerField()
    type = ConstField("pass")


class PokerDiceBidRecord(serializers.Serializer):
    seat = serializers.IntegerField()
    type = ConstField("bid")
    hand = HandField()
    direction = serializers.ChoiceField(
        choices=["left", "right"], required=False, help_text="On player one's bid only."
    )


class AcceptRecord(serializers.Serializer):
    seat = serializers.IntegerField()
    type = ConstField("accept")


class RerollRecord(serializers.Serializer):
    seat = serializers.IntegerField()
    type = ConstField("reroll")
    rerolled = serializers.IntegerField(help_text="How many dice were rerolled.")


COMMON_POOL_ACTION = union(
    "CommonPoolActionRecord",
    "type",
    {
        "bid": CommonPoolBidRecord,
        "show_reroll": ShowRerollRecord,
        "challenge": ChallengeRecord,
        "exact": ExactRecord,
        "pass": PassRecord,
    },
    many=True,
)
POKER_DICE_ACTION = union(
    "PokerDiceActionRecord",
    "type",
    {
        "bid": PokerDiceBidRecord,
        "accept": AcceptRecord,
        "reroll": RerollRecord,
        "challenge": ChallengeRecord,
    },
    many=True,
)


# --- legal actions --------------------------------------------------------------------


class CommonPoolBidLegal(serializers.Serializer):
    type = ConstField("bid")
    min_quantity_by_face = seat_map(
        serializers.IntegerField(),
        'The lowest legal quantity for each face (keys "1".."6"); a face is absent '
        "when no bid on it is legal.",
    )
    max_quantity = serializers.IntegerField(
        help_text="The highest legal quantity: the dice in play. Any quantity from the "
        "face's minimum to this is legal."
    )
    can_show = serializers.BooleanField(
        required=False, help_text="before_raise: this bid may carry `show` (die indexes)."
    )
    max_show = serializers.IntegerField(
        required=False, help_text="With can_show: the most dice `show` may list."
    )


class ShowRerollLegal(serializers.Serializer):
    type = ConstField("show_reroll")
    max_show = serializers.IntegerField(help_text="The most dice `show` may list (at least 1).")


class CommonPoolChallengeLegal(serializers.Serializer):
    type = ConstField("challenge")
    target_seats = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Who may be challenged: the bidder, and players who passed since. Send "
        "`target_seat` when there is more than one.",
    )


class ExactLegal(serializers.Serializer):
    type = ConstField("exact")


class PassLegal(serializers.Serializer):
    type = ConstField("pass")


class PokerDiceBidLegal(serializers.Serializer):
    type = ConstField("bid")
    min_hand = HandField(help_text="The lowest hand that beats the current bid.")
    needs_direction = serializers.BooleanField(
        help_text="Player one's bid at a table of 3 or more: send `direction`."
    )


class RerollLegal(serializers.Serializer):
    type = ConstField("reroll")
    max_hold = serializers.IntegerField(help_text="The most box indexes `hold` may list.")
    hold_required = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        help_text="Player one again: `hold` must be exactly these indexes (the shelf).",
    )


class AcceptLegal(serializers.Serializer):
    type = ConstField("accept")


class PokerDiceChallengeLegal(serializers.Serializer):
    type = ConstField("challenge")


COMMON_POOL_LEGAL = union(
    "CommonPoolLegalAction",
    "type",
    {
        "bid": CommonPoolBidLegal,
        "show_reroll": ShowRerollLegal,
        "challenge": CommonPoolChallengeLegal,
        "exact": ExactLegal,
        "pass": PassLegal,
    },
    many=True,
)
POKER_DICE_LEGAL = union(
    "PokerDiceLegalAction",
    "type",
    {
        "bid": PokerDiceBidLegal,
        "reroll": RerollLegal,
        "accept": AcceptLegal,
        "challenge": PokerDiceChallengeLegal,
    },
    many=True,
)


# --- round records (rounds/, last_round, round_finished / round_voided events) --------


class ChipMove(serializers.Serializer):
    from_ = serializers.CharField(help_text='An account label: "seat:<n>", "round_pot", ...')
    to = serializers.CharField()
    amount = serializers.IntegerField()
    kind = serializers.CharField(help_text="The ledger transfer kind (ante_round, ...).")

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")
        return fields


class CommonPoolBidValue(serializers.Serializer):
    quantity = serializers.IntegerField()
    face = serializers.IntegerField(min_value=MIN_FACE, max_value=MAX_FACE)


class PokerDiceBidValue(serializers.Serializer):
    hand = HandField()


_RESULT_HELP = "Present in rounds/ and round events; not in a match's last_round."


class CommonPoolResult(serializers.Serializer):
    type = serializers.ChoiceField(choices=["challenge", "exact", "pass_challenge"])
    bid = CommonPoolBidValue()
    bidder_seat = serializers.IntegerField()
    challenger_seat = serializers.IntegerField()
    target_seat = serializers.IntegerField()
    actual_count = serializers.IntegerField(help_text="Dice matching the bid (wilds included).")
    losses = seat_map(serializers.IntegerField(), "Dice lost per seat.")
    gains = seat_map(serializers.IntegerField(), "Dice gained per seat (a correct exact).")
    winner_seat = serializers.IntegerField()
    chips = ChipMove(many=True, required=False, help_text=_RESULT_HELP)


class PokerDiceResult(serializers.Serializer):
    type = ConstField("challenge")
    bid = PokerDiceBidValue()
    bidder_seat = serializers.IntegerField()
    challenger_seat = serializers.IntegerField()
    target_seat = serializers.IntegerField()
    actual_count = NullField()
    actual_hand = serializers.ListField(child=_rank(), help_text="The box, best first.")
    losses = seat_map(serializers.IntegerField(), "Lives lost per seat.")
    gains = seat_map(serializers.IntegerField(), "Always empty.")
    winner_seat = serializers.IntegerField()
    chips = ChipMove(many=True, required=False, help_text=_RESULT_HELP)


class RoundRecordBase(serializers.Serializer):
    number = serializers.IntegerField()
    opener_seat = serializers.IntegerField()
    voided_by = serializers.IntegerField(
        required=False, help_text="The seat whose forfeit voided the round."
    )
    aborted = serializers.BooleanField(required=False, help_text="A moderator aborted it.")
    chips = ChipMove(many=True, required=False, help_text=_RESULT_HELP)
    dice_commitments = seat_map(serializers.CharField(), _RESULT_HELP)
    salts = seat_map(serializers.CharField(), f"Open the commitments. {_RESULT_HELP}")

    def get_fields(self):
        fields = super().get_fields()
        fields["dice_commitments"].required = False
        fields["salts"].required = False
        return fields


class CommonPoolRoundRecord(RoundRecordBase):
    actions = COMMON_POOL_ACTION
    dice = seat_map(
        serializers.ListField(child=serializers.IntegerField()),
        "Every seat's dice at the reveal, shown ones included.",
    )
    shown = seat_map(serializers.ListField(child=serializers.IntegerField()), "Shown dice.")
    rolls = seat_map(
        serializers.ListField(child=serializers.ListField(child=serializers.IntegerField())),
        "Every roll of the seats that showed and rerolled.",
    )
    roll_off = serializers.ListField(
        child=serializers.DictField(child=serializers.IntegerField()),
        required=False,
        help_text="first_opener roll_off: each roll-off round, seat -> die.",
    )
    palifico = serializers.BooleanField(
        required=False, help_text="true on a Perudo palifico round (RULES 1.10); else absent."
    )
    result = CommonPoolResult(allow_null=True, help_text="null for a voided or aborted round.")


class PokerDiceDice(serializers.Serializer):
    box = serializers.ListField(child=_rank())


class PokerDiceRoundRecord(RoundRecordBase):
    actions = POKER_DICE_ACTION
    dice = PokerDiceDice()
    shelf = serializers.ListField(
        child=serializers.IntegerField(), help_text="Box indexes on the shelf."
    )
    rolls = serializers.ListField(
        child=serializers.ListField(child=_rank()), help_text="The box after every roll."
    )
    direction = serializers.ChoiceField(choices=["left", "right"], allow_null=True)
    result = PokerDiceResult(allow_null=True, help_text="null for a voided or aborted round.")


# --- the round in play ----------------------------------------------------------------


class Pots(serializers.Serializer):
    round = serializers.IntegerField(help_text="Chips in the round pot.")
    game = serializers.IntegerField(help_text="Chips in the game pot.")


class CommonPoolCurrentBid(serializers.Serializer):
    quantity = serializers.IntegerField()
    face = serializers.IntegerField(min_value=MIN_FACE, max_value=MAX_FACE)
    seat = serializers.IntegerField(help_text="Who made it.")


class PokerDiceCurrentBid(serializers.Serializer):
    hand = HandField()
    seat = serializers.IntegerField(help_text="Who made it.")
    text = serializers.CharField(help_text='In words ("four jacks").')


class RoundBase(serializers.Serializer):
    number = serializers.IntegerField()
    opener_seat = serializers.IntegerField(help_text="Poker dice: player one.")
    turn_seat = serializers.IntegerField()
    turn_deadline = serializers.DateTimeField(allow_null=True)
    pots = Pots()
    dice_commitments = seat_map(
        serializers.CharField(),
        'sha256("<salt>:<d1>,<d2>,...") per seat (poker dice: key "box"); the round '
        "record publishes the salts.",
    )


class CommonPoolRound(RoundBase):
    current_bid = CommonPoolCurrentBid(allow_null=True)
    actions = COMMON_POOL_ACTION
    your_dice = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="Your cup; null if unseated."
    )
    shown_dice = seat_map(serializers.ListField(child=serializers.IntegerField()))
    dice_counts = seat_map(serializers.IntegerField(), "Dice per live seat.")
    passed = serializers.ListField(child=serializers.IntegerField())
    must_raise = serializers.BooleanField(help_text="After show_reroll: a bid must follow.")
    palifico = serializers.BooleanField(
        help_text="A Perudo palifico round: ones not wild, the opening bid's face fixed."
    )
    roll_off = serializers.ListField(
        child=serializers.DictField(child=serializers.IntegerField()), required=False
    )


class PokerDiceRound(RoundBase):
    phase = serializers.ChoiceField(choices=["bid", "respond", "reroll"])
    direction = serializers.ChoiceField(choices=["left", "right"], allow_null=True)
    current_bid = PokerDiceCurrentBid(allow_null=True)
    actions = POKER_DICE_ACTION
    lives = seat_map(serializers.IntegerField())
    your_dice = serializers.ListField(
        child=_rank(),
        allow_null=True,
        help_text="The box, only while you hold it open (rolling, or after accepting).",
    )
    your_hand = serializers.CharField(
        allow_null=True,
        help_text="With your_dice: the box's hand in words (\"two pairs, aces over 9s and a "
        'king"); else null.',
    )
    shelf = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text="With your_dice."
    )
    shown_dice = serializers.DictField(help_text="Always empty in poker dice.")


# --- the match ------------------------------------------------------------------------


class CommonPoolSeat(serializers.Serializer):
    seat = serializers.IntegerField()
    player = PlayerRef()
    dice_count = serializers.IntegerField()
    lives = NullField()
    stack = serializers.IntegerField(help_text="Chips at the table.")
    status = serializers.ChoiceField(choices=SEAT_STATUSES)


class PokerDiceSeat(serializers.Serializer):
    seat = serializers.IntegerField()
    player = PlayerRef()
    dice_count = NullField()
    lives = serializers.IntegerField()
    stack = serializers.IntegerField(help_text="Chips at the table.")
    status = serializers.ChoiceField(choices=SEAT_STATUSES)


class AbortProposal(serializers.Serializer):
    round = serializers.IntegerField(help_text="It lapses when this round ends.")
    agreed_seats = serializers.ListField(child=serializers.IntegerField())


class RematchOffer(serializers.Serializer):
    accepted_seats = serializers.ListField(child=serializers.IntegerField())
    expires_at = serializers.DateTimeField()


class AbortOutcome(serializers.Serializer):
    reason = serializers.CharField(
        help_text="`aborted by a moderator`, `aborted by agreement` or `every player left`."
    )
    refunds = seat_map(serializers.IntegerField(), f"{REFUNDS_HELP} Empty without chips.")


class SeatResult(serializers.Serializer):
    seat = serializers.IntegerField()
    place = serializers.IntegerField(help_text="1 = won; equal places tie.")
    chips = serializers.IntegerField(
        help_text="Chips won (+) or lost (-) at the table, net of the buy-in (the ledger's "
        "cash-out less buy-in); 0 at no stake."
    )
    rating_before = ShownRatingOutput(
        allow_null=True, help_text="The rating in this preset before; null when unrated."
    )
    rating_after = ShownRatingOutput(
        allow_null=True, help_text="The rating in this preset after; null when unrated."
    )
    rating_weight = serializers.FloatField(
        allow_null=True,
        help_text="The share of the full rating change applied, 0 to 1: the mean weight of "
        "the opponents in this preset (1 for an established one, less for a provisional "
        "one, 0 for a fresh account); null when unrated.",
    )


class MatchBase(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["open", "active", "finished", "aborted"])
    ruleset = serializers.CharField()
    version = serializers.IntegerField(help_text="Send as `expected_version` with an action.")
    created_by = PlayerRef()
    max_players = serializers.IntegerField()
    turn_seconds = serializers.IntegerField()
    buy_in = serializers.IntegerField()
    ante = serializers.IntegerField()
    private = serializers.BooleanField()
    rated = serializers.BooleanField(help_text="false: casual, no rating changes.")
    on_timeout = serializers.ChoiceField(choices=["auto", "challenge", "forfeit"])
    max_timeouts = serializers.IntegerField()
    opener_seat = serializers.IntegerField(
        allow_null=True, help_text="The lobby seat the creator named to open round 1."
    )
    invite_code = serializers.CharField(allow_null=True, help_text="Creator only.")
    your_seat = serializers.IntegerField(allow_null=True)
    winner_seats = serializers.ListField(child=serializers.IntegerField())
    event_seq = serializers.IntegerField(help_text="Sequence number of the latest event.")
    abort_proposal = AbortProposal(
        allow_null=True, help_text="A proposal to abort, in round 1, while it stands."
    )
    rematch_offer = RematchOffer(
        allow_null=True, help_text="A finished match's rematch offer, while it stands."
    )
    rematch_id = serializers.IntegerField(
        allow_null=True, help_text="The rematch, once everyone accepted: move on to it."
    )
    aborted = AbortOutcome(
        allow_null=True, help_text="Why an aborted match ended, and its refunds."
    )
    results = SeatResult(
        many=True,
        allow_null=True,
        help_text="A finished match's result, seat by seat; null until it finishes (and "
        "for an aborted match).",
    )
    unrated_reason = serializers.ChoiceField(
        choices=Match.Unrated.values,
        allow_null=True,
        help_text="Why a finished match moved no rating: `casual` (not rated), `abandoned` "
        "(a resign, leave, timeout forfeit, claimed win or ban ended it before "
        "RATED_MIN_ROUNDS rounds, 3 by default, ended), `not_played` (no round ended with "
        "every seat having moved). Null while it runs and when ratings moved.",
    )


class CommonPoolMatch(MatchBase):
    family = ConstField("common_pool")
    rules = CommonPoolRules()
    seats = CommonPoolSeat(many=True)
    round = CommonPoolRound(allow_null=True, help_text="null before the start and at the end.")
    last_round = CommonPoolRoundRecord(allow_null=True, help_text="The last ended round.")
    legal_actions = COMMON_POOL_LEGAL


class PokerDiceMatch(MatchBase):
    family = ConstField("poker_dice")
    rules = PokerDiceRules()
    seats = PokerDiceSeat(many=True)
    round = PokerDiceRound(allow_null=True, help_text="null before the start and at the end.")
    last_round = PokerDiceRoundRecord(allow_null=True, help_text="The last ended round.")
    legal_actions = POKER_DICE_LEGAL


MATCH = union("Match", "family", {"common_pool": CommonPoolMatch, "poker_dice": PokerDiceMatch})


class CommonPoolRounds(serializers.Serializer):
    family = ConstField("common_pool")
    rounds = CommonPoolRoundRecord(many=True, help_text="Every ended round, oldest first.")
    current = CommonPoolRound(allow_null=True, help_text="The round in play as you see it.")


class PokerDiceRounds(serializers.Serializer):
    family = ConstField("poker_dice")
    rounds = PokerDiceRoundRecord(many=True, help_text="Every ended round, oldest first.")
    current = PokerDiceRound(allow_null=True, help_text="The round in play as you see it.")


ROUNDS = union("Rounds", "family", {"common_pool": CommonPoolRounds, "poker_dice": PokerDiceRounds})


# --- events ---------------------------------------------------------------------------


def round_record(**kwargs) -> PolymorphicProxySerializer:
    return PolymorphicProxySerializer(
        component_name="RoundRecord",
        serializers=[CommonPoolRoundRecord, PokerDiceRoundRecord],
        resource_type_field_name=None,
        **kwargs,
    )


# --- the export's dice (docs/API.md, "The dice of an export") -------------------------


class CommonPoolReroll(serializers.Serializer):
    action = serializers.IntegerField(
        help_text="Index of the showing action in the round's actions."
    )
    seat = serializers.IntegerField()
    shown = serializers.ListField(
        child=serializers.IntegerField(), help_text="The dice put face up from the cup."
    )
    rolled = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The seat's new cup: every die left in it, rolled again.",
    )


class CommonPoolRoundDice(serializers.Serializer):
    number = serializers.IntegerField()
    roll_off = serializers.ListField(
        child=serializers.DictField(child=serializers.IntegerField()),
        required=False,
        help_text="first_opener roll_off (round 1): each roll-off round, seat -> die.",
    )
    deal = seat_map(
        serializers.ListField(child=serializers.IntegerField()),
        "Each live seat's cup as rolled when the round started.",
    )
    rerolls = CommonPoolReroll(many=True, help_text="Every show-and-reroll, in play order.")
    commitments = seat_map(
        serializers.ListField(child=serializers.CharField()),
        "Each seat's dice commitments in the order published: the deal's, then one per "
        "reroll that changed what it covers.",
    )


class PokerDiceReroll(serializers.Serializer):
    action = serializers.IntegerField(help_text="Index of the reroll in the round's actions.")
    seat = serializers.IntegerField()
    held = serializers.ListField(
        child=serializers.IntegerField(), help_text="Box indexes kept on the shelf."
    )
    rolled = serializers.ListField(
        child=_rank(), help_text="The new dice, in box order of the indexes not held."
    )
    box = serializers.ListField(child=_rank(), help_text="The box after the shake.")


class PokerDiceRoundDice(serializers.Serializer):
    number = serializers.IntegerField()
    deal = PokerDiceDice(help_text="The box as player one shook it.")
    rerolls = PokerDiceReroll(many=True, help_text="Every shake after the first, in play order.")
    commitments = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text='Key "box": the box\'s commitments in the order published: the first '
        "shake's, then one per shake that changed the box.",
    )


class ExportDiceOutput(serializers.Serializer):
    opener_draw = serializers.IntegerField(
        allow_null=True,
        help_text="The seat drawn at random to open round 1 (common pool first_opener "
        "random; poker dice with no opener named), else null.",
    )
    rounds = PolymorphicProxySerializer(
        component_name="RoundDice",
        serializers=[CommonPoolRoundDice, PokerDiceRoundDice],
        resource_type_field_name=None,
        many=True,
    )


# --- lists -------------------------------------------------------------------------


class MatchSummaryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["open", "active", "finished", "aborted"])
    ruleset = serializers.CharField()
    family = serializers.ChoiceField(choices=["common_pool", "poker_dice"])
    max_players = serializers.IntegerField()
    turn_seconds = serializers.IntegerField()
    buy_in = serializers.IntegerField()
    ante = serializers.IntegerField()
    private = serializers.BooleanField()
    rated = serializers.BooleanField()
    created_by = PlayerRef()
    players = PlayerRef(many=True)
    created_at = serializers.DateTimeField()


class MessageOutput(serializers.Serializer):
    id = serializers.IntegerField()
    author = PlayerRef()
    text = serializers.CharField()
    created_at = serializers.DateTimeField()


class LeaderboardEntryOutput(PlayerRef):
    score = serializers.FloatField(
        help_text="by=chips: the wallet balance of a player who chose to show it; by=rating: "
        "the rating mu - 3 sigma."
    )
    rating_shown = ShownRatingOutput(
        allow_null=True, help_text="by=rating: the rating as players see it; else null."
    )
