"""Rematches of a finished match: offer or accept, decline."""

from games import services
from games.api.base import MatchStepApi, match_step_schema
from games.errors import (
    HOUSE_STAKE_REFUSALS,
    AlreadyAgreed,
    MatchNotFinished,
    NoRematchOffer,
    NotSeated,
    PlayerUnavailable,
    RematchStarted,
    StaleVersion,
)
from ledger.errors import InsufficientChips

_FINISHED = (NotSeated, StaleVersion, MatchNotFinished, RematchStarted)


@match_step_schema(
    tag="matches",
    summary="Offer or accept a rematch of a finished match",
    description="The first call offers (`rematch_offered`: a match event, and an "
    "account event and webhook to the other people seated); the others accept "
    "(`rematch_accepted`); the server's bots accept at once. You must cover the "
    "buy-in when you accept. When everyone has accepted, a new match starts "
    "(`rematch_started`) with the same rules, settings, stakes and `rated`, each "
    "player one seat on (seat s sits at s + 1, the last at 0); the answer is the "
    "finished match with its `rematch_id`. An offer stands for `REMATCH_TTL_SECONDS` "
    "(default 5 min).",
    errors=(
        *_FINISHED,
        AlreadyAgreed,
        InsufficientChips,
        PlayerUnavailable,
        *HOUSE_STAKE_REFUSALS,
    ),
)
class MatchRematchApi(MatchStepApi):
    def step(self, **arguments) -> services.MatchChange:
        return services.match_rematch(**arguments)


@match_step_schema(
    tag="matches",
    summary="Decline (or withdraw) the rematch offered",
    description="The offer is over for everyone (`rematch_declined`); anyone seated "
    "may offer again.",
    errors=(*_FINISHED, NoRematchOffer),
)
class MatchRematchDeclineApi(MatchStepApi):
    def step(self, **arguments) -> services.MatchChange:
        return services.match_rematch_decline(**arguments)
