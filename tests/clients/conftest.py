import itertools
import time

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


def play_out(ann: Client, bob: Client, match_id: int) -> None:
    """One die each: a bid, a challenge, and the match is over."""
    while True:
        for player in (ann, bob):
            state = player.match(match_id)
            if state.over:
                return
            if state.legal("challenge"):
                player.act(match_id, {"type": "challenge"}, expected_version=state.version)
            elif rule := state.legal("bid"):
                face, quantity = next(iter(rule.min_quantity_by_face.items()))
                bid = {"type": "bid", "face": int(face), "quantity": quantity}
                player.act(match_id, bid, expected_version=state.version)


def wait_for(predicate, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
