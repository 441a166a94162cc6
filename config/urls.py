from django.contrib import admin
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config.health import healthz
from config.problems import API_NOT_FOUND, not_found

api_v1 = [
    path("", include("accounts.urls")),
    path("", include("ledger.urls")),
    path("", include("games.urls")),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
]

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    re_path(r"^api/", csrf_exempt(not_found), name=API_NOT_FOUND),
]

handler400 = "config.problems.bad_request"
handler403 = "config.problems.permission_denied"
handler404 = "config.problems.not_found"
handler500 = "config.problems.server_error"
