"""Webhook secrets at rest: Fernet (AES-128-CBC with HMAC-SHA256, from `cryptography`)
under the keys in WEBHOOK_SECRET_KEYS. The first key seals; every key opens, so a new key
goes first and the old ones stay listed until `rotate_webhook_secrets` has resealed every
row with the new one. A database dump alone then reveals no secret."""

import base64
import hashlib
from functools import cache

from cryptography.fernet import Fernet, MultiFernet
from django.conf import settings


def _fernet_key(key: str) -> bytes:
    """A Fernet key derived from a configured key of any form (a high-entropy secret, so
    one SHA-256 is enough; the label keeps it distinct from other uses of the same key)."""
    digest = hashlib.sha256(b"liarsdice webhook secrets\0" + key.encode()).digest()
    return base64.urlsafe_b64encode(digest)


@cache
def _box(keys: tuple[str, ...]) -> MultiFernet:
    return MultiFernet([Fernet(_fernet_key(key)) for key in keys])


def _current() -> MultiFernet:
    return _box(tuple(settings.WEBHOOK_SECRET_KEYS))


def seal(secret: str) -> str:
    """`secret` encrypted (and authenticated) under the first key, as text."""
    return _current().encrypt(secret.encode()).decode()


def unseal(sealed: str) -> str:
    """The secret back; `cryptography.fernet.InvalidToken` if no configured key opens it."""
    return _current().decrypt(sealed.encode()).decode()


def reseal(sealed: str) -> str:
    """`sealed` re-encrypted under the first key (for key rotation)."""
    return _current().rotate(sealed.encode()).decode()
