"""A real Celery worker (and beat) in a subprocess, on the broker the settings name and
the test database."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def database_url_for_subprocesses() -> str:
    db = connection.settings_dict
    host = db.get("HOST") or ""
    url = f"postgres://{db['USER']}@{host}{':' + str(db['PORT']) if db.get('PORT') else ''}"
    url += f"/{db['NAME']}"
    socket_dir = (db.get("OPTIONS") or {}).get("host")
    return f"{url}?host={socket_dir}" if socket_dir else url


class Processes:
    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.running: list[subprocess.Popen] = []
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": database_url_for_subprocesses(),
            "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
            "TEST_CELERY_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
            "SWEEP_SECONDS": "0.5",
        }

    def start_worker(self, logfile: Path | None = None, pool: str = "solo") -> subprocess.Popen:
        """A worker (solo unless `pool` says otherwise, with one process); with
        `logfile`, it logs there at INFO (a line per task run, with the task's id and
        return value)."""
        log_args = ["--loglevel", "INFO", "--logfile", str(logfile)] if logfile else []
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--pool",
                pool,
                "--concurrency",
                "1",
                "-Q",
                settings.CELERY_TASK_DEFAULT_QUEUE,
                *(log_args or ["--loglevel", "WARNING"]),
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
            cwd=ROOT,
            env=self.env,
            start_new_session=True,
        )
        self.running.append(proc)
        return proc

    def start_beat(self) -> subprocess.Popen:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "beat",
                "--loglevel",
                "WARNING",
                "--schedule",
                str(self.tmp_path / "beat-schedule"),
            ],
            cwd=ROOT,
            env=self.env,
            start_new_session=True,
        )
        self.running.append(proc)
        return proc

    def start_web(self, *, threads: int = 8) -> tuple[subprocess.Popen, int]:
        """A gunicorn web process as the Procfile runs it (one gthread worker here), on a
        free port; returns it and the port once /healthz answers."""
        port = free_port()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi:application",
                "--bind",
                f"127.0.0.1:{port}",
                "--worker-class",
                "gthread",
                "--workers",
                "1",
                "--threads",
                str(threads),
                "--timeout",
                "60",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=self.env,
            start_new_session=True,
        )
        self.running.append(proc)
        return proc, port

    def kill(self, proc: subprocess.Popen) -> None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    def stop_all(self) -> None:
        for proc in self.running:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()


@pytest.fixture
def celery_processes(transactional_db, tmp_path):
    processes = Processes(tmp_path)
    yield processes
    processes.stop_all()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, *, timeout: float, interval: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")
