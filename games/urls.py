"""Every games path and the one module of `games.api` that serves it."""

from django.urls import path

from games.api import (
    actions,
    bots,
    challenges,
    history,
    leaderboard,
    matches,
    rematch,
    rulesets,
    seeks,
    streams,
)

urlpatterns = [
    path("rulesets/", rulesets.RulesetListApi.as_view(), name="rulesets"),
    path("rulesets/help/", rulesets.RulesHelpApi.as_view(), name="rules-help"),
    path("bots/", bots.BotListApi.as_view(), name="bots"),
    path("leaderboard/", leaderboard.LeaderboardApi.as_view(), name="leaderboard"),
    path("matches/", matches.MatchListCreateApi.as_view(), name="matches"),
    path("matches/<int:match_id>/", matches.MatchDetailApi.as_view(), name="match"),
    path("matches/<int:match_id>/join/", matches.MatchJoinApi.as_view(), name="match-join"),
    path("matches/<int:match_id>/leave/", matches.MatchLeaveApi.as_view(), name="match-leave"),
    path("matches/<int:match_id>/bots/", matches.MatchBotsApi.as_view(), name="match-bots"),
    path("matches/<int:match_id>/start/", matches.MatchStartApi.as_view(), name="match-start"),
    path("matches/<int:match_id>/actions/", actions.MatchActionApi.as_view(), name="match-actions"),
    path("matches/<int:match_id>/resign/", actions.MatchResignApi.as_view(), name="match-resign"),
    path("matches/<int:match_id>/abort/", actions.MatchAbortApi.as_view(), name="match-abort"),
    path(
        "matches/<int:match_id>/abort/withdraw/",
        actions.MatchAbortWithdrawApi.as_view(),
        name="match-abort-withdraw",
    ),
    path(
        "matches/<int:match_id>/claim-victory/",
        actions.MatchClaimVictoryApi.as_view(),
        name="match-claim-victory",
    ),
    path(
        "matches/<int:match_id>/rematch/", rematch.MatchRematchApi.as_view(), name="match-rematch"
    ),
    path(
        "matches/<int:match_id>/rematch/decline/",
        rematch.MatchRematchDeclineApi.as_view(),
        name="match-rematch-decline",
    ),
    path("matches/<int:match_id>/export/", history.MatchExportApi.as_view(), name="match-export"),
    path(
        "players/<str:username>/matches/",
        history.PlayerMatchesApi.as_view(),
        name="player-matches",
    ),
    path("matches/<int:match_id>/events/", streams.match_events, name="match-events"),
    path("matches/<int:match_id>/stream/", streams.match_stream, name="match-stream"),
    path("matches/<int:match_id>/seat-stream/", streams.seat_stream, name="match-seat-stream"),
    path("matches/<int:match_id>/rounds/", matches.MatchRoundsApi.as_view(), name="match-rounds"),
    path(
        "matches/<int:match_id>/messages/",
        matches.MatchMessagesApi.as_view(),
        name="match-messages",
    ),
    path("challenges/", challenges.ChallengeListCreateApi.as_view(), name="challenges"),
    path(
        "challenges/<int:challenge_id>/accept/",
        challenges.ChallengeAcceptApi.as_view(),
        name="challenge-accept",
    ),
    path(
        "challenges/<int:challenge_id>/decline/",
        challenges.ChallengeDeclineApi.as_view(),
        name="challenge-decline",
    ),
    path(
        "challenges/<int:challenge_id>/cancel/",
        challenges.ChallengeCancelApi.as_view(),
        name="challenge-cancel",
    ),
    path("seeks/", seeks.SeekListCreateApi.as_view(), name="seeks"),
    path("seeks/<int:seek_id>/", seeks.SeekDetailApi.as_view(), name="seek"),
]
