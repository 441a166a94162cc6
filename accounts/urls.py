from django.urls import path

from accounts import apis, streams, token_apis

urlpatterns = [
    path("auth/register/", apis.RegisterApi.as_view(), name="register"),
    path("auth/token/", apis.TokenApi.as_view(), name="token"),
    path("auth/tokens/", token_apis.TokenListApi.as_view(), name="tokens"),
    path("auth/tokens/<int:token_id>/", token_apis.TokenDetailApi.as_view(), name="token-detail"),
    path("me/", apis.MeApi.as_view(), name="me"),
    path("stream/", streams.account_stream, name="account-stream"),
    path("players/", apis.PlayerSearchApi.as_view(), name="players"),
    path("players/<str:username>/", apis.PlayerProfileApi.as_view(), name="player-profile"),
    path("webhooks/", apis.WebhookListApi.as_view(), name="webhooks"),
    path("webhooks/<int:webhook_id>/", apis.WebhookDetailApi.as_view(), name="webhook"),
    path(
        "webhooks/<int:webhook_id>/deliveries/",
        apis.WebhookDeliveriesApi.as_view(),
        name="webhook-deliveries",
    ),
]
