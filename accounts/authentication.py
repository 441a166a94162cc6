from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from accounts.models import ApiToken, User, hash_token


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
        token = ApiToken.objects.select_related("user").filter(key_hash=hash_token(raw)).first()
        if token is None or token.revoked_at is not None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        if token.expires_at is not None and token.expires_at <= timezone.now():
            raise TokenExpired()
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("This account is disabled.")
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return f'{self.keyword} realm="api"'
