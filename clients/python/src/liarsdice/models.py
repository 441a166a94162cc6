"""Typed views of the answers a bot reads, as the OpenAPI document (`/api/v1/schema/`)
describes them; tests/clients/test_models.py checks each against its components.

A model covering several components (the two rule families) has the union of their
fields: the fields every one of them requires have no default, the others default to
what their absence means. Fields the server adds later are ignored, not refused.
"""

from __future__ import annotations

import dataclasses
import types
from dataclasses import dataclass, field
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

T = TypeVar("T")

Action = dict[str, Any]  # what a bot sends, e.g. {"type": "bid", "quantity": 3, "face": 5}


def decode(cls: type[T], data: dict[str, Any]) -> T:
    """`data` (a decoded JSON object) as a `cls`, nested models included."""
    hints = get_type_hints(cls)
    known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    return cls(
        **{name: _convert(hints[name], value) for name, value in data.items() if name in known}
    )


def _convert(kind: Any, value: Any) -> Any:
    """`value` as the type `kind` names: models (dataclasses) decoded wherever they are
    nested, in lists, dicts' values and optional (`X | None`) fields alike."""
    if value is None:
        return None
    origin = get_origin(kind)
    if origin in (Union, types.UnionType):
        fitting = [a for a in get_args(kind) if a is not type(None) and _fits(a, value)]
        return _convert(fitting[0], value) if fitting else value
    if origin is list and isinstance(value, list):
        (item,) = get_args(kind)
        return [_convert(item, v) for v in value]
    if origin is dict and isinstance(value, dict):
        _, item = get_args(kind)
        return {k: _convert(item, v) for k, v in value.items()}
    if dataclasses.is_dataclass(kind) and isinstance(value, dict):
        return decode(kind, value)  # type: ignore[arg-type]
    return value


def _fits(kind: Any, value: Any) -> bool:
    """Whether the JSON `value` can be of type `kind` (a member of a union)."""
    origin = get_origin(kind) or kind
    if dataclasses.is_dataclass(origin) or origin is dict:
        return isinstance(value, dict)
    if origin is list:
        return isinstance(value, list)
    return origin is Any or not isinstance(value, dict | list)


@dataclass(frozen=True)
class PlayerRef:
    id: int
    username: str
    is_bot: bool


@dataclass(frozen=True)
class Seat:
    seat: int
    player: PlayerRef
    dice_count: int | None  # common pool
    lives: int | None  # poker dice
    stack: int
    status: str  # playing | out | left | aborted


@dataclass(frozen=True)
class CurrentBid:
    seat: int
    quantity: int | None = None  # common pool
    face: int | None = None
    hand: list[str | None] | None = None  # poker dice
    text: str | None = None


@dataclass(frozen=True)
class Pots:
    round: int
    game: int


@dataclass(frozen=True)
class Round:
    """The round in play, as the caller may see it (`your_dice` is only yours)."""

    number: int
    opener_seat: int
    turn_seat: int
    turn_deadline: str | None
    pots: Pots
    dice_commitments: dict[str, str]
    actions: list[dict[str, Any]]
    current_bid: CurrentBid | None
    your_dice: list[Any] | None  # faces 1-6, or poker ranks "9".."A"
    shown_dice: dict[str, Any]
    # common pool
    dice_counts: dict[str, int] = field(default_factory=dict)
    passed: list[int] = field(default_factory=list)
    must_raise: bool = False
    palifico: bool = False
    roll_off: list[dict[str, int]] | None = None
    # poker dice
    phase: str | None = None
    direction: str | None = None
    lives: dict[str, int] = field(default_factory=dict)
    shelf: list[int] | None = None
    your_hand: str | None = None  # the box in words, with your_dice


@dataclass(frozen=True)
class LegalAction:
    """One entry of `legal_actions`; the fields of its `type` and family are set."""

    type: str
    min_quantity_by_face: dict[str, int] | None = None  # common pool bid
    max_quantity: int | None = None
    can_show: bool = False
    max_show: int | None = None  # bid (before_raise), show_reroll
    target_seats: list[int] | None = None  # common pool challenge
    min_hand: list[str | None] | None = None  # poker dice bid
    needs_direction: bool = False
    max_hold: int | None = None  # poker dice reroll
    hold_required: list[int] | None = None


@dataclass(frozen=True)
class AbortProposal:
    """A standing proposal to abort the match (round 1 only)."""

    round: int  # it lapses when this round ends
    agreed_seats: list[int]


@dataclass(frozen=True)
class RematchOffer:
    """A finished match's standing rematch offer."""

    accepted_seats: list[int]
    expires_at: str


@dataclass(frozen=True)
class AbortOutcome:
    """Why an aborted match ended, and the chips each seat got back."""

    reason: str
    refunds: dict[str, int]  # by seat number


@dataclass(frozen=True)
class ShownRating:
    """A rating on the scale players see: 1500 + 20 (mu - 25), give or take 20 sigma."""

    value: int
    deviation: int
    provisional: bool  # sigma above 6: a new player's rating, written "1500?"


@dataclass(frozen=True)
class SeatResult:
    """One seat's result in a finished match."""

    seat: int
    place: int  # 1 won; equal places tie
    chips: int  # won (+) or lost (-), net of the buy-in
    rating_before: ShownRating | None  # in the match's preset; None when unrated
    rating_after: ShownRating | None
    # The share of the full rating change applied (0-1: less against provisional
    # opponents, 0 against fresh accounts); None when unrated.
    rating_weight: float | None


@dataclass(frozen=True)
class Match:
    """A match as `GET /matches/{id}/` and the seat stream answer the caller."""

    id: int
    status: str  # open | active | finished | aborted
    ruleset: str
    family: str  # common_pool | poker_dice
    rules: dict[str, Any]
    version: int
    created_by: PlayerRef
    max_players: int
    turn_seconds: int
    buy_in: int
    ante: int
    private: bool
    on_timeout: str
    max_timeouts: int
    opener_seat: int | None
    invite_code: str | None
    event_seq: int
    seats: list[Seat]
    round: Round | None
    last_round: dict[str, Any] | None
    your_seat: int | None
    legal_actions: list[LegalAction]
    winner_seats: list[int]
    rated: bool  # false: casual, no rating changes
    abort_proposal: AbortProposal | None
    rematch_offer: RematchOffer | None
    rematch_id: int | None  # the rematch, once everyone accepted: move on to it
    aborted: AbortOutcome | None  # aborted matches only
    results: list[SeatResult] | None  # once finished: each seat's place, chips, rating
    # Why a finished match moved no rating: casual | abandoned | not_played; None
    # while it runs and when ratings moved.
    unrated_reason: str | None

    @property
    def over(self) -> bool:
        return self.status in ("finished", "aborted")

    def legal(self, kind: str) -> LegalAction | None:
        """The legal action of type `kind`, or None when it may not be played now."""
        return next((a for a in self.legal_actions if a.type == kind), None)

    @property
    def your_dice(self) -> list[Any]:
        return list(self.round.your_dice or []) if self.round else []

    @property
    def dice_in_play(self) -> int:
        return sum(s.dice_count or 0 for s in self.seats if s.status == "playing")


@dataclass(frozen=True)
class Event:
    """One entry of a match's event log (`events/`, the match stream)."""

    seq: int
    type: str
    data: dict[str, Any]
    created_at: str


@dataclass(frozen=True)
class EventPage:
    events: list[Event]
    last_seq: int


@dataclass(frozen=True)
class AccountEvent:
    """One event of the account stream: `id`, `type`, `created_at`, and the payload's
    fields of its type in `data` (typed below for the ones the bot kit reads)."""

    id: int
    type: str
    created_at: str
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> AccountEvent:
        rest = {k: v for k, v in body.items() if k not in ("id", "type", "created_at")}
        return cls(id=body["id"], type=body["type"], created_at=body["created_at"], data=rest)


@dataclass(frozen=True)
class YourTurn:
    id: int
    type: str
    created_at: str
    match_id: int
    seat: int
    version: int
    turn_deadline: str | None
    seat_stream: str


@dataclass(frozen=True)
class ChallengeReceived:
    id: int
    type: str
    created_at: str
    challenge_id: int
    challenger: str
    challenger_is_bot: bool
    ruleset: str
    turn_seconds: int
    buy_in: int
    ante: int
    expires_at: str


@dataclass(frozen=True)
class Standing:
    """An entrant of a tournament: `place` once out (or at the end), `prize` then."""

    player: PlayerRef
    seed: int | None
    place: int | None
    prize: int | None
    out_in_stage: int | None


@dataclass(frozen=True)
class TournamentTable:
    number: int
    match_id: int
    status: str  # the match's
    advance: int  # how many go on; 0 at the final
    players: list[PlayerRef]


@dataclass(frozen=True)
class Stage:
    number: int
    final: bool
    finished: bool
    tables: list[TournamentTable]


@dataclass(frozen=True)
class PayoutPlace:
    place: int
    share_bp: int  # basis points of the pool
    prize: int


@dataclass(frozen=True)
class Payout:
    fixed: bool
    entrants: int
    pool: int
    places: list[PayoutPlace]
    remainder_rule: str


@dataclass(frozen=True)
class Tournament:
    """A tournament as `GET /tournaments/{id}/` (and its stream) gives it."""

    id: int
    name: str
    format: str  # sit_and_go | knockout
    status: str  # registering | running | finished | cancelled
    created_by: PlayerRef
    ruleset: str
    options: dict[str, Any]
    turn_seconds: int
    on_timeout: str
    max_timeouts: int
    rated: bool
    table_size: int
    advance: int
    seeding: str
    min_entrants: int
    max_entrants: int
    entrant_count: int
    starts_at: str | None
    buy_in: int
    fee: int
    bots_allowed: bool
    pool: int
    version: int
    cancel_reason: str
    created_at: str
    started_at: str | None
    finished_at: str | None
    standings: list[Standing]
    stages: list[Stage]
    payout: Payout

    @property
    def over(self) -> bool:
        return self.status in ("finished", "cancelled")


@dataclass(frozen=True)
class Problem:
    type: str
    title: str
    status: int
    detail: str
    code: str
    errors: list[dict[str, Any]] = field(default_factory=list)


# --- the rules in plain words (`GET /rulesets/help/`, docs/RULES.md section 5) ---------


@dataclass(frozen=True)
class OptionValueHelp:
    value: str | bool  # a choice's name, or true/false
    label: str
    text: str


@dataclass(frozen=True)
class OptionHelp:
    name: str
    label: str
    text: str
    values: list[OptionValueHelp]  # empty for a number option


@dataclass(frozen=True)
class BotStrategy:
    """A server bot one may seat (`GET /bots/`): `level` 1 is the weakest, None for the
    strategies outside the ladder (`random`, `cautious`)."""

    strategy: str
    level: int | None
    description: str
    plays_for_chips: bool  # whether the house stakes it where there is a buy-in


@dataclass(frozen=True)
class HandHelp:
    name: str
    text: str


@dataclass(frozen=True)
class FamilyHelp:
    family: str
    title: str
    basics: list[str]
    chips: list[str]
    options: list[OptionHelp]
    hands: list[HandHelp]  # poker dice, high to low
    kickers: str | None


@dataclass(frozen=True)
class PresetHelp:
    name: str
    family: str
    title: str
    summary: str
    examples: list[str]


@dataclass(frozen=True)
class RulesHelp:
    families: list[FamilyHelp]
    presets: list[PresetHelp]
