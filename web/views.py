"""The play page at `/`: one static shell. Everything it shows comes from the public API
in the browser (no game data in the template), so it can show nobody's hidden dice that
the API would not already send to that player."""

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.templatetags.static import static
from django.views.decorators.http import require_safe

# The bearer token lives in sessionStorage, where any script on the page could read it,
# so only the page's own files may run: no inline script, no third-party origin.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


@require_safe
def play_page(request: HttpRequest) -> HttpResponse:
    response = render(request, "web/index.html")
    response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response["Referrer-Policy"] = "no-referrer"
    response["Cache-Control"] = "no-cache"
    return response


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers and bookmarks ask for `/favicon.ico` whatever the page links to."""
    return HttpResponsePermanentRedirect(static("web/favicon.svg"))
