"""How late are turn timeouts applied? 100 matches whose human seat never acts.

    .venv/bin/python bench/timeouts.py [--matches 100] [--turn-seconds 10] [--sweep-only]

Starts its own embedded PostgreSQL and Redis in a temporary folder (as `make run` does),
migrates, runs a real Celery worker and beat, and creates the matches: an absent human
against a bot, `on_timeout=auto`, so the human is timed out `max_timeouts` (3) times and
then put out. Each `turn_timed_out` event records how late it was applied after the
deadline; the script prints p50/p99/max. `--sweep-only` schedules no deadline tasks, so
every timeout comes from the beat-driven sweep (the path for long turns and lost tasks).
Goal: p99 under 2 s.
"""

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


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


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--turn-seconds", type=int, default=10)
    parser.add_argument("--sweep-only", action="store_true")
    args = parser.parse_args()

    from scripts.stack import services

    for name in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    with (
        tempfile.TemporaryDirectory(prefix="liarsdice-timeouts-") as tmp,
        services(Path(tmp)) as env,
    ):
        env.update(
            DJANGO_SETTINGS_MODULE="config.settings.base",
            DEBUG="1",
            LOG_LEVEL="WARNING",
            SECRET_KEY="bench-only",
            SWEEP_SECONDS="1",
            BOT_THINK_SECONDS="0.2",
            TIMEOUT_TASK_MAX_ETA_SECONDS="0" if args.sweep_only else "1800",
        )
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True
        )
        os.environ.update(env)
        import django

        django.setup()
        from games import services as game_services
        from games.models import Match, MatchEvent
        from tests.factories import PlayerFactory

        worker = _start(env, "worker", "--concurrency", "2")
        beat = _start(env, "beat", "--schedule", str(Path(tmp) / "beat"))
        try:
            time.sleep(3)  # let the worker connect
            started = time.monotonic()
            ids = []
            for _ in range(args.matches):
                change = game_services.match_create(
                    user=PlayerFactory(),
                    ruleset="classic",
                    max_players=2,
                    turn_seconds=args.turn_seconds,
                    bots=["cautious"],
                    on_timeout="auto",
                )
                ids.append(change.match.pk)
            limit = started + args.turn_seconds * 4 + 120
            while time.monotonic() < limit:
                active = Match.objects.filter(pk__in=ids, status="active").count()
                if not active:
                    break
                time.sleep(1)
            elapsed = time.monotonic() - started
            late = [
                e.data["late_ms"] / 1000
                for e in MatchEvent.objects.filter(match_id__in=ids, type="turn_timed_out")
            ]
            finished = Match.objects.filter(pk__in=ids, status="finished").count()
        finally:
            _stop(worker)
            _stop(beat)

    path = "sweep only" if args.sweep_only else "deadline tasks + sweep"
    print(
        f"timeouts ({path}): {args.matches} matches, turn {args.turn_seconds} s, "
        f"{finished} finished in {elapsed:.0f} s"
    )
    if late:
        print(
            f"  {len(late)} timeouts applied, lateness after the deadline: "
            f"p50 {statistics.median(late):.3f} s  p99 {percentile(late, 0.99):.3f} s  "
            f"max {max(late):.3f} s   (goal: p99 < 2 s)"
        )
    return 0 if finished == args.matches else 1


if __name__ == "__main__":
    sys.exit(main())
