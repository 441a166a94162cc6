"""Processes tests start: the web server as the Procfile runs it (`WebServer`), a
redis-server of a test's own on a free port, the Procfile under scripts/supervise.py, a
PostgreSQL cluster a test may kill."""

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

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


def database_url() -> str:
    """The test database (the one pytest-django created) as a DATABASE_URL for another
    process."""
    from django.db import connection

    db = connection.settings_dict
    host = db.get("HOST") or ""
    url = f"postgres://{db['USER']}@{host}{':' + str(db['PORT']) if db.get('PORT') else ''}"
    url += f"/{db['NAME']}"
    socket_dir = (db.get("OPTIONS") or {}).get("host")
    return f"{url}?host={socket_dir}" if socket_dir else url


class WebServer:
    """The web server as the Procfile runs it, and the only way tests start one: its `web`
    entry (gunicorn serving config.asgi:application with config.server.Worker) through
    `scripts.supervise --exec web`, as a container does, on a port the OS picks, against
    the test database, cache and task queue. `live_asgi` (tests/conftest.py) is one per
    test process; a test that needs a process of its own (other settings, one it stops or
    kills) starts one with options:

    * `workers`: WEB_CONCURRENCY (one makes per-process limits exact);
    * `settings`: the settings module (`config.settings.base` for production's, e.g. the
      real throttle rates the test settings raise);
    * `env`: variables the settings read (THROTTLE_USER, STREAMS_PER_USER, REDIS_URL...).

    Its output (gunicorn's and the app's log lines) goes to `log`; its DATA_DIR (gunicorn's
    control socket) is a temporary directory of its own unless `env` names one."""

    def __init__(
        self,
        *,
        workers: int = 2,
        settings: str = "config.settings.test",
        **env: str,
    ) -> None:
        from django.conf import settings as ours

        self.workers = workers
        self.url = ""
        self.log = Path(tempfile.mkstemp(prefix="web-server-", suffix=".log")[1])
        self.own_data_dir = None if "DATA_DIR" in env else tempfile.mkdtemp(prefix="web-data-")
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": settings,
            "DATABASE_URL": database_url(),
            "REDIS_URL": ours.CACHES["default"]["LOCATION"],
            "CELERY_BROKER_URL": ours.CELERY_BROKER_URL,
            "TEST_CELERY_QUEUE": ours.CELERY_TASK_DEFAULT_QUEUE,
            "DATABASE_POOL_SIZE": "8",
            # Every test's clients come from 127.0.0.1 (tests/test_server_connections.py
            # sets the cap it tests).
            "WEB_CONNECTIONS_PER_ADDRESS": "0",
            "HOST": "127.0.0.1",
            "PORT": "0",
            "WEB_CONCURRENCY": str(workers),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            **({"DATA_DIR": self.own_data_dir} if self.own_data_dir else {}),
            **env,
        }
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60) -> "WebServer":
        """Starts it and returns once every worker has booted and it answers."""
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "scripts.supervise", "--exec", "web"],
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its workers are killed with it
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the web server exited:\n{self.tail()}")
            text = self.log.read_text(errors="replace")
            found = re.search(r"Listening at: (http://127\.0\.0\.1:\d+)", text)
            if found and text.count("Application startup complete") >= self.workers:
                with contextlib.suppress(httpx.HTTPError):
                    httpx.get(f"{found.group(1)}/api/v1/rulesets/", timeout=5)
                    self.url = found.group(1)
                    return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the web server did not start in {timeout} s:\n{self.tail()}")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        """Stops it (SIGTERM: a graceful shutdown) and returns its exit code."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.proc.returncode
        self.log.unlink(missing_ok=True)
        if self.own_data_dir:
            shutil.rmtree(self.own_data_dir, ignore_errors=True)
        return code

    def kill(self) -> None:
        """kill -9 of the master and its workers at once, as a crashed host."""
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def __enter__(self) -> "WebServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


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
