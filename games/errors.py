"""Every error of matches, challenges and seeks, declared once with its code and status
(`core.errors`): services and reads raise these, and each view documents the ones it can
meet with `core.schema.problems(...)`."""

from core.errors import ConflictError, DomainError, NotFoundError, PermissionDeniedError
from games import engine
from ledger.errors import HouseBankrollInsufficient

# --- matches ---------------------------------------------------------------------------


class MatchNotFound(NotFoundError):
    pass


class MatchNotOpen(ConflictError):
    code = "match_not_open"


class MatchNotActive(ConflictError):
    code = "match_not_active"


class MatchEnded(ConflictError):
    """A match already finished or aborted, for an action on a match in play or a lobby."""

    code = "match_ended"


class PlayerUnavailable(ConflictError):
    """A player of a table about to open (a challenge's, a rematch's) can no longer play:
    banned since they agreed. The answer names nobody."""

    code = "player_unavailable"


class MatchFull(ConflictError):
    code = "match_full"


class AlreadySeated(ConflictError):
    code = "already_seated"


class NotSeated(PermissionDeniedError):
    code = "not_a_player"


class NotCreator(PermissionDeniedError):
    code = "not_creator"


class BotNotStaked(ConflictError):
    """A server bot whose strategy never plays for chips (`games.stakes.STAKED_STRATEGIES`)
    asked for at a table, or an entry, with a buy-in."""

    code = "bot_not_staked"
    title = "This bot does not play for chips"


class BotStakeTooHigh(ConflictError):
    """A buy-in above what the house stakes on one bot (`HOUSE_BOT_MAX_STAKE`)."""

    code = "bot_stake_too_high"
    title = "The house does not stake a bot that high"


# Why the house refuses to stake a bot (`games.stakes.house_stake_check`): every view
# that may seat a server bot where there is a buy-in lists them.
HOUSE_STAKE_REFUSALS = (BotNotStaked, BotStakeTooHigh, HouseBankrollInsufficient)


class NoSeatForCreator(DomainError):
    """More bots asked for than the table has seats besides the creator's."""

    code = "validation_error"


class NotEnoughPlayers(ConflictError):
    code = "not_enough_players"


class StaleVersion(ConflictError):
    code = "stale_version"


class AlreadyOut(MatchNotActive):
    code = "already_out"


class MatchNotFinished(MatchNotActive):
    code = "match_not_finished"


class NotExportable(ConflictError):
    """Finished before the server kept its actions: the dice alone cannot rebuild it."""

    code = "not_exportable"


# --- chat ------------------------------------------------------------------------------


class Muted(PermissionDeniedError):
    code = "muted"


class MessageHidden(ConflictError):
    code = "message_hidden"


# --- the rules: one class per engine code ----------------------------------------------


class RulesRejected(DomainError):
    """The engine's refusal (an `IllegalAction` or `InvalidRules`), by its code."""

    title = "Not allowed by the rules"


class ActionOrRulesInvalid(RulesRejected):
    """A malformed action, or rules options the engine refuses."""

    code = engine.ErrorCode.VALIDATION_ERROR.value


class ActionNotAllowed(RulesRejected):
    code = engine.ErrorCode.ILLEGAL_ACTION.value


class InvalidBid(RulesRejected):
    code = engine.ErrorCode.INVALID_BID.value


class BidNotHigher(RulesRejected):
    code = engine.ErrorCode.BID_NOT_HIGHER.value


class NotYourTurn(RulesRejected):
    code = engine.ErrorCode.NOT_YOUR_TURN.value
    status = 409


class MatchOver(RulesRejected):
    code = engine.ErrorCode.MATCH_OVER.value
    status = 409


RULES_ERRORS: dict[str, type[RulesRejected]] = {
    cls.code: cls
    for cls in (
        ActionOrRulesInvalid,
        ActionNotAllowed,
        InvalidBid,
        BidNotHigher,
        NotYourTurn,
        MatchOver,
    )
}


def rules_error(exc: "engine.EngineError") -> RulesRejected:
    """The engine's refusal as the error of its code, with the bad fields of a malformed
    action."""
    error = RULES_ERRORS[exc.code](exc.detail)
    error.errors = exc.errors
    return error


# --- challenges and seeks --------------------------------------------------------------


class ChallengeNotFound(NotFoundError):
    pass


class ChallengeClosed(ConflictError):
    code = "challenge_closed"


class ChallengeExpired(ChallengeClosed):
    code = "challenge_expired"


class NotChallenged(PermissionDeniedError):
    code = "not_challenged"


class NotChallenger(PermissionDeniedError):
    code = "not_challenger"


class SeekNotFound(NotFoundError):
    pass


class AlreadySeeking(ConflictError):
    code = "already_seeking"


class SeekClosed(ConflictError):
    code = "seek_closed"


# --- ending by agreement, claiming, rematches ------------------------------------------


class AbortTooLate(ConflictError):
    """Abort by agreement is for round 1 only."""

    code = "abort_too_late"


class AbortNotAgreeable(ConflictError):
    """A match its players cannot abort among themselves (a tournament's table)."""

    code = "abort_not_agreeable"


class NoAbortProposal(ConflictError):
    code = "no_abort_proposal"


class AlreadyAgreed(ConflictError):
    """You agreed to this abort, or accepted this rematch, already."""

    code = "already_agreed"


class OpponentsNotGone(ConflictError):
    """Some opponent still plays their own turns: the win cannot be claimed."""

    code = "opponents_not_gone"


class NoRematchOffer(ConflictError):
    code = "no_rematch_offer"


class RematchStarted(ConflictError):
    """The rematch of this match exists already (`rematch_id`)."""

    code = "rematch_started"
