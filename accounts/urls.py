from django.urls import path

from accounts import apis

urlpatterns = [
    path("auth/register/", apis.RegisterApi.as_view(), name="register"),
    path("auth/token/", apis.TokenApi.as_view(), name="token"),
    path("me/", apis.MeApi.as_view(), name="me"),
    path("players/<str:username>/", apis.PlayerProfileApi.as_view(), name="player-profile"),
    path("webhooks/", apis.WebhookListApi.as_view(), name="webhooks"),
    path("webhooks/<int:webhook_id>/", apis.WebhookDetailApi.as_view(), name="webhook"),
    path(
        "webhooks/<int:webhook_id>/deliveries/",
        apis.WebhookDeliveriesApi.as_view(),
        name="webhook-deliveries",
    ),
]
