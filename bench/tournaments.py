"""How long does a 64-entrant knockout of bots take from its start to its payout, and
what does it ask of the database per match?

    .venv/bin/python bench/tournaments.py [--entrants 64] [--table-size 4] [--advance 2]
                                          [--ruleset perudo] [--dice 5] [--workers 2]

Starts its own embedded PostgreSQL and Redis in a temporary folder (as `make run` does),
migrates, runs a real Celery worker (prefork, `--workers` processes) and beat, creates a
knockout and fills it with the server's bots (the house stakes them). From the start
(the beat starts it at its time) to the payout it times the whole, each stage, and
reads PostgreSQL's own counters (pg_stat_database: transactions, rows inserted,
updated and read) to report the database's work per match and per action.
"""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

COUNTERS = ("xact_commit", "tup_inserted", "tup_updated", "tup_fetched", "blks_hit")


def _start(env: dict, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", *args, "--loglevel", "WARNING"],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _stop(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


def _counters() -> dict[str, int]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            f"SELECT {', '.join(COUNTERS)} FROM pg_stat_database WHERE datname = current_database()"
        )
        return dict(zip(COUNTERS, cursor.fetchone(), strict=True))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=64)
    parser.add_argument("--table-size", type=int, default=4)
    parser.add_argument("--advance", type=int, default=2)
    parser.add_argument("--ruleset", default="perudo")
    parser.add_argument("--dice", type=int, default=5, help="dice per player")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=1800, help="seconds before giving up")
    args = parser.parse_args()

    from scripts.stack import services

    for name in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    with (
        tempfile.TemporaryDirectory(prefix="liarsdice-tournaments-") as tmp,
        services(Path(tmp)) as env,
    ):
        env.update(
            DJANGO_SETTINGS_MODULE="config.settings.base",
            DEBUG="1",
            LOG_LEVEL="WARNING",
            SECRET_KEY="bench-only",
            SWEEP_SECONDS="1",
            TOURNAMENT_SWEEP_SECONDS="1",
            BOT_THINK_SECONDS="0",
        )
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True
        )
        os.environ.update(env)
        import django

        django.setup()
        from django.core.management import call_command
        from django.utils import timezone

        from games.models import Match, MatchAction
        from tests.factories import PlayerFactory, fund_house
        from tournaments.models import Stage, Tournament
        from tournaments.services import tournament_add_bot, tournament_create

        creator = PlayerFactory()
        tournament = tournament_create(
            user=creator,
            name="bench",
            format=Tournament.Format.KNOCKOUT,
            ruleset=args.ruleset,
            options={"dice_per_player": args.dice},
            turn_seconds=30,
            table_size=args.table_size,
            advance=args.advance,
            min_entrants=args.entrants,
            max_entrants=args.entrants + 1,  # so the beat starts it at its time
            starts_at=timezone.now() + timedelta(seconds=15),
            buy_in=100,
            bots_allowed=True,
        )
        # Only the bots the house stakes enter where there is a buy-in, on its bankroll.
        fund_house(100 * args.entrants)
        strategies = ("hard", "expert")
        for i in range(args.entrants):
            tournament_add_bot(
                tournament_id=tournament.pk, user=creator, strategy=strategies[i % 2]
            )
        worker = _start(env, "worker", "--pool", "prefork", "--concurrency", str(args.workers))
        beat = _start(env, "beat", "--schedule", str(Path(tmp) / "beat"))
        try:
            while Tournament.objects.get(pk=tournament.pk).status == "registering":
                time.sleep(0.2)
            before, started = _counters(), time.monotonic()
            stage_ends: dict[int, float] = {}
            deadline = started + args.timeout
            while time.monotonic() < deadline:
                tournament.refresh_from_db()
                for stage in Stage.objects.filter(tournament=tournament, finished_at__isnull=False):
                    stage_ends.setdefault(stage.number, time.monotonic() - started)
                if tournament.status != "running":
                    break
                time.sleep(0.5)
            elapsed = time.monotonic() - started
            after = _counters()
        finally:
            _stop(worker)
            _stop(beat)
        matches = Match.objects.filter(tournament_table__stage__tournament=tournament)
        actions = MatchAction.objects.filter(match__in=matches).count()
        count = matches.count()
        call_command("ledger_check")

    print(
        f"knockout of {args.entrants} bots, {args.ruleset} with {args.dice} dice, tables of "
        f"{args.table_size}, top {args.advance} advance, {args.workers} worker processes: "
        f"{tournament.status} in {elapsed:.1f} s from start to payout"
    )
    previous = 0.0
    for number, at in sorted(stage_ends.items()):
        print(f"  stage {number}: ended at {at:.1f} s ({at - previous:.1f} s)")
        previous = at
    print(f"  {count} matches, {actions} actions ({actions / max(count, 1):.0f} a match)")
    for name in COUNTERS:
        delta = after[name] - before[name]
        print(
            f"  {name:>13}: {delta:>10} in all, {delta / max(count, 1):>9.0f} a match, "
            f"{delta / max(actions, 1):>6.1f} an action"
        )
    return 0 if tournament.status == "finished" else 1


if __name__ == "__main__":
    sys.exit(main())
