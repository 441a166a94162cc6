"""core.idempotency's transactions: a service's block skips its savepoint only directly inside
`all_or_nothing`, where an error rolls back the whole change anyway."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from core import idempotency
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


class Refused(Exception):
    pass


def savepoints(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if "SAVEPOINT" in q["sql"]]


def test_directly_inside_all_or_nothing_a_service_block_takes_no_savepoint():
    user = PlayerFactory()
    with (
        idempotency.all_or_nothing(),
        CaptureQueriesContext(connection) as queries,
        idempotency.service_atomic(),
    ):
        type(user).objects.filter(pk=user.pk).update(first_name="inside")
    assert savepoints(queries) == []
    user.refresh_from_db()
    assert user.first_name == "inside"


def test_an_error_there_rolls_back_the_whole_change():
    user = PlayerFactory(first_name="before")
    with pytest.raises(Refused), idempotency.all_or_nothing():
        type(user).objects.filter(pk=user.pk).update(first_name="outer")
        with idempotency.service_atomic():
            type(user).objects.filter(pk=user.pk).update(first_name="inner")
            raise Refused
    user.refresh_from_db()
    assert user.first_name == "before"
    # The connection is usable afterwards (the test's own transaction is not poisoned).
    assert type(user).objects.filter(pk=user.pk).exists()


@pytest.mark.parametrize("outer", ["plain", "nested_in_all_or_nothing"])
def test_elsewhere_a_service_block_keeps_its_savepoint(outer):
    """A caller that catches the service's error goes on with its own transaction."""
    user = PlayerFactory(first_name="before")
    outermost = idempotency.all_or_nothing() if outer != "plain" else transaction.atomic()
    # A caller's own block between them.
    with outermost, transaction.atomic():
        with CaptureQueriesContext(connection) as queries:
            try:
                with idempotency.service_atomic():
                    type(user).objects.filter(pk=user.pk).update(first_name="failed")
                    raise Refused
            except Refused:
                pass
        type(user).objects.filter(pk=user.pk).update(last_name="went on")
    assert savepoints(queries)
    user.refresh_from_db()
    assert (user.first_name, user.last_name) == ("before", "went on")
