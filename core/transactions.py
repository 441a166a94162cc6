"""Savepoints only where an error inside may be recovered from.

A nested `transaction.atomic()` costs two round trips (SAVEPOINT, RELEASE) so that its
caller may catch an error from inside it and go on with the transaction. Some callers
never do: an idempotent API request runs its whole change in one block that any error
leaves whole and rolls back (`all_or_nothing`). A service's block directly inside one
needs no savepoint (`atomic`); anywhere else it keeps Django's.
"""

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from django.db import connection, transaction

# How deeply `all_or_nothing`'s own block is nested (Django's savepoint_ids) while it runs.
_whole_at: ContextVar[int | None] = ContextVar("all_or_nothing_at", default=None)


@contextlib.contextmanager
def all_or_nothing() -> Iterator[None]:
    """`transaction.atomic()` for a change no code inside continues after an error."""
    with transaction.atomic():
        token = _whole_at.set(len(connection.savepoint_ids))
        try:
            yield
        finally:
            _whole_at.reset(token)


def atomic() -> transaction.Atomic:
    """`transaction.atomic()` for a service: with no savepoint directly inside
    `all_or_nothing` (an error then rolls back the whole change, as it would anyway)."""
    whole_at = _whole_at.get()
    directly_inside = (
        whole_at is not None
        and connection.in_atomic_block
        and whole_at == len(connection.savepoint_ids)
    )
    return transaction.atomic(savepoint=not directly_inside)
