"""Throttles with atomic counters in Redis (core.ratelimit), so limits hold across every
web process and under concurrent requests; each reports its numbers in the response's
rate-limit headers (core.throttling)."""

import hashlib
import logging
import unicodedata

import redis
from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from core import ratelimit
from core.throttling import QuotaThrottle, record, recorded

logger = logging.getLogger(__name__)


class PerUserThrottle(QuotaThrottle):
    scope = "user"

    def get_cache_key(self, request: Request, view: object) -> str | None:
        if not request.user or not request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class PlayerSearchThrottle(PerUserThrottle):
    """Searches for players by name per account: enough to type a name, too few to walk
    the whole player list quickly."""

    scope = "player_search"


class PerIpAnonThrottle(QuotaThrottle):
    scope = "anon"

    def get_cache_key(self, request: Request, view: object) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class PerIpThrottle(QuotaThrottle):
    def get_cache_key(self, request: Request, view: object) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class RegisterIpThrottle(PerIpThrottle):
    """Accounts created per address. A registration counts when it starts (so concurrent
    ones cannot all slip under the limit) and is given back when it creates nothing
    (`registration_failed`): a taken name or a weak password costs no allowance. Failed
    attempts stay bounded by the per-address anonymous rate and the per-username one."""

    scope = "register_ip"


def registration_failed(request: Request) -> None:
    """The registration created no account: it no longer counts against its address."""
    quota = recorded(request._request, RegisterIpThrottle.scope)
    if quota is None:
        return
    try:
        record(request._request, ratelimit.release(quota))
    except redis.exceptions.RedisError:
        # The failed registration's own answer matters more than giving its count back.
        logger.warning("registration count not given back")


class LoginIpThrottle(PerIpThrottle):
    scope = "login_ip"


def _username_ident(request: Request) -> str | None:
    """A fixed-length key for the body's username, one for spellings that differ only in
    case or Unicode form: a raw name could be of any length and hold characters the
    cache cannot take."""
    username = request.data.get("username") if isinstance(request.data, dict) else None
    if not isinstance(username, str) or not username:
        return None
    normalized = unicodedata.normalize("NFKC", username).casefold()
    return hashlib.sha256(normalized.encode("utf-8", "surrogatepass")).hexdigest()


class RegisterUsernameThrottle(QuotaThrottle):
    """Limits attempts at one username, whichever addresses they come from."""

    scope = "register_username"

    def get_cache_key(self, request: Request, view: object) -> str | None:
        ident = _username_ident(request)
        if ident is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": ident}


class LoginBackoffThrottle(BaseThrottle):
    """Slows password guessing at one account from one address, without locking the
    owner out from another: LOGIN_FREE_ATTEMPTS attempts per (username, address) pass at
    once, then each must wait twice as long as the one before (1 s, 2 s, 4 s, ... up to
    LOGIN_BACKOFF_MAX_SECONDS). A successful login clears the count (`login_succeeded`);
    it is forgotten LOGIN_ATTEMPT_MEMORY_SECONDS after the last attempt. The per-address
    rate (LoginIpThrottle) still caps guesses spread over many usernames."""

    def allow_request(self, request: Request, view: object) -> bool:
        key = login_attempts_key(request, self.get_ident(request))
        if key is None:
            return True
        self.verdict = ratelimit.backoff_attempt(
            key,
            free=settings.LOGIN_FREE_ATTEMPTS,
            max_wait_seconds=settings.LOGIN_BACKOFF_MAX_SECONDS,
            memory_seconds=settings.LOGIN_ATTEMPT_MEMORY_SECONDS,
        )
        return self.verdict.allowed

    def wait(self) -> float:
        return self.verdict.wait_seconds


def login_attempts_key(request: Request, address: str) -> str | None:
    ident = _username_ident(request)
    return None if ident is None else f"throttle_login_{ident}_{address}"


def login_succeeded(request: Request) -> None:
    """The owner got in from this address: their earlier failures there no longer count."""
    key = login_attempts_key(request, LoginBackoffThrottle().get_ident(request))
    if key is not None:
        ratelimit.backoff_reset(key)
