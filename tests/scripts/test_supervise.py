"""`make run`'s supervisor: a process that dies is restarted, the others run on (honcho
stopped them all), and SIGTERM stops everything."""

import os
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from tests.celery.conftest import Processes, wait_until
from tests.servers import Supervised, free_port, pid_alive


def _healthz(port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
            return response.status
    except OSError:
        return 0


def test_a_dying_process_is_restarted_and_the_others_run_on(tmp_path):
    procfile = tmp_path / "Procfile"
    procfile.write_text(
        "steady: sleep 600\n"
        f"flaky: {sys.executable} -c \"print('flaky up', flush=True); raise SystemExit(3)\"\n"
    )
    supervised = Supervised(dict(os.environ), procfile=procfile)
    try:
        supervised.wait_for_line(r"flaky exited with code 3; restarting in 2 s", timeout=20)
        assert len(supervised.pids("flaky")) >= 2
        assert len(supervised.pids("steady")) == 1
        (steady,) = supervised.pids("steady")
        assert pid_alive(steady)
        assert "flaky     | flaky up" in supervised.output  # output relayed, named
    finally:
        assert supervised.stop() == 0
    assert not pid_alive(steady)


@pytest.mark.slow
def test_killing_the_worker_leaves_web_and_beat_running(transactional_db, tmp_path):
    port = free_port()
    env = {
        **Processes(tmp_path).env,
        "TEST_CELERY_QUEUE": f"supervise-{uuid.uuid4().hex[:8]}",
        "DATA_DIR": str(tmp_path),
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "WEB_CONCURRENCY": "1",
        "WEB_THREADS": "4",
        "CELERY_CONCURRENCY": "1",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    supervised = Supervised(env)
    try:
        wait_until(lambda: _healthz(port) == 200, timeout=60)
        ready = supervised.wait_for_line(r"^worker +\| .*ready\.", timeout=60)
        (worker,) = supervised.pids("worker")
        (web,) = supervised.pids("web")
        (beat,) = supervised.pids("beat")

        os.kill(worker, signal.SIGKILL)  # the worker's main process
        supervised.wait_for_line(r"worker exited with code -9", timeout=10)
        assert _healthz(port) == 200  # the API still answers
        supervised.wait_for_line(r"^worker +\| .*ready\.", timeout=60, after=ready + 1)

        assert supervised.pids("web") == [web] and supervised.pids("beat") == [beat]
        assert pid_alive(web) and pid_alive(beat)
        restarted = supervised.pids("worker")
        assert len(restarted) == 2 and pid_alive(restarted[1]) and not pid_alive(worker)
        time.sleep(1)
        assert _healthz(port) == 200
    finally:
        assert supervised.stop() == 0, supervised.output
    assert not any(pid_alive(pid) for pid in (web, beat, *restarted))


def test_exec_becomes_the_entry_with_its_variables_expanded(tmp_path):
    """A container's command: the entry replaces the supervisor (same pid, so it gets the
    container's signals), with ${VAR:-default} expanded as in the Procfile."""
    procfile = tmp_path / "Procfile"
    procfile.write_text("web: echo $$ ${GREETING:-hello} ${PORT:-8000}\nother: false\n")
    result = subprocess.Popen(
        [sys.executable, "-m", "scripts.supervise", "--procfile", str(procfile), "--exec", "web"],
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "PORT": "9001"},
        stdout=subprocess.PIPE,
        text=True,
    )
    output, _ = result.communicate(timeout=30)
    assert result.returncode == 0
    assert output.split() == [str(result.pid), "hello", "9001"]
