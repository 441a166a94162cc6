from datetime import timedelta

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts import selectors, services
from accounts.authentication import WalletBearerTokenAuthentication
from accounts.errors import (
    AccountDisabled,
    BotForGood,
    InvalidCredentials,
    TooManyWebhooks,
    WebhookRejected,
)
from accounts.models import ApiToken, Webhook
from accounts.permissions import TokenHasScope
from accounts.serializers import (
    MeOutput,
    MeUpdateInput,
    PlayerProfileOutput,
    PlayerRef,
    PlayerSearchQuery,
    RegisterInput,
    RegisterOutput,
    TokenObtainInput,
    TokenOutput,
    WebhookDeliveryOutput,
    WebhookInput,
    WebhookOutput,
    me_payload,
)
from accounts.throttles import (
    LoginBackoffThrottle,
    LoginIpThrottle,
    PerIpAnonThrottle,
    PlayerSearchThrottle,
    RegisterIpThrottle,
    RegisterUsernameThrottle,
    login_succeeded,
    registration_failed,
)
from core.idempotency import IDEMPOTENCY_HEADER, IdempotentView, idempotent
from core.inputs import validated
from core.query import parse_query
from core.schema import problems
from ledger.selectors import wallet_balance


def _expires_in(data: dict) -> timedelta | None:
    seconds = data.get("expires_in")
    return timedelta(seconds=seconds) if seconds else None


def _issued(token: ApiToken, raw: str) -> dict:
    return {"token": raw, "expires_at": token.expires_at, "scopes": token.scopes}


class RegisterApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []
    token_scope = None  # reads no token
    throttle_classes = [RegisterIpThrottle, RegisterUsernameThrottle, PerIpAnonThrottle]

    def finalize_response(self, request: Request, response: Response, *args, **kwargs) -> Response:
        # Only created accounts count against the address (RegisterIpThrottle).
        if response.status_code != status.HTTP_201_CREATED:
            registration_failed(request)
        return super().finalize_response(request, response, *args, **kwargs)

    @extend_schema(
        request=RegisterInput,
        responses={201: RegisterOutput},
        auth=[],
        tags=["auth"],
        summary="Create an account and get its first token",
        description="Registers a player and returns a bearer token (shown once) for "
        "`Authorization: Bearer <token>`, named `registration`, with the `scopes` asked for "
        "(all when omitted) and an optional `expires_in`. `is_bot: true` registers a "
        "program's account (for good). The account starts with the signup chips. A taken "
        "username or a weak password is a 400 naming the field; only created accounts count "
        "against the address's `register_ip` allowance.",
    )
    def post(self, request: Request) -> Response:
        data = validated(RegisterInput, request.data)
        user, token, raw = services.user_register(
            username=data["username"],
            password=data["password"],
            is_bot=data["is_bot"],
            expires_in=_expires_in(data),
            scopes=data.get("scopes"),
        )
        body = {"id": user.pk, "username": user.username, "is_bot": user.is_bot}
        body.update(_issued(token, raw))
        return Response(RegisterOutput(body).data, status=status.HTTP_201_CREATED)


class TokenApi(APIView):
    # Logging in reads no token; any token may log itself out.
    token_scope = {"POST": None, "DELETE": None}

    def get_permissions(self) -> list[BasePermission]:
        return [AllowAny()] if self.request.method == "POST" else [IsAuthenticated()]

    def get_throttles(self) -> list[BaseThrottle]:
        if self.request.method == "POST":
            return [LoginIpThrottle(), LoginBackoffThrottle()]
        return super().get_throttles()

    def perform_authentication(self, request: Request) -> None:
        # Logging in must work even when the client still sends an expired token.
        if request.method != "POST":
            super().perform_authentication(request)

    @extend_schema(
        request=TokenObtainInput,
        responses={200: TokenOutput},
        auth=[],
        tags=["auth"],
        summary="Log in: exchange username and password for a new token",
        description="A new token for an existing account (shown once), with the `scopes` "
        "asked for (all when omitted); `expires_in` makes it expire. It replaces (revokes) "
        "your live token of the same `name` (`login` when none is given), so repeated "
        "logins do not pile up; tokens of other names stay valid.",
        extensions=problems(InvalidCredentials, AccountDisabled),
    )
    def post(self, request: Request) -> Response:
        data = validated(TokenObtainInput, request.data)
        token, raw = services.token_obtain(
            username=data["username"],
            password=data["password"],
            expires_in=_expires_in(data),
            name=data["name"],
            scopes=data.get("scopes"),
        )
        login_succeeded(request)
        return Response(TokenOutput({**_issued(token, raw), "name": token.name}).data)

    @extend_schema(
        request=None,
        responses={204: None},
        tags=["auth"],
        summary="Revoke the token used for this request",
        description="Logs out this token; it is refused from now on.",
    )
    def delete(self, request: Request) -> Response:
        services.token_revoke(token=request.auth)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeApi(APIView):
    authentication_classes = [WalletBearerTokenAuthentication]
    token_scope = {"GET": "read", "PATCH": "account"}

    @extend_schema(
        responses={200: MeOutput},
        tags=["accounts"],
        summary="Your account",
        description="Your profile, stats and wallet balance (`chips`).",
    )
    def get(self, request: Request) -> Response:
        return Response(me_payload(request.user, chips=request.auth.wallet_balance))

    @extend_schema(
        request=MeUpdateInput,
        responses={200: MeOutput},
        tags=["accounts"],
        summary="Change your account: show your balance, or declare it a bot for good",
        description="`show_chips: true` lists you with your wallet balance on the "
        "leaderboard by chips; `false` (every account's default) keeps your balance to "
        "yourself. A person's account becomes a program's with `is_bot: true` (better: "
        "register it so, `is_bot` on `POST /auth/register/`); other players see it on "
        "every seat, and quick play keeps it from people unless its seek asks. A bot "
        "never turns back: `is_bot: false` on a bot's account is a 409 `bot_for_good`.",
        extensions=problems(BotForGood),
    )
    def patch(self, request: Request) -> Response:
        user = services.user_update(user=request.user, **validated(MeUpdateInput, request.data))
        return Response(me_payload(user, chips=wallet_balance(user=user)))


class PlayerSearchApi(APIView):
    token_scope = "read"

    def get_throttles(self) -> list[BaseThrottle]:
        return [*super().get_throttles(), PlayerSearchThrottle()]

    @extend_schema(
        parameters=[PlayerSearchQuery],
        responses={200: PlayerRef(many=True)},
        tags=["accounts"],
        summary="Find players by the start of their name",
        description="Up to `limit` active players whose username starts with `search` "
        "(any case): an exact match first, then the shortest names. Public names only "
        "(`id`, `username`, `is_bot`), for finding whom to challenge; rate-limited per "
        "account (`player_search`).",
    )
    def get(self, request: Request) -> Response:
        query = parse_query(request, PlayerSearchQuery)
        players = selectors.player_search(prefix=query["search"], limit=query["limit"])
        return Response(PlayerRef(players, many=True).data)


class PlayerProfileApi(APIView):
    permission_classes = [AllowAny, TokenHasScope]
    token_scope = "read"

    @extend_schema(
        responses={200: PlayerProfileOutput},
        tags=["accounts"],
        summary="A player's public profile and stats",
        description="What anyone may know about a player: rating and games.",
    )
    def get(self, request: Request, username: str) -> Response:
        player = selectors.player_get(username=username)
        return Response(PlayerProfileOutput(player).data)


def _webhook(hook: Webhook, secret: str | None = None) -> dict:
    body = {"id": hook.pk, "url": hook.url, "created_at": hook.created_at}
    if secret is not None:
        body["secret"] = secret
    return WebhookOutput(body).data


class WebhookListApi(IdempotentView, APIView):
    token_scope = "account"

    @extend_schema(
        responses={200: WebhookOutput(many=True)},
        tags=["webhooks"],
        summary="Your webhooks",
        description="The URLs that receive your `your_turn` and `match_finished` "
        "notifications (the document's `webhooks` section describes the bodies).",
    )
    def get(self, request: Request) -> Response:
        hooks = selectors.webhooks_of(user=request.user)
        return Response([_webhook(h) for h in hooks])

    @extend_schema(
        request=WebhookInput,
        responses={201: WebhookOutput},
        parameters=[IDEMPOTENCY_HEADER],
        tags=["webhooks"],
        summary="Register a webhook for your turns and finished matches",
        description="Signed POSTs go to `url` when a turn of yours begins and when your "
        'match ends: `X-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. '
        "The `secret` (yours, or one made for you) is shown only in this answer: a replay "
        "with the same Idempotency-Key answers the same webhook without it.",
        extensions=problems(WebhookRejected, TooManyWebhooks),
    )
    @idempotent(secret_fields=["secret"])
    def post(self, request: Request) -> Response:
        hook, secret = services.webhook_create(
            user=request.user, **validated(WebhookInput, request.data)
        )
        return Response(_webhook(hook, secret), status=status.HTTP_201_CREATED)


class WebhookDetailApi(APIView):
    token_scope = "account"

    @extend_schema(
        responses={204: None},
        tags=["webhooks"],
        summary="Remove a webhook",
        description="Stops deliveries to that URL.",
    )
    def delete(self, request: Request, webhook_id: int) -> Response:
        services.webhook_delete(user=request.user, webhook_id=webhook_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookDeliveriesApi(APIView):
    token_scope = "account"

    @extend_schema(
        responses={200: WebhookDeliveryOutput(many=True)},
        tags=["webhooks"],
        summary="The latest delivery attempts of a webhook",
        description="The 50 latest deliveries, newest first, with the body sent, the "
        "attempts and the receiver's last answer.",
    )
    def get(self, request: Request, webhook_id: int) -> Response:
        deliveries = selectors.webhook_deliveries(user=request.user, webhook_id=webhook_id)
        return Response(WebhookDeliveryOutput(deliveries, many=True).data)
