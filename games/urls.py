from django.urls import path

from games import apis

urlpatterns = [
    path("rulesets/", apis.RulesetListApi.as_view(), name="rulesets"),
    path("leaderboard/", apis.LeaderboardApi.as_view(), name="leaderboard"),
    path("matches/", apis.MatchListCreateApi.as_view(), name="matches"),
    path("matches/<int:match_id>/", apis.MatchDetailApi.as_view(), name="match"),
    path("matches/<int:match_id>/join/", apis.MatchJoinApi.as_view(), name="match-join"),
    path("matches/<int:match_id>/leave/", apis.MatchLeaveApi.as_view(), name="match-leave"),
    path("matches/<int:match_id>/bots/", apis.MatchBotsApi.as_view(), name="match-bots"),
    path("matches/<int:match_id>/start/", apis.MatchStartApi.as_view(), name="match-start"),
    path("matches/<int:match_id>/actions/", apis.MatchActionApi.as_view(), name="match-actions"),
    path("matches/<int:match_id>/events/", apis.MatchEventsApi.as_view(), name="match-events"),
    path("matches/<int:match_id>/rounds/", apis.MatchRoundsApi.as_view(), name="match-rounds"),
    path(
        "matches/<int:match_id>/messages/", apis.MatchMessagesApi.as_view(), name="match-messages"
    ),
]
