"""Processes a test owns and may kill: a redis-server of its own on a free port, and the
Procfile under scripts/supervise.py."""

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REDIS_SERVER = shutil.which("redis-server") or ""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, *, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on port {port} after {timeout} s")


class RedisServer:
    """redis-server on 127.0.0.1 from `directory`; `persistent` keeps an append-only file
    written at every command (as compose's Redis does), so a kill -9 loses nothing."""

    def __init__(self, directory: Path, *, persistent: bool = False) -> None:
        self.directory = directory
        self.directory.mkdir(parents=True, exist_ok=True)
        self.persistent = persistent
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> "RedisServer":
        persistence = ["--appendonly", "yes", "--appendfsync", "always"]
        args = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        self.proc = subprocess.Popen(
            [*args, *(persistence if self.persistent else ["--appendonly", "no"])],
            cwd=self.directory,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port)
        return self

    def kill(self) -> None:
        """kill -9: no shutdown, no save."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


class Supervised:
    """`python -m scripts.supervise` running Procfile entries, its output kept line by line."""

    def __init__(
        self, env: dict[str, str], *names: str, procfile: Path = ROOT / "Procfile"
    ) -> None:
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "scripts.supervise", "--procfile", str(procfile), *names],
            cwd=ROOT,
            env={**env, "PYTHONUNBUFFERED": "1"},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        threading.Thread(target=self._collect, daemon=True).start()

    def _collect(self) -> None:
        for line in iter(self.proc.stdout.readline, b""):
            self.lines.append(line.decode("utf-8", "replace").rstrip("\n"))

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def pids(self, name: str) -> list[int]:
        """Every pid `name` was started with, in order."""
        pattern = re.compile(rf"^supervise +\| {re.escape(name)} started \(pid (\d+)\)$")
        return [int(m.group(1)) for line in list(self.lines) if (m := pattern.match(line))]

    def wait_for_line(self, pattern: str, *, timeout: float, after: int = 0) -> int:
        """The index of the first line from `after` on matching `pattern`."""
        compiled = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for index in range(after, len(self.lines)):
                if compiled.search(self.lines[index]):
                    return index
            time.sleep(0.1)
        raise AssertionError(f"no line matching {pattern!r} in {timeout} s:\n{self.output}")

    def stop(self, timeout: float = 40) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            raise


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (dead, not yet reaped by its parent) still answers signal 0.
    status = Path(f"/proc/{pid}/stat")
    return status.exists() and status.read_text().split(") ", 1)[1][0] != "Z"


class WebServer:
    """The Procfile's web entry (as a container runs it) on a free port, with production
    settings against the test database and the test cache; `overrides` are environment
    variables such as THROTTLE_USER."""

    def __init__(self, **overrides: str) -> None:
        from django.conf import settings

        from tests.celery.conftest import database_url_for_subprocesses

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "DEBUG": "0",
            "SECRET_KEY": "test-only-secret-key-not-for-production-use-0123456789",
            "SECURE_SSL_REDIRECT": "0",
            "DATABASE_URL": database_url_for_subprocesses(),
            "REDIS_URL": settings.CACHES["default"]["LOCATION"],
            "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
            "PORT": str(self.port),
            "HOST": "127.0.0.1",
            "WEB_CONCURRENCY": "2",
            "LOG_LEVEL": "WARNING",
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            **overrides,
        }
        self.log = open(os.devnull, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "scripts.supervise", "--exec", "web"],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for_port(self.port, timeout=60)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


class PostgresCluster:
    """A PostgreSQL cluster of the test's own in `directory` (pgserver's build, as
    scripts/stack.py runs it), holding a copy of the test database's schema, so a test
    may kill it -9 without harming the suite's database. Deleted by `stop()`."""

    def __init__(self, directory: Path) -> None:
        import pgserver

        self.home = directory.parent
        self.home.chmod(0o755)  # PostgreSQL runs as another user when tests run as root
        self.bin = Path(pgserver.__file__).parent / "pginstall" / "bin"
        self.server = pgserver.get_server(directory, cleanup_mode="delete")
        self.socket_dir = self.server.get_uri().split("host=", 1)[1]

    def url(self, database: str) -> str:
        return f"postgres://postgres@/{database}?host={self.socket_dir}"

    def copy_database(self, source_url: str, name: str) -> None:
        """Creates database `name` as a copy of the one at `source_url` (schema, functions,
        triggers and rows), faster than migrating it."""
        self.server.psql(f"CREATE DATABASE {name};")
        dump = subprocess.run(
            [
                self.bin / "pg_dump",
                "--no-owner",
                "--no-privileges",
                "--disable-triggers",
                "--dbname",
                source_url,
            ],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(
            [self.bin / "psql", "--quiet", "-v", "ON_ERROR_STOP=1", "--dbname", self.url(name)],
            input=dump,
            check=True,
            stdout=subprocess.DEVNULL,
        )

    def kill(self) -> None:
        """kill -9 of the postmaster and every backend at once, as a crashed host or
        container: no shutdown checkpoint, recovery from the log at the next start."""
        import psutil

        postmaster = psutil.Process(self.server.get_pid())
        processes = [postmaster, *postmaster.children(recursive=True)]
        for process in processes:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.kill()
        psutil.wait_procs(processes, timeout=10)

    def start(self, timeout: float = 120) -> None:
        """Starts it again (after `kill`), waiting until it accepts connections."""
        try:
            self.server.ensure_postgres_running()
        except subprocess.TimeoutExpired:
            # pgserver gives pg_ctl 10 s; crash recovery on a loaded machine may take
            # longer, and the server goes on starting without it.
            deadline = time.monotonic() + timeout
            ready = [self.bin / "pg_isready", "--quiet", "--dbname", self.url("postgres")]
            while subprocess.run(ready, check=False).returncode != 0:
                assert time.monotonic() < deadline, "PostgreSQL did not come back"
                time.sleep(0.2)
            self.server.ensure_postgres_running()  # now finds it running, and keeps its pid

    def stop(self) -> None:
        self.server.cleanup()
        shutil.rmtree(self.home, ignore_errors=True)
