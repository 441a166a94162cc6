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
