"""Throttles with atomic counters in Redis (core.ratelimit), so limits hold across every
web process and under concurrent requests. Rates are read when a request arrives, not at
import time."""

import hashlib
import unicodedata

from django.conf import settings
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from core import ratelimit


class _AtomicRateThrottle(SimpleRateThrottle):
    """DRF's sliding-window throttle with the check and the count in one Redis step."""

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request: Request, view: object) -> bool:
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        self.verdict = ratelimit.hit(key, limit=self.num_requests, window_seconds=self.duration)
        return self.verdict.allowed

    def wait(self) -> float:
        return self.verdict.wait_seconds


class PerUserThrottle(_AtomicRateThrottle):
    scope = "user"

    def get_cache_key(self, request: Request, view: object) -> str | None:
        if not request.user or not request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class PerIpAnonThrottle(_AtomicRateThrottle):
    scope = "anon"

    def get_cache_key(self, request: Request, view: object) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class RegisterIpThrottle(_AtomicRateThrottle):
    scope = "register_ip"

    def get_cache_key(self, request: Request, view: object) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class LoginIpThrottle(RegisterIpThrottle):
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


class RegisterUsernameThrottle(_AtomicRateThrottle):
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
