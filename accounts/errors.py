"""Every error of accounts, tokens and webhooks, declared once with its code and status
(`core.errors`)."""

from core.errors import ConflictError, DomainError, InvalidInput


class InvalidCredentials(DomainError):
    code = "invalid_credentials"
    status = 400
    title = "Invalid credentials"


class UsernameTaken(InvalidInput):
    field_code = "username_taken"


class UsernameReserved(InvalidInput):
    field_code = "username_reserved"


class WeakPassword(InvalidInput):
    field_code = "weak_password"


class WebhookRejected(DomainError):
    """A webhook URL the server will not call (not http(s), private, unresolvable...)."""

    code = "invalid_webhook_url"


class TooManyWebhooks(ConflictError):
    code = "too_many_webhooks"
