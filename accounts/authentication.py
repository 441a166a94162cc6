import threading
import time
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from accounts.models import ApiToken, User, hash_token
from core import errors
from core.flags import flag_raised, raise_flags
from core.prebuilt import PrebuiltSelect, table
from ledger.models import Account, AccountKind

# Every authenticated request runs this: its SQL is built once (core.prebuilt).
TOKEN_WITH_USER = PrebuiltSelect(ApiToken, "WHERE m.key_hash = %s", related="user")
# GET /me's: the user's wallet balance comes with the token (one round trip, not two).
TOKEN_WITH_USER_AND_WALLET = PrebuiltSelect(
    ApiToken,
    "WHERE m.key_hash = %s",
    related="user",
    annotations={
        "wallet_balance": f"COALESCE((SELECT w.balance FROM {table(Account)} w"
        f" WHERE w.kind = '{AccountKind.WALLET.value}' AND w.user_id = m.user_id), 0)"
    },
)

# `last_used_at` is rewritten only when older than this: a bot's requests do not each
# cost a write.
LAST_USED_PRECISION = timedelta(minutes=1)


class TokenExpired(exceptions.AuthenticationFailed):
    default_code = errors.TokenExpired.code
    default_detail = "This token has expired; obtain a new one."


class BearerTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer <token>` against hashed, revocable, expiring tokens."""

    keyword = "Bearer"
    token_select = TOKEN_WITH_USER

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        key_hash = self._key_hash(request)
        return None if key_hash is None else self._check(key_hash)

    def _key_hash(self, request: Request) -> str | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Authorization header must be 'Bearer <token>'.")
        try:
            raw = header[1].decode("ascii")
        except UnicodeDecodeError as exc:
            raise exceptions.AuthenticationFailed("Invalid token.") from exc
        return hash_token(raw)

    def _check(self, key_hash: str) -> tuple[User, ApiToken]:
        token = self.token_select.one([key_hash])
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


class WalletBearerTokenAuthentication(BearerTokenAuthentication):
    """The bearer token check that also reads the user's wallet balance, as
    `request.auth.wallet_balance` (0 without a wallet), in the same statement."""

    token_select = TOKEN_WITH_USER_AND_WALLET


# How long a live view's process relies on a token check it made (`RememberedBearerToken
# Authentication`): no longer than `last_used_at`'s precision, so a client that only
# renews long polls still has it kept up to date.
REMEMBER_SECONDS = LAST_USED_PRECISION.total_seconds()
# Tokens checked in this process at most: a remembered token is a few hundred bytes.
REMEMBER_MAX = 50_000


@dataclass(frozen=True, slots=True)
class _Checked:
    user: User
    token: ApiToken
    at: float  # time.monotonic() when the database said the token was good


_remembered: dict[str, _Checked] = {}
_remembering = threading.Lock()  # the live views' worker threads share `_remembered`


class RememberedBearerTokenAuthentication(BearerTokenAuthentication):
    """The bearer token check of the live views, which clients renew every few seconds
    (a long poll per answer, a stream per reconnection): a token the database found good
    is relied on in this process for up to REMEMBER_SECONDS, while it has not expired and
    no revocation flagged it (`tokens_revoked`, in Redis, before the revoking request
    answers; bans revoke every token of the account). A renewal then costs one Redis read
    instead of a query, and a revoked token or a banned account is refused as at once as
    by the database."""

    def _check(self, key_hash: str) -> tuple[User, ApiToken]:
        known = _remembered.get(key_hash)
        if (
            known is not None
            and time.monotonic() - known.at < REMEMBER_SECONDS
            and (known.token.expires_at is None or known.token.expires_at > timezone.now())
            and not flag_raised(_revoked_key(key_hash))
        ):
            return known.user, known.token
        with _remembering:
            _remembered.pop(key_hash, None)
        checked_at = time.monotonic()
        user, token = super()._check(key_hash)  # raises for a revoked or expired token
        with _remembering:
            if len(_remembered) >= REMEMBER_MAX:
                _remembered.pop(next(iter(_remembered)))  # the oldest
            _remembered[key_hash] = _Checked(user, token, checked_at)
        return user, token


def _revoked_key(key_hash: str) -> str:
    return f"token_revoked:{key_hash}"


def tokens_revoked(key_hashes: list[str]) -> None:
    """Flags tokens being revoked (or an account being disabled) for the processes that
    remember token checks: at once, and again on commit, before the caller answers. Set
    before the commit, the flag only makes a process ask the database (which says the
    token is still good until then); set after it, it outlives every check made before."""

    def flag() -> None:
        # A process relies on a check for REMEMBER_SECONDS: the flag outlives any made
        # before the commit.
        raise_flags([_revoked_key(h) for h in key_hashes], seconds=2 * REMEMBER_SECONDS)

    if key_hashes:
        flag()
        # robust: a Redis error here must not skip the callbacks after it (streams closing).
        transaction.on_commit(flag, robust=True)


def token_deleted(sender: type[ApiToken], instance: ApiToken, **kwargs: object) -> None:
    """`post_delete` of a token: flagged as a revoked one is."""
    tokens_revoked([instance.key_hash])


def _touch(token: ApiToken) -> None:
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_PRECISION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
