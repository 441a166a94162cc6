from django.urls import path

from games import apis, challenge_apis, history_apis, resign_apis, seek_apis, streams

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
    path(
        "matches/<int:match_id>/resign/", resign_apis.MatchResignApi.as_view(), name="match-resign"
    ),
    path(
        "matches/<int:match_id>/export/", history_apis.MatchExportApi.as_view(), name="match-export"
    ),
    path(
        "players/<str:username>/matches/",
        history_apis.PlayerMatchesApi.as_view(),
        name="player-matches",
    ),
    path("matches/<int:match_id>/events/", streams.match_events, name="match-events"),
    path("matches/<int:match_id>/stream/", streams.match_stream, name="match-stream"),
    path("matches/<int:match_id>/rounds/", apis.MatchRoundsApi.as_view(), name="match-rounds"),
    path(
        "matches/<int:match_id>/messages/", apis.MatchMessagesApi.as_view(), name="match-messages"
    ),
    path("challenges/", challenge_apis.ChallengeListCreateApi.as_view(), name="challenges"),
    path(
        "challenges/<int:challenge_id>/accept/",
        challenge_apis.ChallengeAcceptApi.as_view(),
        name="challenge-accept",
    ),
    path(
        "challenges/<int:challenge_id>/decline/",
        challenge_apis.ChallengeDeclineApi.as_view(),
        name="challenge-decline",
    ),
    path(
        "challenges/<int:challenge_id>/cancel/",
        challenge_apis.ChallengeCancelApi.as_view(),
        name="challenge-cancel",
    ),
    path("seeks/", seek_apis.SeekListCreateApi.as_view(), name="seeks"),
    path("seeks/<int:seek_id>/", seek_apis.SeekDetailApi.as_view(), name="seek"),
]
