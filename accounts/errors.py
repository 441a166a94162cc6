"""Every error of accounts, tokens and webhooks, declared once with its code and status
(`core.errors`)."""

from core.errors import ConflictError, DomainError, InvalidInput, PermissionDeniedError


class InvalidCredentials(DomainError):
    code = "invalid_credentials"
    status = 400
    title = "Invalid credentials"


class AccountDisabled(PermissionDeniedError):
    """The right password for an account that may no longer log in (banned or closed)."""

    code = "account_disabled"
    title = "Account disabled"


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


class InsufficientScope(PermissionDeniedError):
    """The token is good but was not given the scope the operation needs."""

    code = "insufficient_scope"
    title = "Insufficient scope"

    def __init__(self, scope: str) -> None:
        super().__init__(f"This token lacks the `{scope}` scope this operation needs.")
        # RFC 6750, section 3: the challenge names the error and the scope wanted.
        self.headers = {
            "WWW-Authenticate": f'Bearer realm="api", error="insufficient_scope", scope="{scope}"'
        }


class BotForGood(ConflictError):
    """A bot account asked to become a person again."""

    code = "bot_for_good"
