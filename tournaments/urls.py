"""Every tournaments path and the view that serves it."""

from django.urls import path

from tournaments.api import stream, views

urlpatterns = [
    path("tournaments/", views.TournamentListCreateApi.as_view(), name="tournaments"),
    path(
        "tournaments/<int:tournament_id>/",
        views.TournamentDetailApi.as_view(),
        name="tournament",
    ),
    path(
        "tournaments/<int:tournament_id>/register/",
        views.TournamentRegisterApi.as_view(),
        name="tournament-register",
    ),
    path(
        "tournaments/<int:tournament_id>/unregister/",
        views.TournamentUnregisterApi.as_view(),
        name="tournament-unregister",
    ),
    path(
        "tournaments/<int:tournament_id>/bots/",
        views.TournamentBotsApi.as_view(),
        name="tournament-bots",
    ),
    path(
        "tournaments/<int:tournament_id>/cancel/",
        views.TournamentCancelApi.as_view(),
        name="tournament-cancel",
    ),
    path(
        "tournaments/<int:tournament_id>/payouts/",
        views.TournamentPayoutApi.as_view(),
        name="tournament-payouts",
    ),
    path(
        "tournaments/<int:tournament_id>/stream/",
        stream.tournament_stream,
        name="tournament-stream",
    ),
]
