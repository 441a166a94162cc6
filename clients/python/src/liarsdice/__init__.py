"""A client for the Liar's Dice game server's public API (docs/API.md), and a bot kit on top.

It imports nothing from the server: it speaks only what the API promises.
"""

from liarsdice.bot import Bot, BotRunner, Seek, accept_all, accept_from_bots, accept_rulesets
from liarsdice.client import OPERATIONS, Client
from liarsdice.errors import (
    ApiError,
    IdempotencyKeyInUse,
    IllegalAction,
    InsufficientScope,
    MatchEnded,
    NotAuthenticated,
    NotFound,
    NotYourTurn,
    RateLimited,
    ServiceUnavailable,
    ValidationFailed,
    VersionConflict,
    error_for,
)
from liarsdice.models import (
    AccountEvent,
    Action,
    BotStrategy,
    Event,
    EventPage,
    LegalAction,
    Match,
    Problem,
    Round,
    RulesHelp,
    Seat,
    SeatResult,
    ShownRating,
)
from liarsdice.streams import Stream

__all__ = [
    "OPERATIONS",
    "AccountEvent",
    "Action",
    "ApiError",
    "Bot",
    "BotRunner",
    "BotStrategy",
    "Client",
    "Event",
    "EventPage",
    "IdempotencyKeyInUse",
    "IllegalAction",
    "InsufficientScope",
    "LegalAction",
    "Match",
    "MatchEnded",
    "NotAuthenticated",
    "NotFound",
    "NotYourTurn",
    "Problem",
    "RateLimited",
    "Round",
    "RulesHelp",
    "Seat",
    "SeatResult",
    "Seek",
    "ServiceUnavailable",
    "ShownRating",
    "Stream",
    "ValidationFailed",
    "VersionConflict",
    "accept_all",
    "accept_from_bots",
    "accept_rulesets",
    "error_for",
]
