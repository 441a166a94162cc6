"""Throttles backed by the shared cache (Redis or the database), so limits hold across
every web process. Rates are read when a request arrives, not at import time."""

import hashlib
import unicodedata

from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle


class _SettingsRateThrottle(SimpleRateThrottle):
    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)


class PerUserThrottle(_SettingsRateThrottle):
    scope = "user"

    def get_cache_key(self, request: Request, view: object) -> str | None:
        if not request.user or not request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class PerIpAnonThrottle(_SettingsRateThrottle):
    scope = "anon"

    def get_cache_key(self, request: Request, view: object) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class RegisterIpThrottle(_SettingsRateThrottle):
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


class LoginUsernameThrottle(_SettingsRateThrottle):
    """Limits guesses against one account, whichever addresses they come from."""

    scope = "login_username"

    def get_cache_key(self, request: Request, view: object) -> str | None:
        ident = _username_ident(request)
        if ident is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": ident}


class RegisterUsernameThrottle(LoginUsernameThrottle):
    """Limits attempts at one username, whichever addresses they come from."""

    scope = "register_username"
