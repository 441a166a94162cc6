"""Ledger throughput: the `transfer` service against the same SQL issued raw through psycopg.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/ledger.py

Creates a scratch database next to DATABASE_URL's (dropped at the end), migrates it,
funds a set of wallets, then moves 1 chip between random wallets (crossing pairs
included) for a fixed time: single-threaded, then with 8 concurrent writer processes.
Both sides run the statements of one transfer: BEGIN; SELECT ... ORDER BY id FOR UPDATE;
INSERT ... ON CONFLICT DO NOTHING RETURNING id (the trigger moves the balances); COMMIT.
The ratio service/raw is the figure that counts (goal: at least 0.5).
"""

import argparse
import multiprocessing as mp
import os
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LOCK_SQL = (
    "SELECT id, kind, balance FROM ledger_account WHERE id IN (%s, %s) ORDER BY id FOR UPDATE"
)
INSERT_SQL = (
    "INSERT INTO ledger_transfer (debit_id, credit_id, amount, kind, scope, round_number,"
    " actor_id, reason, idempotency_key, debit_balance_after, credit_balance_after,"
    " created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
    " ON CONFLICT (idempotency_key) DO NOTHING RETURNING id"
)


def scratch_url(base_url: str, name: str) -> str:
    parts = urlsplit(base_url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    import django

    django.setup()


# --------------------------------------------------------------------------- workers


def service_worker(tag: str, wallet_ids: list[int], seconds: float, start, out) -> None:
    from django.db import connections

    from ledger import services
    from ledger.models import Account

    wallets = list(Account.objects.filter(pk__in=wallet_ids).order_by("pk"))
    rng = random.Random(tag)
    start.wait()
    deadline, count = time.perf_counter() + seconds, 0
    while time.perf_counter() < deadline:
        a, b = rng.sample(wallets, 2)
        services.transfer(
            debit=a, credit=b, amount=1, kind="refund", idempotency_key=f"svc:{tag}:{count}"
        )
        count += 1
    connections.close_all()
    out.put(count)


def raw_worker(tag: str, url: str, wallet_ids: list[int], seconds: float, start, out) -> None:
    rng = random.Random(tag)
    with psycopg.connect(url) as conn:
        start.wait()
        deadline, count = time.perf_counter() + seconds, 0
        while time.perf_counter() < deadline:
            a, b = rng.sample(wallet_ids, 2)
            with conn.cursor() as cur:
                cur.execute(LOCK_SQL, [a, b])
                locked = {row[0]: row[2] for row in cur.fetchall()}
                if locked[a] < 1:
                    raise RuntimeError("overdraft")
                cur.execute(
                    INSERT_SQL,
                    [
                        a,
                        b,
                        1,
                        "refund",
                        "",
                        None,
                        None,
                        "",
                        f"raw:{tag}:{count}",
                        locked[a] - 1,
                        locked[b] + 1,
                        datetime.now(UTC),
                    ],
                )
                cur.fetchone()
            conn.commit()
            count += 1
    out.put(count)


def run(kind: str, writers: int, seconds: float, url: str, wallet_ids: list[int]) -> float:
    """Transfers per second over all writers (separate processes, started together)."""
    ctx = mp.get_context("fork")
    start, out = ctx.Barrier(writers + 1), ctx.Queue()
    procs = []
    for n in range(writers):
        tag = f"{kind}{writers}-{n}"
        if kind == "service":
            args = (tag, wallet_ids, seconds, start, out)
            procs.append(ctx.Process(target=service_worker, args=args))
        else:
            args = (tag, url, wallet_ids, seconds, start, out)
            procs.append(ctx.Process(target=raw_worker, args=args))
    for p in procs:
        p.start()
    start.wait()
    began = time.perf_counter()
    total = sum(out.get() for _ in procs)
    elapsed = time.perf_counter() - began
    for p in procs:
        p.join()
        if p.exitcode:
            raise RuntimeError(f"{kind} writer failed with exit code {p.exitcode}")
    return total / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    parser.add_argument("--wallets", type=int, default=32)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds, best kept")
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    opts = parser.parse_args()

    base = os.environ.get("DATABASE_URL")
    if not base:
        sys.exit("Set DATABASE_URL to a PostgreSQL server where this user may create databases.")
    name = f"liarsdice_ledger_bench_{os.getpid()}"
    url = scratch_url(base, name)
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        setup_django(url)
        from django.core.management import call_command
        from django.db import connections

        from accounts.models import User
        from ledger import services
        from ledger.selectors import ledger_problems

        call_command("migrate", verbosity=0)
        users = User.objects.bulk_create(User(username=f"bench{n}") for n in range(opts.wallets))
        wallet_ids = []
        for user in users:
            services.signup_grant(user=user, amount=10_000_000)
            wallet_ids.append(services.wallet_for(user).pk)
        connections.close_all()  # children open their own

        print(
            f"ledger transfers/s ({opts.seconds:.0f}s each, {opts.wallets} wallets, "
            f"PostgreSQL {psycopg.connect(url).info.server_version})"
        )
        print(f"{'writers':>8} {'service':>10} {'raw SQL':>10} {'ratio':>7}")
        for writers in (1, opts.writers):
            # Alternate the two sides and keep each one's best round: commits (fsync) on a
            # shared machine are noisy, and the ratio is what counts.
            raw = svc = 0.0
            for _ in range(opts.rounds):
                raw = max(raw, run("raw", writers, opts.seconds, url, wallet_ids))
                svc = max(svc, run("service", writers, opts.seconds, url, wallet_ids))
            print(f"{writers:>8} {svc:>10.0f} {raw:>10.0f} {svc / raw:>7.2f}")

        problems = ledger_problems()
        print("ledger_check:", problems or "clean")
        connections.close_all()
    finally:
        if not opts.keep:
            with psycopg.connect(base, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
