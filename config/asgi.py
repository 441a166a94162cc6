"""The ASGI application the web server runs (see config/server.py).

Ordinary (sync) views run in one hop to a worker thread (`SyncRequestHandler`): the body
is read on the event loop, then the whole middleware chain and the view run in a thread
of a fixed pool (WEB_THREADS per process), as a WSGI server would run them, with database
connections borrowed from a pool (DATABASE_POOL). The views that wait (`core.live`: long
polls, event streams) are served without a per-request thread context, so a waiting
client holds no thread: their short database work goes to the loop's worker threads,
their waiting to `core.notifications`.
"""

import contextvars
import os
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
os.environ.setdefault("DATABASE_POOL", "1")

import asyncio

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core import signals
from django.core.asgi import get_asgi_application
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import HttpResponse
from django.urls import Resolver404, resolve, set_script_prefix

django_application = get_asgi_application()

from core import notifications  # noqa: E402


class LiveHandler(ASGIHandler):
    """Django's handler without the per-request thread context: the sync bits a live
    view's middleware needs run briefly on the process's single sync thread."""

    async def __call__(self, scope, receive, send):
        await self.handle(scope, receive, send)


live_application = LiveHandler()


class SyncRequestHandler(ASGIHandler):
    """Django's handler with the middleware chain in sync mode, for requests to sync
    views: the request runs in one thread hop, start to finish.

    Why: Django's own ASGI handler runs an async middleware chain, so each of Django's
    middleware (security, sessions, CSRF, auth, messages...) calls its `process_request`
    and `process_response` through `sync_to_async`, then the view, the signals and the
    response's close: over a dozen hops between the loop and a thread made for the
    request, which cost more than a cheap view itself. Here the loop only reads the body
    and writes the response; a client that disconnects meanwhile is noticed when the
    response is sent, as under WSGI."""

    def __init__(self, threads: int) -> None:
        super(ASGIHandler, self).__init__()
        self.load_middleware(is_async=False)
        self.executor = ThreadPoolExecutor(threads, thread_name_prefix="request")

    async def __call__(self, scope, receive, send):
        await self.handle(scope, receive, send)

    async def handle(self, scope, receive, send):
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        try:
            # The request's own copy of the context, as `sync_to_async` would give it.
            respond = contextvars.copy_context().run
            response = await asyncio.get_running_loop().run_in_executor(
                self.executor, respond, self.respond, scope, body_file
            )
            try:
                await self.send_response(response, send)
            finally:
                if response.streaming:
                    await sync_to_async(response.close)()
        finally:
            body_file.close()

    def respond(self, scope, body_file) -> HttpResponse:
        """The response, closed unless it streams (closing sends `request_finished`,
        which hands the thread's database connection back to the pool)."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
            response._handler_class = self.__class__
        if not response.streaming:
            response.close()
        return response


sync_application = SyncRequestHandler(threads=settings.WEB_THREADS)


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
    elif scope["type"] == "http":
        await sync_application(scope, receive, send)
    else:
        await django_application(scope, receive, send)
