import itertools

import pytest
from liarsdice import Client

from tests.celery.conftest import celery_processes  # noqa: F401  (a real worker for bots)

PASSWORD = "client-library-password-1234"
_names = itertools.count()


@pytest.fixture
def new_client():
    """Registers a fresh account on `base_url` and returns its Client (closed after)."""
    clients = []

    def make(base_url: str, prefix: str = "lib", **options) -> Client:
        client = Client(base_url, **options)
        client.register(f"{prefix}{next(_names)}_{id(clients) % 10000}", PASSWORD)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
