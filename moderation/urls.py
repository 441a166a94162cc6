from django.urls import path

from moderation import apis

urlpatterns = [
    path(
        "players/<str:username>/reports/",
        apis.PlayerReportApi.as_view(),
        name="player-reports",
    ),
]
