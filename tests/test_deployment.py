"""The Dockerfile, the compose file and `make run` start the same processes."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def procfile_entries() -> dict[str, str]:
    entries = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, command = line.split(":", 1)
            entries[name.strip()] = command.strip()
    return entries


def test_procfile_runs_api_worker_and_beat():
    entries = procfile_entries()
    assert set(entries) == {"web", "worker", "beat"}
    # The ASGI app under gunicorn's uvicorn worker (config/server.py), so clients that wait
    # hold no thread.
    assert entries["web"].startswith("gunicorn config.asgi:application")
    assert "--worker-class config.server.Worker" in entries["web"]
    assert entries["worker"].startswith("celery -A config worker")
    assert entries["beat"].startswith("celery -A config beat")
    # gunicorn's control socket in the instance's own DATA_DIR, not one per home directory
    # shared by every instance (tests/scripts/test_control_socket.py runs two).
    assert "--control-socket ${DATA_DIR:-/tmp}/gunicorn.ctl" in entries["web"]


def test_make_run_starts_every_procfile_entry_after_migrating():
    makefile = (ROOT / "Makefile").read_text()
    run_recipe = re.search(r"^run:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert "scripts.stack run" in run_recipe
    stack = (ROOT / "scripts" / "stack.py").read_text()
    assert 'supervise(read_procfile(ROOT / "Procfile"), env, ROOT)' in stack
    assert '"migrate", "--noinput"' in stack


def test_compose_services_run_the_procfile_entries():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    for name in procfile_entries():
        assert services[name]["command"] == ["python", "-m", "scripts.supervise", "--exec", name]
    assert services["migrate"]["command"] == ["python", "manage.py", "migrate", "--noinput"]
    for name in ("web", "worker", "beat"):
        env = services[name]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://")
        assert env["CELERY_BROKER_URL"].startswith("redis://")
    # A process (or database) that dies comes back without taking the others down.
    for name in ("web", "worker", "beat", "db", "redis"):
        assert services[name]["restart"] == "unless-stopped"
    assert "restart" not in services["migrate"]  # one-shot


def test_compose_scales_web_and_worker():
    """`--scale web=N --scale worker=M` needs no fixed container name and no single host
    port per replica."""
    services = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    for name in ("web", "worker"):
        assert "container_name" not in services[name]
    for mapping in services["web"].get("ports", []):
        host = mapping.rsplit(":", 1)[0].removeprefix("${WEB_PORTS:-").rstrip("}")
        assert "-" in host, f"{mapping}: one fixed host port blocks a second web replica"
    assert "ports" not in services["worker"]


def test_dockerfile_default_command_is_the_web_entry_as_a_non_root_user():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert 'CMD ["python", "-m", "scripts.supervise", "--exec", "web"]' in dockerfile
    assert re.search(r"^USER app$", dockerfile, re.M)
    assert "DATA_DIR=/tmp" in dockerfile  # where the app user may write (beat, control socket)
    assert "requirements.txt" in dockerfile


def test_check_deploy_is_clean_with_debug_off_and_a_real_secret():
    import os
    import secrets
    import subprocess
    import sys

    from django.db import connection

    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(64),
        "ALLOWED_HOSTS": "liarsdice.example",
        "DATABASE_URL": f"postgres://{db['USER']}@localhost/{db['NAME']}",
    }
    env.pop("SECURE_SSL_REDIRECT", None)  # the test settings turn it off for this process
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
