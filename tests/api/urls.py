"""The project's URLs plus two views that exist only for tests: a plain Django view
under /api/ that keeps CSRF protection, and an API view that fails."""

from django.http import HttpRequest, JsonResponse
from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.views import APIView

from config import urls as project_urls


def plain_post(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"ok": True})


class Failing(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []

    def get(self, request: Request) -> None:
        raise RuntimeError("a bug")


urlpatterns = [
    path("api/v1/test-plain/", plain_post),
    path("api/v1/test-failing/", Failing.as_view()),
    *project_urls.urlpatterns,
]

handler400 = project_urls.handler400
handler403 = project_urls.handler403
handler404 = project_urls.handler404
handler500 = project_urls.handler500
