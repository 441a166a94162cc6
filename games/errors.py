from core.errors import ConflictError, DomainError, NotFoundError, PermissionDeniedError


class MatchNotOpen(ConflictError):
    code = "match_not_open"


class MatchNotActive(ConflictError):
    code = "match_not_active"


class MatchFull(ConflictError):
    code = "match_full"


class AlreadySeated(ConflictError):
    code = "already_seated"


class NotSeated(PermissionDeniedError):
    code = "not_a_player"


class NotCreator(PermissionDeniedError):
    code = "not_creator"


class StaleVersion(ConflictError):
    code = "stale_version"


class MatchNotFound(NotFoundError):
    pass


class RulesRejected(DomainError):
    """An engine IllegalAction or InvalidRules, carried with its stable code (and the
    bad fields of a malformed action)."""

    title = "Not allowed by the rules"

    def __init__(
        self, detail: str, *, code: str, status: int, errors: list[dict[str, str]] | None = None
    ) -> None:
        super().__init__(detail, code=code, status=status)
        self.errors = errors


class MatchEnded(ConflictError):
    """A match already finished or aborted, for an action on a match in play or a lobby."""

    code = "match_ended"


class MessageHidden(ConflictError):
    code = "message_hidden"
