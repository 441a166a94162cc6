"""Throttles whose numbers every API response reports, as the IETF httpapi draft's
`RateLimit-Policy` and `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers):

    RateLimit-Policy: "user";q=600;w=60
    RateLimit: "user";r=598;t=41

A throttle records where its policy stands (`core.ratelimit.Quota`) on the request as it
counts it, from the same Redis step that decides; `RateLimitHeadersMiddleware` writes
the headers. Every policy that counted the request is listed (registration counts three),
so a client can watch whichever is closest to running out. A response no throttle saw (a
token refused, a permission denied, an unknown path, a body refused before any view) is
counted on its way out by the default throttles, as the request it was: refused requests
spend the same allowance, and no response leaves the API without the numbers.
"""

from django.http import HttpRequest, HttpResponse
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from core import ratelimit

RATE_LIMIT_POLICY_HEADER = "RateLimit-Policy"
RATE_LIMIT_HEADER = "RateLimit"


class QuotaThrottle(SimpleRateThrottle):
    """DRF's sliding-window throttle with the check and the count in one Redis step
    (`core.ratelimit.hit`), its numbers recorded for the response's headers. Rates are
    read when a request arrives, not at import time."""

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request: Request, view: object) -> bool:
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        self.quota = ratelimit.hit(
            self.scope, key, limit=self.num_requests, window_seconds=self.duration
        )
        record(request._request, self.quota)
        return self.quota.allowed

    def wait(self) -> float:
        return self.quota.wait_seconds


def record(request: HttpRequest, quota: ratelimit.Quota) -> None:
    """Notes where `quota`'s policy stands for this request's headers (a later note of the
    same policy replaces the earlier)."""
    if not hasattr(request, "rate_limits"):
        request.rate_limits = {}
    request.rate_limits[quota.policy] = quota


def recorded(request: HttpRequest, policy: str) -> ratelimit.Quota | None:
    return getattr(request, "rate_limits", {}).get(policy)


def needs_counting(request: HttpRequest, response: HttpResponse) -> bool:
    """An API response that no throttle counted (but not a 503: see the middleware)."""
    return (
        request.path.startswith("/api/")
        and response.status_code != 503
        and not getattr(request, "rate_limits", None)
    )


def count_unthrottled(request: HttpRequest) -> None:
    """Counts a request no view throttled against the default policies: as the user the
    API authenticated, else as an anonymous client of its address."""
    drf_request = Request(request)
    user = request.__dict__.get("user")  # set by DRF's authentication, if it ran
    if user is not None:
        drf_request.user = user
    for throttle_class in api_settings.DEFAULT_THROTTLE_CLASSES:
        throttle_class().allow_request(drf_request, None)


def add_headers(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    quotas = getattr(request, "rate_limits", {}).values()
    if quotas:
        response[RATE_LIMIT_POLICY_HEADER] = ", ".join(
            f'"{q.policy}";q={q.limit};w={q.window_seconds}' for q in quotas
        )
        response[RATE_LIMIT_HEADER] = ", ".join(
            f'"{q.policy}";r={q.remaining};t={q.reset_seconds}' for q in quotas
        )
    return response
