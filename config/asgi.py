"""The ASGI application the web server runs (see config/server.py).

Ordinary (sync) views run as Django's ASGI handler runs them: each request's sync code in
a thread of its own, with database connections borrowed from a pool (DATABASE_POOL). The
views that wait (`core.live`: long polls, event streams) are served without a per-request
thread context, so a waiting client holds no thread: their short database work goes to
the loop's worker threads, their waiting to `core.notifications`.
"""

import os
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
os.environ.setdefault("DATABASE_POOL", "1")

import asyncio

from django.core.asgi import get_asgi_application
from django.core.handlers.asgi import ASGIHandler
from django.urls import Resolver404, resolve

django_application = get_asgi_application()

from django.conf import settings  # noqa: E402

from core import notifications  # noqa: E402


class LiveHandler(ASGIHandler):
    """Django's handler without the per-request thread context: the sync bits a live
    view's middleware needs run briefly on the process's single sync thread."""

    async def __call__(self, scope, receive, send):
        await self.handle(scope, receive, send)


live_application = LiveHandler()


def _is_live(path: str) -> bool:
    try:
        return getattr(resolve(path).func, "live", False)
    except (Resolver404, ValueError):
        return False


async def application(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                notifications.serve_on_this_loop()
                # Worker threads for the live views' database work, one per pooled
                # connection.
                pool = settings.DATABASES["default"].get("OPTIONS", {}).get("pool") or {}
                asyncio.get_running_loop().set_default_executor(
                    ThreadPoolExecutor(pool.get("max_size", 16), thread_name_prefix="live-db")
                )
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] == "http" and _is_live(scope["path"]):
        notifications.serve_on_this_loop()
        await live_application(scope, receive, send)
    else:
        await django_application(scope, receive, send)
