"""Atomic rate limits and login back-off, kept in Redis by Lua scripts.

Why Redis scripts: DRF's cache throttles read a request history, decide and write it
back, so concurrent requests all read the same history and all pass (30 registrations
at once made 25 accounts under a limit of 10). A script runs alone in Redis: checking
and counting are one step, whatever the number of web processes. Redis rather than a
PostgreSQL upsert: it is already the shared cache, answers in well under a millisecond,
and throttling every request does not add a write (and its WAL) to the database the
ledger lives in. Times come from Redis's clock, the same for every web process.

Counters live in the default cache's Redis database (so tests flush them with the
cache) under the cache's key prefix.
"""

import functools
import hashlib
import math
import secrets
from dataclasses import dataclass, replace

import redis
from django.conf import settings

# A sliding window, like DRF's: the request passes if fewer than `limit` passed in the
# last `window` ms, and is then counted under the member ARGV[3]. Returns {wait, remaining,
# reset}: wait is 0 when it passes, else the ms until the oldest counted one leaves the
# window; remaining is how many more may pass now; reset the ms until the oldest counted
# one leaves (and one more may pass). One trip gives the verdict and the headers' numbers.
_SLIDING_WINDOW = """
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local limit, window = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms - window)
local count = redis.call('ZCARD', KEYS[1])
local wait = 0
if count >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  wait = math.max(1, tonumber(oldest[2]) + window - now_ms)
  return {wait, 0, wait}
end
redis.call('ZADD', KEYS[1], now_ms, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, limit - count - 1, math.max(1, tonumber(oldest[2]) + window - now_ms)}
"""

# Growing back-off: `free` attempts pass at once; each later one must wait until the
# time the previous attempt set, 1 s after the `free`-th, then 2, 4, ... up to `cap` ms.
# An attempt counts when it starts (it is unknown yet whether it fails), so concurrent
# attempts cannot all slip through; a success deletes the key. Returns 0 when the attempt
# may go ahead, else the ms to wait.
_BACKOFF = """
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local free, cap, memory = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local attempts = tonumber(redis.call('HGET', KEYS[1], 'attempts') or '0')
local not_before = tonumber(redis.call('HGET', KEYS[1], 'not_before') or '0')
if attempts >= free and now_ms < not_before then
  return not_before - now_ms
end
attempts = attempts + 1
if attempts >= free then
  not_before = now_ms + math.floor(math.min(cap, 1000 * 2 ^ (attempts - free)))
end
redis.call('HSET', KEYS[1], 'attempts', attempts, 'not_before', not_before)
redis.call('PEXPIRE', KEYS[1], memory)
return 0
"""

_clients: dict[str, redis.Redis] = {}


def _client() -> redis.Redis:
    location = settings.CACHES["default"]["LOCATION"]
    if location not in _clients:
        # Short timeouts: with Redis unreachable a request fails fast (as a 503).
        _clients[location] = redis.Redis.from_url(
            location, socket_connect_timeout=2, socket_timeout=2
        )
    return _clients[location]


@functools.cache
def _sha1(script: str) -> str:
    return hashlib.sha1(script.encode()).hexdigest()


def _run(script: str, key: str, *args: object) -> object:
    """Runs `script` by its SHA1 (EVALSHA): a request sends a few bytes, not the whole
    script for Redis to hash again. A Redis that does not know it yet (new, restarted,
    flushed) gets it by EVAL, which also keeps it for the next time."""
    client = _client()
    try:
        return client.evalsha(_sha1(script), 1, key, *args)
    except redis.exceptions.NoScriptError:
        return client.eval(script, 1, key, *args)


def _key(name: str) -> str:
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    return f"{prefix}:ratelimit:{name}"


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    wait_seconds: float


def _verdict(wait_ms: int) -> Verdict:
    return Verdict(allowed=wait_ms == 0, wait_seconds=wait_ms / 1000)


@dataclass(frozen=True)
class Quota:
    """Where one sliding-window policy stands after a request: what the `RateLimit-Policy`
    and `RateLimit` headers say. `member` names the request's entry in the window (empty
    when it was refused, so not counted): `release` takes it back."""

    policy: str
    limit: int
    window_seconds: int
    remaining: int
    reset_seconds: int
    allowed: bool
    wait_seconds: float
    name: str
    member: str


def hit(policy: str, name: str, *, limit: int, window_seconds: int) -> Quota:
    """Counts a request against `limit` per sliding `window_seconds` under `name`; a
    refused request is not counted."""
    member = secrets.token_hex(8)
    wait_ms, remaining, reset_ms = _run(
        _SLIDING_WINDOW, _key(name), limit, window_seconds * 1000, member
    )
    return Quota(
        policy=policy,
        limit=limit,
        window_seconds=window_seconds,
        remaining=int(remaining),
        reset_seconds=math.ceil(int(reset_ms) / 1000),
        allowed=wait_ms == 0,
        wait_seconds=int(wait_ms) / 1000,
        name=name,
        member=member if wait_ms == 0 else "",
    )


def release(quota: Quota) -> Quota:
    """Takes back a counted request (one that should not have counted, known only once it
    was served); the quota as it stands then."""
    if not quota.member or not _client().zrem(_key(quota.name), quota.member):
        return quota
    return replace(quota, remaining=min(quota.limit, quota.remaining + 1), member="")


def backoff_attempt(name: str, *, free: int, max_wait_seconds: int, memory_seconds: int) -> Verdict:
    """Counts an attempt under `name` (see `_BACKOFF`); attempts are forgotten
    `memory_seconds` after the last one, or at once by `backoff_reset`."""
    wait_ms = _run(_BACKOFF, _key(name), free, max_wait_seconds * 1000, memory_seconds * 1000)
    return _verdict(int(wait_ms))


def backoff_reset(name: str) -> None:
    _client().delete(_key(name))
