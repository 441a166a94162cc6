"""Runs the Procfile's processes and restarts any that dies, leaving the others running.

    python -m scripts.supervise                 # every entry (what `make run` does)
    python -m scripts.supervise web worker      # some entries
    python -m scripts.supervise --exec web      # become one entry (a container's command)

Why not honcho (which `make run` used before): honcho stops every process as soon as one
exits, so a killed Celery worker took the API and beat down with it. This is ours, not
another library: the whole job is a poll loop with a back-off and a clean stop, and the
few maintained alternatives (supervisord, circus) bring a daemon, a config format and a
control socket of their own. In containers, restarting is compose's job (`restart:`);
there `--exec` replaces itself with the entry's command, which then gets the signals.

Each line a process prints is prefixed with its name. A process that exits is started
again after a delay that doubles from 1 s up to 30 s while it keeps dying young (it is
reset once a run lasts a minute); its process group is killed first, so children it left
behind (a Celery worker's pool) do not linger. SIGINT or SIGTERM stops them all: SIGTERM
to each group, SIGKILL to what is still running 20 s later.
"""

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
FIRST_DELAY = 1.0
MAX_DELAY = 30.0
STABLE_AFTER = 60.0
STOP_GRACE = 20.0

_print_lock = threading.Lock()


def read_procfile(path: Path) -> dict[str, str]:
    entries = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, command = line.split(":", 1)
            entries[name.strip()] = command.strip()
    return entries


def _say(name: str, text: str, width: int) -> None:
    with _print_lock:
        sys.stdout.write(f"{name:<{width}} | {text}\n")
        sys.stdout.flush()


def announce(text: str) -> None:
    """Prints `text` whole, never between the lines of a process's output."""
    with _print_lock:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()


@dataclass
class Child:
    name: str
    command: str
    proc: subprocess.Popen | None = None
    started_at: float = 0.0
    delay: float = FIRST_DELAY
    restart_at: float | None = None


class Supervisor:
    def __init__(self, entries: dict[str, str], env: dict[str, str], cwd: Path) -> None:
        self.children = [Child(name, command) for name, command in entries.items()]
        self.env = env
        self.cwd = cwd
        self.width = max([len(name) for name in entries] + [len("supervise")])
        self.stopping = threading.Event()

    def say(self, text: str) -> None:
        _say("supervise", text, self.width)

    def start(self, child: Child) -> None:
        # `exec`: the shell expands ${PORT:-8000} and the like, then becomes the command,
        # so the pid is the process's own and signals reach it.
        child.proc = subprocess.Popen(
            ["sh", "-c", f"exec {child.command}"],
            cwd=self.cwd,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stopped (or reaped) as a whole
        )
        child.started_at = time.monotonic()
        child.restart_at = None
        self.say(f"{child.name} started (pid {child.proc.pid})")
        relay = threading.Thread(target=self._relay, args=(child.name, child.proc.stdout))
        relay.daemon = True
        relay.start()

    def _relay(self, name: str, stream: IO[bytes]) -> None:
        for line in iter(stream.readline, b""):
            _say(name, line.decode("utf-8", "replace").rstrip("\n"), self.width)
        stream.close()

    def run(self) -> int:
        for child in self.children:
            self.start(child)
        while not self.stopping.wait(0.2):
            now = time.monotonic()
            for child in self.children:
                if child.restart_at is not None:
                    if now >= child.restart_at:
                        self.start(child)
                    continue
                code = child.proc.poll()
                if code is None:
                    continue
                _kill_group(child.proc.pid, signal.SIGKILL)  # what it left behind
                if now - child.started_at >= STABLE_AFTER:
                    child.delay = FIRST_DELAY
                self.say(f"{child.name} exited with code {code}; restarting in {child.delay:g} s")
                child.restart_at = now + child.delay
                child.delay = min(child.delay * 2, MAX_DELAY)
        return self.stop()

    def stop(self) -> int:
        running = [c.proc for c in self.children if c.proc and c.proc.poll() is None]
        self.say(f"stopping {len(running)} process(es)")
        for proc in running:
            _kill_group(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        for proc in running:
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _kill_group(proc.pid, signal.SIGKILL)
                proc.wait()
        return 0


def _kill_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)


def supervise(entries: dict[str, str], env: dict[str, str], cwd: Path = ROOT) -> int:
    """Runs `entries` until SIGINT or SIGTERM (restarting any that exits); returns 0."""
    supervisor = Supervisor(entries, env, cwd)

    def request_stop(signum: int, frame: object) -> None:
        supervisor.stopping.set()

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    return supervisor.run()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="Procfile entries (default: all)")
    parser.add_argument("--procfile", type=Path, default=ROOT / "Procfile")
    parser.add_argument("--exec", dest="exec_one", action="store_true", help="become the entry")
    args = parser.parse_args()
    entries = read_procfile(args.procfile)
    unknown = set(args.names) - set(entries)
    if unknown:
        parser.error(f"not in {args.procfile}: {', '.join(sorted(unknown))}")
    if args.exec_one:
        if len(args.names) != 1:
            parser.error("--exec takes exactly one entry")
        os.execvp("sh", ["sh", "-c", f"exec {entries[args.names[0]]}"])
    chosen = {name: entries[name] for name in args.names} if args.names else entries
    return supervise(chosen, dict(os.environ), args.procfile.resolve().parent)


if __name__ == "__main__":
    sys.exit(main())
