"""The ASGI application the web server runs (see config/server.py).

Ordinary (sync) views run in one hop to a worker thread (`SyncRequestHandler`): the body
is read on the event loop, then the whole middleware chain and the view run in a thread
of a fixed pool (WEB_THREADS per process), as a WSGI server would run them, with database
connections borrowed from a pool (DATABASE_POOL). The views that wait (`core.live`: long
polls, event streams) are served without a per-request thread context, so a waiting
client holds no thread: their short database work goes to the loop's worker threads,
their waiting to `core.notifications`.
"""

import contextlib
import contextvars
import os
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
os.environ.setdefault("DATABASE_POOL", "1")

import asyncio
import functools

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.core import signals
from django.core.asgi import get_asgi_application
from django.core.exceptions import ImproperlyConfigured, MiddlewareNotUsed, RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.exception import convert_exception_to_response
from django.http import HttpResponse
from django.urls import (
    Resolver404,
    ResolverMatch,
    URLResolver,
    get_resolver,
    get_urlconf,
    set_script_prefix,
)
from django.utils.deprecation import MiddlewareMixin
from django.utils.module_loading import import_string

get_asgi_application()  # sets Django up

from django.conf import settings  # noqa: E402

from core import notifications  # noqa: E402

# The scope key under which `application` leaves the URL match it made to route a
# request, so that the handler does not resolve the path a second time.
RESOLVED = "liarsdice.resolver_match"


class _ResolvedOnce:
    """A handler that takes the URL match `application` made (URL resolution walks every
    pattern tried: a fifth of a long poll's time on the loop when resolved twice)."""

    def resolve_request(self, request):
        found = request.scope.get(RESOLVED)
        if found is None or hasattr(request, "urlconf"):
            return super().resolve_request(request)
        request.resolver_match = found
        return found


@functools.cache
def _inline(middleware: type[MiddlewareMixin]) -> type[MiddlewareMixin]:
    """`middleware` with its request and response hooks called on the event loop."""

    async def __call__(self, request):
        response = self.process_request(request) if hasattr(self, "process_request") else None
        response = response or await self.get_response(request)
        if hasattr(self, "process_response"):
            response = self.process_response(request, response)
        return response

    return type(f"Inline{middleware.__name__}", (middleware,), {"__call__": __call__})


def _on_loop(hook):
    if iscoroutinefunction(hook):
        return hook

    async def call(*args):
        return hook(*args)

    return call


class LiveHandler(_ResolvedOnce, ASGIHandler):
    """Django's handler with no thread on a live view's way: no per-request thread
    context, and Django's own middleware (MiddlewareMixin: security headers, CSRF,
    sessions, messages) run their hooks on the loop, where Django would send each of them
    to a thread and back (a dozen round trips a request, each queued behind every other
    live request's). For a live view those hooks are a few header and attribute checks:
    it uses neither the session nor `request.user` (DRF authenticates it); a hook that
    did query the database would be refused on the loop (SynchronousOnlyOperation), not
    block it."""

    async def __call__(self, scope, receive, send):
        await self.handle(scope, receive, send)

    async def handle(self, scope, receive, send):
        """Django's `ASGIHandler.handle`, less its two trips to asgiref's one shared
        thread (`sync_to_async`, thread-sensitive): `request_started` before the view and
        the response's `close` (which sends `request_finished`) after it. Their receivers
        (close_old_connections, reset_queries, close_caches, reset_urlconf) find nothing
        to close on the loop's thread (a live view's queries run in `core.live.db`'s
        threads, which hand their connection back), so they run here, on the loop.
        Through that one thread, each trip queued for the GIL behind the database threads
        of every other live request: of 2,000 long polls arriving at once, the last
        reached its view, where its wait starts, seconds after its headers."""
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, error_response = self.create_request(scope, body_file)
        if request is None:
            body_file.close()
            await self.send_response(error_response, send)
            error_response.close()
            return

        async def process_request():
            response = await self.run_get_response(request)
            with contextlib.suppress(asyncio.CancelledError):  # the client went away
                await self.send_response(response, send)
            return response

        # As Django: a client that disconnects cancels the view (a long poll's wait).
        tasks = [
            asyncio.create_task(self.listen_for_disconnect(receive)),
            asyncio.create_task(process_request()),
        ]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in tasks:
                if task.done():
                    with contextlib.suppress(RequestAborted):
                        task.result()
                else:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
            try:
                response = tasks[1].result()
            except asyncio.CancelledError:
                signals.request_finished.send(sender=self.__class__)
            else:
                response.close()
        finally:
            body_file.close()

    def load_middleware(self, is_async: bool = False) -> None:
        self._view_middleware = []
        self._template_response_middleware = []
        self._exception_middleware = []
        handler = convert_exception_to_response(self._get_response_async)
        for path in reversed(settings.MIDDLEWARE):
            middleware = import_string(path)
            if issubclass(middleware, MiddlewareMixin):
                middleware = _inline(middleware)
            elif not getattr(middleware, "async_capable", False):
                raise ImproperlyConfigured(f"{path} must be able to run async.")
            try:
                instance = middleware(handler)
            except MiddlewareNotUsed:
                continue
            if hasattr(instance, "process_view"):
                self._view_middleware.insert(0, _on_loop(instance.process_view))
            if hasattr(instance, "process_template_response"):
                self._template_response_middleware.append(
                    _on_loop(instance.process_template_response)
                )
            if hasattr(instance, "process_exception"):
                self._exception_middleware.append(instance.process_exception)
            handler = convert_exception_to_response(instance)
        self._middleware_chain = handler


live_application = LiveHandler()


class SyncRequestHandler(_ResolvedOnce, ASGIHandler):
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


def _resolve(path: str) -> ResolverMatch | None:
    return _resolved(get_resolver(get_urlconf()), path)


# Resolving walks the URL patterns one by one (a twentieth of a web process's CPU under
# load): the answer for a path is kept. By resolver, so that a changed URLconf (tests
# override it) resolves afresh; at most 8192 paths, the least recently used dropped.
@functools.lru_cache(maxsize=8192)
def _resolved(resolver: URLResolver, path: str) -> ResolverMatch | None:
    try:
        return resolver.resolve(path)
    except (Resolver404, ValueError):
        return None


async def application(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                notifications.serve_on_this_loop()
                # Worker threads for the live views' short database work: enough to
                # overlap the round trips (PostgreSQL, Redis) that most of it waits on,
                # no more, as each running one takes the GIL from the loop and from
                # ordinary requests' threads.
                asyncio.get_running_loop().set_default_executor(
                    ThreadPoolExecutor(settings.LIVE_DB_THREADS, thread_name_prefix="live-db")
                )
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    found = _resolve(scope["path"]) if scope["type"] == "http" else None
    if found is not None and not scope.get("root_path"):  # else Django's path_info differs
        scope = {**scope, RESOLVED: found}
    if found is not None and getattr(found.func, "live", False):
        notifications.serve_on_this_loop()
        await live_application(scope, receive, send)
    else:
        await sync_application(scope, receive, send)
