"""Many threads moving chips at once on the real PostgreSQL.

Crossing pairs (A->B while B->A), buy-ins, antes, payouts and cash-outs on shared
matches, idempotent replays and same-key races. Afterwards: the audit is clean, nothing
is negative, no deadlock (or any non-domain error) reached a caller, and every key moved
chips at most once."""

import random
import threading
from collections import Counter

import pytest
from django.db import connections

from games import stakes
from games.models import Match
from ledger import services
from ledger.errors import IdempotencyKeyReused, InsufficientChips
from ledger.models import Account, Transfer, TransferKind
from ledger.selectors import ledger_problems
from tests.factories import LobbyFactory
from tests.ledger.conftest import funded_user

THREADS = 8
OPS_PER_THREAD = 40
RACE_KEYS = 6


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_concurrent_movements_keep_the_ledger_consistent():
    users = [funded_user(400) for _ in range(6)]
    wallets = [services.wallet_for(u) for u in users]
    matches = [LobbyFactory(players=users[:4], buy_in=60, ante=2)]
    matches.append(LobbyFactory(players=users[2:], buy_in=60, ante=2))
    tables = [(match, list(match.seats.order_by("seat"))) for match in matches]
    # Same-key races: every thread tries each of these, with the same payload.
    race_payloads = {
        f"race:{k}": (k % len(wallets), (k + 1) % len(wallets), 5 + k) for k in range(RACE_KEYS)
    }

    barrier = threading.Barrier(THREADS)
    lock = threading.Lock()
    unexpected: list[BaseException] = []
    domain_errors: Counter = Counter()
    moved_by_key: Counter = Counter()
    replays: list[tuple[int, int]] = []  # (original id, id returned by the replay)

    def worker(n: int) -> None:
        rng = random.Random(n)
        done: list[tuple[str, int, int, int, int]] = []  # key, i, j, amount, transfer id
        try:
            barrier.wait()
            for step in range(OPS_PER_THREAD):
                roll = rng.random()
                try:
                    if roll < 0.45:  # crossing pairs among a few wallets
                        i = rng.randrange(3)
                        j = (i + 1) % 3 if rng.random() < 0.5 else (i + 2) % 3
                        amount, key = rng.randint(1, 25), f"t:{n}:{step}"
                        t = services.transfer(
                            debit=wallets[i],
                            credit=wallets[j],
                            amount=amount,
                            kind=TransferKind.REFUND,
                            idempotency_key=key,
                        )
                        done.append((key, i, j, amount, t.pk))
                        with lock:
                            moved_by_key[key] += not t.replayed
                    elif roll < 0.55 and done:  # replay one of ours
                        key, i, j, amount, first_id = rng.choice(done)
                        t = services.transfer(
                            debit=wallets[i],
                            credit=wallets[j],
                            amount=amount,
                            kind=TransferKind.REFUND,
                            idempotency_key=key,
                        )
                        with lock:
                            replays.append((first_id, t.pk if t.replayed else -1))
                    elif roll < 0.65:  # race everyone on a shared key
                        key = rng.choice(list(race_payloads))
                        i, j, amount = race_payloads[key]
                        t = services.transfer(
                            debit=wallets[i],
                            credit=wallets[j],
                            amount=amount,
                            kind=TransferKind.REFUND,
                            idempotency_key=key,
                        )
                        with lock:
                            moved_by_key[key] += not t.replayed
                    else:  # match traffic on shared tables
                        match, seats = rng.choice(tables)
                        seat = rng.choice(seats)
                        action = rng.randrange(4)
                        if action == 0:
                            stakes.buy_in(seat=seat, amount=60)
                        elif action == 1:
                            stakes.ante_round(
                                match=match, round_number=rng.randint(1, 6), seats=seats, ante=2
                            )
                        elif action == 2:
                            stakes.round_pot_payout(
                                match=match, round_number=rng.randint(1, 6), seat=seat
                            )
                        else:
                            stakes.cash_out(seat=seat)
                except (InsufficientChips, IdempotencyKeyReused) as exc:
                    with lock:
                        domain_errors[exc.code] += 1
        except BaseException as exc:
            with lock:
                unexpected.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a worker hung"
    assert unexpected == [], unexpected  # no deadlock or other database error escaped

    # Every key moved chips at most once; every replay returned the first transfer.
    assert all(count == 1 for count in moved_by_key.values()), moved_by_key
    assert replays and all(first == got for first, got in replays), replays
    for key in race_payloads:
        assert Transfer.objects.filter(idempotency_key=key).count() <= 1
    assert moved_by_key.total() == Transfer.objects.filter(kind=TransferKind.REFUND).count()

    # Settle both tables and audit everything.
    for match, seats in tables:
        stakes.game_pot_payout(match=match, winner_seats=[seats[0]])
        stakes.round_pot_payout(match=match, round_number=7, seat=seats[1])
        stakes.match_cash_out(match=match)
        Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    assert ledger_problems() == []
    assert not Account.objects.exclude(kind="issuer").filter(balance__lt=0).exists()
    assert Transfer.objects.filter(kind=TransferKind.BUY_IN).count() > 0
