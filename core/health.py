from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from kombu import Connection

from core.errors import MethodNotAllowed
from core.problems import problem_response


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:
        return False


def _broker_ok() -> bool:
    try:
        with Connection(settings.CELERY_BROKER_URL, connect_timeout=2) as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return True
    except Exception:
        return False


# Exempt: it changes nothing, so any other method gets a 405, not a CSRF failure.
@csrf_exempt
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness and readiness: 200 when PostgreSQL and the broker answer, else 503."""
    if request.method not in ("GET", "HEAD"):
        return problem_response(
            MethodNotAllowed.status,
            MethodNotAllowed.code,
            f'Method "{request.method}" not allowed.',
            headers={"Allow": "GET, HEAD"},
        )
    checks = {"database": _database_ok(), "broker": _broker_ok()}
    healthy = all(checks.values())
    return JsonResponse(
        {
            "status": "ok" if healthy else "unavailable",
            "checks": {name: "ok" if ok else "down" for name, ok in checks.items()},
        },
        status=200 if healthy else 503,
    )
