from datetime import timedelta

from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from accounts.models import ApiToken, User, hash_token
from core.prebuilt import PrebuiltSelect

# Every authenticated request runs this: its SQL is built once (core.prebuilt).
TOKEN_WITH_USER = PrebuiltSelect(ApiToken, "WHERE m.key_hash = %s", related="user")

# `last_used_at` is rewritten only when older than this: a bot's requests do not each
# cost a write.
LAST_USED_PRECISION = timedelta(minutes=1)


class TokenExpired(exceptions.AuthenticationFailed):
    default_code = "token_expired"
    default_detail = "This token has expired; obtain a new one."


class BearerTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer <token>` against hashed, revocable, expiring tokens."""

    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Authorization header must be 'Bearer <token>'.")
        try:
            raw = header[1].decode("ascii")
        except UnicodeDecodeError as exc:
            raise exceptions.AuthenticationFailed("Invalid token.") from exc
        token = TOKEN_WITH_USER.one([hash_token(raw)])
        if token is None or token.revoked_at is not None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        if token.expires_at is not None and token.expires_at <= timezone.now():
            raise TokenExpired()
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("This account is disabled.")
        _touch(token)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return f'{self.keyword} realm="api"'


def _touch(token: ApiToken) -> None:
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_PRECISION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
