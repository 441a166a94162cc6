"""A real Celery worker (and beat) in a subprocess, on the broker the settings name and
the test database; web processes of a test's own beside them."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

from tests.servers import WebServer, database_url

ROOT = Path(__file__).resolve().parents[2]


class Processes:
    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.running: list[subprocess.Popen] = []
        self.servers: list[WebServer] = []
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": database_url(),
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

    def start_web(self) -> WebServer:
        """A web process of its own (one worker), stopped with the others."""
        server = WebServer(workers=1).start()
        self.servers.append(server)
        return server

    def kill(self, proc: subprocess.Popen) -> None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    def stop_all(self) -> None:
        for server in self.servers:
            server.stop()
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


def wait_until(predicate, *, timeout: float, interval: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")
