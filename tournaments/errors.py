"""Every error of tournaments, declared once with its code and status (`core.errors`)."""

from core.errors import ConflictError, NotFoundError, PermissionDeniedError


class TournamentNotFound(NotFoundError):
    pass


class RegistrationClosed(ConflictError):
    """The tournament started, finished or was cancelled: its entrants are settled."""

    code = "registration_closed"


class TournamentFull(ConflictError):
    code = "tournament_full"


class AlreadyRegistered(ConflictError):
    code = "already_registered"


class NotRegistered(ConflictError):
    code = "not_registered"


class BotsNotAllowed(PermissionDeniedError):
    """The creator did not let bots enter: neither the server's nor bot accounts."""

    code = "bots_not_allowed"


class NotTournamentCreator(PermissionDeniedError):
    code = "not_creator"


class TournamentOver(ConflictError):
    """A finished or cancelled tournament cannot be cancelled."""

    code = "tournament_over"
