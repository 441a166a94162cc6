from django.contrib import admin
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from core.apis import ApiIndexApi
from core.health import healthz
from core.problems import API_NOT_FOUND, not_found
from web.views import favicon, play_page

api_v1 = [
    path("", ApiIndexApi.as_view(), name="api-index"),
    path("", include("accounts.urls")),
    path("", include("ledger.urls")),
    path("", include("games.urls")),
    path("", include("tournaments.urls")),
    path("", include("moderation.urls")),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
]

urlpatterns = [
    path("", play_page, name="play"),
    path("favicon.ico", favicon, name="favicon"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    re_path(r"^api/", csrf_exempt(not_found), name=API_NOT_FOUND),
]

handler400 = "core.problems.bad_request"
handler403 = "core.problems.permission_denied"
handler404 = "core.problems.not_found"
handler500 = "core.problems.server_error"
