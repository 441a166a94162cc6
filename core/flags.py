"""Short-lived flags in Redis, shared by every process and read on hot paths (a token
revoked: `accounts.authentication`). One plain command each, on the rate limits' client
(`core.ratelimit`): Django's cache would build a client and pickle a value per call.
Flags live in the default cache's Redis database, under its key prefix, so tests flush
them with the cache."""

from django.conf import settings

from core.ratelimit import _client


def _key(name: str) -> str:
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    return f"{prefix}:flag:{name}"


def raise_flags(names: list[str], *, seconds: float) -> None:
    """Raises each of `names` for `seconds`."""
    with _client().pipeline(transaction=False) as pipe:
        for name in names:
            pipe.set(_key(name), b"1", px=int(seconds * 1000))
        pipe.execute()


def flag_raised(name: str) -> bool:
    return bool(_client().exists(_key(name)))
