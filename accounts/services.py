import re
import secrets
from datetime import timedelta

from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.authentication import tokens_revoked
from accounts.errors import (
    AccountDisabled,
    BotForGood,
    InvalidCredentials,
    TooManyWebhooks,
    UsernameReserved,
    UsernameTaken,
    WeakPassword,
)
from accounts.events import sessions_changed
from accounts.models import ApiToken, User, Webhook, hash_token
from accounts.scopes import SCOPES, all_scopes
from accounts.secret_box import seal
from accounts.webhooks import check_url
from core.errors import NotFoundError
from ledger.services import signup_grant

TOKEN_PREFIX = "ld_"
MAX_WEBHOOKS = 5
# The name of a login's token when the client gives none: plain repeated logins replace
# each other rather than pile up.
LOGIN_TOKEN_NAME = "login"
REGISTRATION_TOKEN_NAME = "registration"


def token_create(
    *,
    user: User,
    expires_in: timedelta | None = None,
    name: str = "",
    scopes: list[str] | None = None,
) -> tuple[ApiToken, str]:
    """Issues a new token (every scope unless `scopes` are given) and returns it with the
    raw value, which is never stored."""
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        key_hash=hash_token(raw),
        prefix=raw[:10],
        name=name,
        expires_at=timezone.now() + expires_in if expires_in else None,
        scopes=all_scopes() if scopes is None else [s for s in SCOPES if s in scopes],
    )
    return token, raw


@transaction.atomic
def token_revoke(*, token: ApiToken) -> None:
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    tokens_revoked([token.key_hash])  # no process relies on its last check any more
    sessions_changed(user_id=token.user_id)  # its open streams close


@transaction.atomic
def token_revoke_by_id(*, user: User, token_id: int) -> None:
    """Revokes one of `user`'s own tokens (NotFound for another's, or one revoked)."""
    revoked = ApiToken.objects.filter(pk=token_id, user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    if not revoked:
        raise NotFoundError(f"No token {token_id}.")
    tokens_revoked(list(ApiToken.objects.filter(pk=token_id).values_list("key_hash", flat=True)))
    sessions_changed(user_id=user.pk)


@transaction.atomic
def token_obtain(
    *,
    username: str,
    password: str,
    expires_in: timedelta | None = None,
    name: str = "",
    scopes: list[str] | None = None,
) -> tuple[ApiToken, str]:
    """A new token for a login; it replaces (revokes) the user's live tokens of the same
    name (LOGIN_TOKEN_NAME when none is given)."""
    user = authenticate(username=username, password=password)
    if user is None:
        raise _login_refusal(username, password)
    name = name or LOGIN_TOKEN_NAME
    # The user's row lock orders two logins of one name: the second revokes the first.
    # FOR NO KEY UPDATE, as games.services.locks takes users: rows that refer to the user
    # (seats, account events) are not held up by it.
    list(User.objects.select_for_update(no_key=True).filter(pk=user.pk).values_list("pk"))
    older = list(
        ApiToken.objects.filter(user=user, name=name, revoked_at__isnull=True).values_list(
            "pk", "key_hash"
        )
    )
    if older:
        ApiToken.objects.filter(pk__in=[pk for pk, _ in older]).update(revoked_at=timezone.now())
        tokens_revoked([key_hash for _, key_hash in older])
        sessions_changed(user_id=user.pk)  # the replaced tokens' open streams close
    return token_create(user=user, expires_in=expires_in, name=name, scopes=scopes)


# The server's bots are named `bot-<strategy>[-n]`; nobody may look like one (bots are
# never found by name, so this is about what other players see, not about seating).
RESERVED_USERNAME = re.compile(r"^bot[-_.]", re.IGNORECASE)


def _login_refusal(username: str, password: str) -> Exception:
    """Why a login failed: a disabled (banned or closed) account says so, but only to
    someone who knows its password; anyone else hears "wrong username or password"."""
    disabled = User.objects.filter(username=username, is_active=False).first()
    if disabled is not None and disabled.check_password(password):
        return AccountDisabled("This account is disabled: it can no longer log in.")
    return InvalidCredentials("Wrong username or password.")


def _username_taken() -> UsernameTaken:
    return UsernameTaken({"username": ["This username is taken."]})


@transaction.atomic
def user_register(
    *,
    username: str,
    password: str,
    is_bot: bool = False,
    expires_in: timedelta | None = None,
    scopes: list[str] | None = None,
) -> tuple[User, ApiToken, str]:
    """Creates an account (a bot's when `is_bot`: chosen here, for good), grants its
    starting chips and returns it with a first token."""
    if RESERVED_USERNAME.match(username):
        raise UsernameReserved(
            {
                "username": [
                    "Names starting with 'bot-' (any case, or 'bot_', 'bot.') are kept "
                    "for the server's bots."
                ]
            }
        )
    if User.objects.filter(username__iexact=username).exists():
        raise _username_taken()
    candidate = User(username=username, is_bot=is_bot)
    try:
        validate_password(password, user=candidate)
    except DjangoValidationError as exc:
        raise WeakPassword({"password": list(exc.messages)}) from exc
    candidate.set_password(password)
    try:
        with transaction.atomic():
            candidate.save()
    except IntegrityError as exc:  # a concurrent registration won the race
        raise _username_taken() from exc
    signup_grant(user=candidate, actor=candidate)
    token, raw = token_create(
        user=candidate, name=REGISTRATION_TOKEN_NAME, expires_in=expires_in, scopes=scopes
    )
    return candidate, token, raw


def user_update(*, user: User, is_bot: bool | None = None, show_chips: bool | None = None) -> User:
    """A person may become a bot, once: a bot account never turns back into a person
    (its games were a program's). Anyone may show their balance on the leaderboard by
    chips, or stop showing it (`show_chips`, off by default)."""
    fields = []
    if is_bot is not None and is_bot != user.is_bot:
        if not is_bot:
            raise BotForGood("A bot account stays a bot; register a person's account instead.")
        user.is_bot = True
        fields.append("is_bot")
    if show_chips is not None and show_chips != user.show_chips:
        user.show_chips = show_chips
        fields.append("show_chips")
    if fields:
        user.save(update_fields=fields)
    return user


def webhook_create(*, user: User, url: str, secret: str | None = None) -> tuple[Webhook, str]:
    check_url(url)
    if Webhook.objects.filter(user=user, active=True).count() >= MAX_WEBHOOKS:
        raise TooManyWebhooks(f"At most {MAX_WEBHOOKS} webhooks per account.")
    secret = secret or secrets.token_urlsafe(32)
    return Webhook.objects.create(user=user, url=url, encrypted_secret=seal(secret)), secret


def webhook_delete(*, user: User, webhook_id: int) -> None:
    deleted = Webhook.objects.filter(user=user, pk=webhook_id, active=True).update(active=False)
    if not deleted:
        raise NotFoundError(f"No webhook {webhook_id}.")


def user_deactivate(*, user: User) -> int:
    """Deactivates `user` (locked by the caller) and revokes their API tokens; the token
    check and the session backend refuse inactive users from the commit on. Returns how
    many tokens were revoked."""
    user.is_active = False
    user.save(update_fields=["is_active"])
    sessions_changed(user_id=user.pk)  # their open streams close on the commit
    now = timezone.now()
    revoked = ApiToken.objects.filter(user=user, revoked_at__isnull=True).update(revoked_at=now)
    mine = ApiToken.objects.filter(user=user, revoked_at=now)
    tokens_revoked(list(mine.values_list("key_hash", flat=True)))
    return revoked
