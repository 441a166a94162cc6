"""Test settings: the real PostgreSQL and broker named by the environment, fast hashing."""

import os
import uuid
from urllib.parse import urlsplit, urlunsplit

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production-use-0123456789")
os.environ.setdefault("DEBUG", "0")
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")

from .base import *  # noqa: F403
from .base import CACHES, DATABASES, REST_FRAMEWORK


def _redis_db(url: str, db: int) -> str:
    """The same Redis server, another database: tests flush the cache, never the broker."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return f"unix://{parts.path}?db={db}"
    return urlunsplit(parts._replace(path=f"/{db}"))


# pytest-xdist workers (gw0, gw1, ...) each get their own cache database and task queue.
_XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
_WORKER_INDEX = int(_XDIST_WORKER.removeprefix("gw") or 0)

CACHES["default"]["LOCATION"] = _redis_db(CACHES["default"]["LOCATION"], 15 - _WORKER_INDEX)

# Test teardown flushes tables with TRUNCATE, which the ledger refuses unless the session
# allows it (ledger migration 0003); no other settings allow it.
_DB_OPTIONS = DATABASES["default"].setdefault("OPTIONS", {})
_DB_OPTIONS["options"] = f"{_DB_OPTIONS.get('options', '')} -c ledger.allow_truncate=on".strip()

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Throttles are exercised by their own tests with explicit rates.
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {
    scope: "100000/min" for scope in REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
}
# Quiet unless a test's server asks for its request lines.
LOGGING["root"]["level"] = os.environ.get("LOG_LEVEL", "WARNING")  # noqa: F405

# Each test run has its own queue, so a worker started by a test never picks up tasks
# left in the broker by an earlier run.
# (A worker started by a test is given this process's queue in TEST_CELERY_QUEUE.)
CELERY_TASK_DEFAULT_QUEUE = (
    os.environ.get("TEST_CELERY_QUEUE") or f"test-{uuid.uuid4().hex[:12]}-{_XDIST_WORKER}"
)
BOT_THINK_SECONDS = 0.05
WEBHOOKS_ALLOW_PRIVATE = True
BOT_TURN_DEADLINE_SECONDS = int(os.environ.get("BOT_TURN_DEADLINE_SECONDS", "2"))
# Static files come straight from the apps in tests (no collectstatic run).
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True
