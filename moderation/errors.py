from core.errors import ConflictError, DomainError, PermissionDeniedError


class ModerationError(DomainError):
    code = "moderation_error"


class ReasonRequired(ModerationError):
    code = "reason_required"


class MuteInThePast(ModerationError):
    code = "invalid_until"


class NotAllowed(PermissionDeniedError):
    code = "not_allowed"


class NothingToDo(ConflictError):
    code = "nothing_to_do"


class AuditImmutable(ModerationError):
    code = "audit_immutable"


class CannotReportOneself(ModerationError):
    code = "cannot_report_oneself"
    title = "You cannot report yourself"


class NotAtThatMatch(ModerationError):
    code = "not_at_that_match"
    title = "Name a match you both played"


class AlreadyReported(ConflictError):
    code = "already_reported"
    title = "Already reported"
