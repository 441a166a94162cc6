"""The one registry of the events a client can see, with each type's payload: the only
source of its JSON and of its schema (in the match log, both streams, the webhooks and
their deliveries, and the docs).

* Match events (`MATCH_EVENTS`) go to the match's public log (`events/`, the match
  stream). The engine's events keep the engine's JSON, typed by the record serializers
  of `games.shapes`; the server's own are typed here.
* Account events (`ACCOUNT_EVENTS`) go to a player's account: the account stream and
  their webhooks carry the same payload, a frozen dataclass (`core.payloads`) that
  gives both the JSON and its schema.

`games.services.publish` is the only writer of either. Adding an account event is a
dataclass here, registered with `@account_event`, plus its test.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal

from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from accounts.serializers import PlayerRef
from core.payloads import payload_schema
from core.schema import STREAM_EXTENSION, ConstField
from games.shapes import (
    REFUNDS_HELP,
    RULES,
    AcceptRecord,
    ChallengeRecord,
    ChipMove,
    CommonPoolBidRecord,
    ExactRecord,
    PassRecord,
    PokerDiceBidRecord,
    RerollRecord,
    ShowRerollRecord,
    round_record,
    seat_map,
    union,
)

# --- match events ---------------------------------------------------------------------


class MatchCreatedData(serializers.Serializer):
    type = ConstField("match_created")
    ruleset = serializers.CharField()
    rules = RULES
    max_players = serializers.IntegerField()
    buy_in = serializers.IntegerField()
    ante = serializers.IntegerField()


class PlayerJoinedData(serializers.Serializer):
    type = ConstField("player_joined")
    seat = serializers.IntegerField()
    player = PlayerRef()


class PlayerLeftData(serializers.Serializer):
    type = ConstField("player_left")
    seat = serializers.IntegerField()
    player = PlayerRef()
    reason = serializers.CharField(
        required=False,
        help_text="e.g. insufficient_chips (a person short of the buy-in at the start), "
        "house_bankroll_insufficient (a bot the house's bankroll no longer covers), "
        "bot_not_staked (a bot the house never stakes, seated before that rule).",
    )


class CreatorChangedData(serializers.Serializer):
    type = ConstField("creator_changed")
    seat = serializers.IntegerField()
    player = PlayerRef()


class SeatedPlayer(serializers.Serializer):
    seat = serializers.IntegerField()
    player = PlayerRef()


class MatchStartedData(serializers.Serializer):
    type = ConstField("match_started")
    seats = SeatedPlayer(many=True)


class MatchAbortedData(serializers.Serializer):
    type = ConstField("match_aborted")
    reason = serializers.CharField()
    chips = ChipMove(many=True, required=False, help_text="Refunds.")
    refunds = seat_map(serializers.IntegerField(), f"{REFUNDS_HELP} With `chips`.", required=False)
    round = round_record(required=False, help_text="The round in play, revealed.")


class CommonPoolRoundStartedData(serializers.Serializer):
    type = ConstField("round_started")
    number = serializers.IntegerField()
    opener_seat = serializers.IntegerField()
    dice_counts = seat_map(serializers.IntegerField(), "Dice per live seat.")
    roll_off = serializers.ListField(
        child=serializers.DictField(child=serializers.IntegerField()), required=False
    )
    palifico = serializers.BooleanField(required=False, help_text="true: a palifico round.")


class PokerDiceRoundStartedData(serializers.Serializer):
    type = ConstField("round_started")
    number = serializers.IntegerField()
    opener_seat = serializers.IntegerField(help_text="Player one.")
    lives = seat_map(serializers.IntegerField())


class DiceCommittedData(serializers.Serializer):
    type = ConstField("dice_committed")
    round = serializers.IntegerField()
    dice_commitments = seat_map(serializers.CharField())


class RoundFinishedData(serializers.Serializer):
    type = ConstField("round_finished")
    round = round_record()


class RoundVoidedData(serializers.Serializer):
    type = ConstField("round_voided")
    number = serializers.IntegerField()
    seat = serializers.IntegerField(help_text="Who forfeited.")
    round = round_record()


class DiceLostData(serializers.Serializer):
    type = ConstField("dice_lost")
    seat = serializers.IntegerField()
    count = serializers.IntegerField()
    dice_left = serializers.IntegerField()


class DiceGainedData(DiceLostData):
    type = ConstField("dice_gained")


class LifeLostData(serializers.Serializer):
    type = ConstField("life_lost")
    seat = serializers.IntegerField()
    count = serializers.IntegerField()
    lives_left = serializers.IntegerField()


class PlayerOutData(serializers.Serializer):
    type = ConstField("player_out")
    seat = serializers.IntegerField()
    reason = serializers.ChoiceField(choices=["dice", "lives", "forfeit"])


class MatchFinishedData(serializers.Serializer):
    type = ConstField("match_finished")
    winner_seats = serializers.ListField(child=serializers.IntegerField())
    elimination_order = serializers.ListField(child=serializers.IntegerField())
    placements = seat_map(serializers.IntegerField(), "Place per seat (1 = best).")
    loser_seat = serializers.IntegerField(required=False, help_text="Poker dice.")


class TurnTimedOutData(serializers.Serializer):
    type = ConstField("turn_timed_out")
    seat = serializers.IntegerField()
    policy = serializers.ChoiceField(choices=["auto", "challenge", "forfeit"])
    consecutive = serializers.IntegerField()
    late_ms = serializers.IntegerField()


class PlayerResignedData(serializers.Serializer):
    type = ConstField("player_resigned")
    seat = serializers.IntegerField(help_text="Who resigned; their forfeit follows.")


class ChatData(serializers.Serializer):
    type = ConstField("chat")
    message_id = serializers.IntegerField()
    author = PlayerRef(required=False, help_text="Absent once moderators hid the message.")
    text = serializers.CharField(required=False, help_text="Absent once hidden.")
    hidden = serializers.BooleanField(required=False, help_text="True once hidden.")


class AbortProposedData(serializers.Serializer):
    type = ConstField("abort_proposed")
    seat = serializers.IntegerField(help_text="Who proposes to abort (round 1 only).")
    agreed_seats = serializers.ListField(
        child=serializers.IntegerField(), help_text="The seats agreeing so far (bots at once)."
    )


class AbortAgreedData(AbortProposedData):
    type = ConstField("abort_agreed")


class AbortWithdrawnData(serializers.Serializer):
    type = ConstField("abort_withdrawn")
    seat = serializers.IntegerField(help_text="Who withdrew or declined: the proposal is over.")


class VictoryClaimedData(serializers.Serializer):
    type = ConstField("victory_claimed")
    seat = serializers.IntegerField(help_text="Who claims the win; the forfeits follow.")
    gone_seats = serializers.ListField(child=serializers.IntegerField())


class RematchOfferedData(serializers.Serializer):
    type = ConstField("rematch_offered")
    seat = serializers.IntegerField()
    accepted_seats = serializers.ListField(
        child=serializers.IntegerField(), help_text="The seats accepting so far (bots at once)."
    )
    expires_at = serializers.DateTimeField()


class RematchAcceptedData(RematchOfferedData):
    type = ConstField("rematch_accepted")


class RematchDeclinedData(serializers.Serializer):
    type = ConstField("rematch_declined")
    seat = serializers.IntegerField(help_text="Who declined or withdrew: the offer is over.")


class RematchStartedData(serializers.Serializer):
    type = ConstField("rematch_started")
    match_id = serializers.IntegerField(help_text="The new match.")


def _either(name: str, pool: type, poker: type) -> PolymorphicProxySerializer:
    return PolymorphicProxySerializer(
        component_name=name, serializers=[pool, poker], resource_type_field_name=None
    )


# Every match event type and its payload, the `data` of its entry in the log (where
# `data.type` repeats the entry's `type`): the one registry of match events.
MATCH_EVENTS: dict[str, serializers.Serializer] = {
    "match_created": MatchCreatedData,
    "player_joined": PlayerJoinedData,
    "player_left": PlayerLeftData,
    "creator_changed": CreatorChangedData,
    "match_started": MatchStartedData,
    "match_aborted": MatchAbortedData,
    "round_started": _either(
        "RoundStartedData", CommonPoolRoundStartedData, PokerDiceRoundStartedData
    ),
    "dice_committed": DiceCommittedData,
    "bid": _either("BidData", CommonPoolBidRecord, PokerDiceBidRecord),
    "show_reroll": ShowRerollRecord,
    "pass": PassRecord,
    "exact": ExactRecord,
    "accept": AcceptRecord,
    "reroll": RerollRecord,
    "challenge": ChallengeRecord,
    "round_finished": RoundFinishedData,
    "round_voided": RoundVoidedData,
    "dice_lost": DiceLostData,
    "dice_gained": DiceGainedData,
    "life_lost": LifeLostData,
    "player_out": PlayerOutData,
    "match_finished": MatchFinishedData,
    "turn_timed_out": TurnTimedOutData,
    "player_resigned": PlayerResignedData,
    "chat": ChatData,
    "abort_proposed": AbortProposedData,
    "abort_agreed": AbortAgreedData,
    "abort_withdrawn": AbortWithdrawnData,
    "victory_claimed": VictoryClaimedData,
    "rematch_offered": RematchOfferedData,
    "rematch_accepted": RematchAcceptedData,
    "rematch_declined": RematchDeclinedData,
    "rematch_started": RematchStartedData,
}


def _event_envelope(kind: str, data: serializers.Serializer) -> type[serializers.Serializer]:
    name = "".join(part.title() for part in kind.split("_")) + "Event"
    fields = {
        "seq": serializers.IntegerField(),
        "type": ConstField(kind),
        "data": data if isinstance(data, PolymorphicProxySerializer) else data(),
        "created_at": serializers.DateTimeField(),
    }
    return type(name, (serializers.Serializer,), fields)


EVENT = union(
    "Event",
    "type",
    {kind: _event_envelope(kind, data) for kind, data in MATCH_EVENTS.items()},
    many=True,
)


class EventsOutput(serializers.Serializer):
    events = EVENT
    last_seq = serializers.IntegerField(help_text="Send as `after` in the next call.")


# --- account events -------------------------------------------------------------------


class AccountPayload:
    """An account event's payload: a frozen dataclass registered with `account_event`."""

    type: ClassVar[str]


ACCOUNT_EVENTS: dict[str, type[AccountPayload]] = {}


def account_event(name: str) -> Callable[[type], type]:
    """Registers a payload dataclass as the account event `name`."""

    def register(cls: type) -> type:
        cls.type = name
        payload = dataclass(frozen=True, slots=True)(cls)  # slots: a new class
        ACCOUNT_EVENTS[name] = payload
        return payload

    return register


MatchId = Annotated[int, "The match: `GET /api/v1/matches/{match_id}/`."]
YourSeat = Annotated[int, "Your seat in it."]
ChallengeId = Annotated[int, "The challenge: `GET /api/v1/challenges/{challenge_id}/`."]


@account_event("match_started")
class MatchStarted(AccountPayload):
    """A match you are seated at started."""

    match_id: MatchId
    seat: YourSeat


@account_event("your_turn")
class YourTurn(AccountPayload):
    """A turn of yours began (once per turn, not again for its steps)."""

    match_id: MatchId
    seat: YourSeat
    version: Annotated[int, "The match's version: send it as `expected_version`."]
    turn_deadline: Annotated[datetime | None, "When the timeout policy plays for you."]
    seat_stream: Annotated[
        str, "Your seat's stream of this match: its states carry your dice and legal actions."
    ]


@account_event("match_finished")
class MatchFinished(AccountPayload):
    """A match you were seated at ended: finished by play, or aborted (by a moderator or
    by the players' agreement)."""

    match_id: MatchId
    seat: YourSeat
    status: Literal["finished", "aborted"]
    winner_seats: Annotated[list[int], "Empty when aborted."]


@account_event("challenge_received")
class ChallengeReceived(AccountPayload):
    """A player challenged you: accept or decline before `expires_at`."""

    challenge_id: ChallengeId
    challenger: Annotated[str, "The challenger's username."]
    challenger_is_bot: Annotated[bool, "Whether the challenger's account is a bot's."]
    ruleset: str
    turn_seconds: int
    buy_in: int
    ante: int
    expires_at: datetime


@account_event("challenge_accepted")
class ChallengeAccepted(AccountPayload):
    """Everyone accepted a challenge of yours: its match has started."""

    challenge_id: ChallengeId
    match_id: MatchId


@account_event("challenge_declined")
class ChallengeDeclined(AccountPayload):
    """A challenged player declined: the challenge is over for everyone."""

    challenge_id: ChallengeId


@account_event("challenge_cancelled")
class ChallengeCancelled(AccountPayload):
    """The challenger withdrew the challenge."""

    challenge_id: ChallengeId


@account_event("challenge_expired")
class ChallengeExpired(AccountPayload):
    """Nobody answered in time: the challenge is over."""

    challenge_id: ChallengeId


@account_event("seek_matched")
class SeekMatched(AccountPayload):
    """Quick play paired your seek: its match has started."""

    seek_id: Annotated[int, "Your seek."]
    match_id: MatchId
    ruleset: str


@account_event("rematch_offered")
class RematchOffered(AccountPayload):
    """A player of a finished match of yours offers a rematch: accept or decline before
    `expires_at` (`POST /api/v1/matches/{match_id}/rematch/`)."""

    match_id: Annotated[int, "The finished match: `GET /api/v1/matches/{match_id}/`."]
    seat: YourSeat
    offered_by: Annotated[str, "The offering player's username."]
    expires_at: datetime


TournamentId = Annotated[int, "The tournament: `GET /api/v1/tournaments/{tournament_id}/`."]


@account_event("tournament_starting")
class TournamentStarting(AccountPayload):
    """A tournament you entered starts: its first tables follow (`tournament_table`)."""

    tournament_id: TournamentId
    name: str
    entrants: Annotated[int, "How many play."]
    pool: Annotated[int, "The prize pool, in chips."]


@account_event("tournament_table")
class TournamentTable(AccountPayload):
    """Your table of a tournament's stage is ready and has started: play its match."""

    tournament_id: TournamentId
    stage: Annotated[int, "The stage, from 1."]
    final: Annotated[bool, "Whether this table decides the places."]
    match_id: MatchId
    seat: YourSeat


@account_event("tournament_finished")
class TournamentFinished(AccountPayload):
    """A tournament you entered is over: your place and your prize (0 when unpaid)."""

    tournament_id: TournamentId
    place: Annotated[int, "1 = the winner."]
    prize: Annotated[int, "Chips paid into your wallet."]


@account_event("tournament_cancelled")
class TournamentCancelled(AccountPayload):
    """A tournament you entered was cancelled (too few entrants, or a moderator): your
    entry was refunded in full."""

    tournament_id: TournamentId
    reason: str
    refund: Annotated[int, "Chips given back to your wallet."]


# --- the schema -----------------------------------------------------------------------

WEBHOOK_SIGNATURE_HELP = (
    'Headers: `X-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` (reject '
    "old `t` and compare in constant time), `X-Delivery-Id`. Any 2xx answer counts as "
    "delivered; anything else is retried with backoff (6 attempts). Redirects are not "
    "followed."
)
_DATE_TIME = {"type": "string", "format": "date-time"}


def _title(name: str) -> str:
    return "".join(part.title() for part in name.split("_"))


def _ref(component: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{component}"}


def _account_components() -> dict[str, dict[str, Any]]:
    """Each account event as the account stream sends it (`<T>AccountEvent`) and as a
    webhook POSTs it (`<T>Webhook`), and the two unions."""
    schemas: dict[str, dict[str, Any]] = {}
    for name, payload in ACCOUNT_EVENTS.items():
        const = {"type": "string", "const": name}
        schemas[f"{_title(name)}AccountEvent"] = payload_schema(
            payload,
            extra={
                "id": {"type": "integer", "description": "Increasing per account."},
                "type": const,
                "created_at": _DATE_TIME,
            },
        )
        schemas[f"{_title(name)}Webhook"] = payload_schema(
            payload, extra={"event": const, "created_at": _DATE_TIME}
        )
    for union_name, suffix, key in (
        ("AccountEvent", "AccountEvent", "type"),
        ("WebhookPayload", "Webhook", "event"),
    ):
        members = {name: f"#/components/schemas/{_title(name)}{suffix}" for name in ACCOUNT_EVENTS}
        schemas[union_name] = {
            "oneOf": [{"$ref": ref} for ref in members.values()],
            "discriminator": {"propertyName": key, "mapping": members},
        }
    return schemas


def _webhooks() -> dict[str, dict[str, Any]]:
    return {
        name: {
            "post": {
                "operationId": f"webhook_{name}",
                "summary": (payload.__doc__ or name).split(":")[0].strip().rstrip("."),
                "description": f"{' '.join((payload.__doc__ or '').split())} "
                f"{WEBHOOK_SIGNATURE_HELP}",
                "tags": ["webhooks"],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _ref(f"{_title(name)}Webhook")}},
                },
                "responses": {"2XX": {"description": "Delivered."}},
            }
        }
        for name, payload in ACCOUNT_EVENTS.items()
    }


def _stream_message(name: str, data_component: str) -> dict[str, Any]:
    """One Server-Sent Events message by its fields, `data` being JSON text whose
    parsed value follows `data_component`."""
    return {
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "Resume after it with `Last-Event-ID`."},
            "event": {"type": "string", "const": name},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": _ref(data_component),
            },
        },
        "required": ["id", "event", "data"],
    }


def _stream_schema(kind: str) -> dict[str, Any]:
    if kind == "match":
        messages = [_stream_message(n, f"{_title(n)}Event") for n in MATCH_EVENTS]
    elif kind == "seat":
        messages = [_stream_message("state", "Match")]
    else:
        messages = [_stream_message(n, f"{_title(n)}AccountEvent") for n in ACCOUNT_EVENTS]
    return {
        "description": "One message per event: `id`, `event` (the type) and `data` (the "
        "event as JSON), typed by `event`. Comments (`: heartbeat`) carry no event.",
        "oneOf": messages,
    }


def add_event_schemas(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular hook: the account events' components, the `webhooks` section,
    and each stream's messages typed per `event:` name, all from this registry."""
    result.setdefault("components", {}).setdefault("schemas", {}).update(_account_components())
    result["webhooks"] = _webhooks()
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            kind = operation.pop(STREAM_EXTENSION, None)
            if kind is None:
                continue
            content = operation["responses"]["200"].setdefault("content", {})
            content["text/event-stream"] = {"schema": _stream_schema(kind)}
    return result
