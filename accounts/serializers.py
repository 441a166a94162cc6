from django.contrib.auth.validators import UnicodeUsernameValidator
from rest_framework import serializers

from accounts.models import User
from core.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictRegexField,
)

_username_field = StrictRegexField(
    r"^[A-Za-z0-9_.-]{3,30}$",
    max_length=30,
    error_messages={"invalid": "Use 3 to 30 letters, digits, '.', '_' or '-'."},
)


class RegisterInput(serializers.Serializer):
    username = _username_field
    password = StrictCharField(max_length=128, trim_whitespace=False, write_only=True)


class RegisterOutput(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    token = serializers.CharField(help_text="Shown once; store it safely.")


class TokenObtainInput(serializers.Serializer):
    username = StrictCharField(max_length=150, validators=[UnicodeUsernameValidator()])
    password = StrictCharField(max_length=128, trim_whitespace=False, write_only=True)
    expires_in = StrictIntegerField(
        required=False,
        min_value=60,
        max_value=366 * 24 * 3600,
        help_text="Lifetime in seconds; omitted: the token lasts until revoked.",
    )


class TokenOutput(serializers.Serializer):
    token = serializers.CharField(help_text="Shown once; store it safely.")
    expires_at = serializers.DateTimeField(allow_null=True)


class PlayerRef(serializers.Serializer):
    """How a player is named in every other response."""

    id = serializers.IntegerField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()


class PlayerProfileOutput(PlayerRef):
    rating = serializers.FloatField()
    games_played = serializers.IntegerField()
    games_won = serializers.IntegerField()
    date_joined = serializers.DateTimeField()


class MeOutput(PlayerRef):
    chips = serializers.IntegerField(help_text="Wallet balance in the chip ledger.")
    rating = serializers.FloatField()
    games_played = serializers.IntegerField()
    games_won = serializers.IntegerField()


class MeUpdateInput(serializers.Serializer):
    is_bot = StrictBooleanField(required=False)


def me_payload(user: User, *, chips: int) -> dict:
    return {
        "id": user.pk,
        "username": user.username,
        "is_bot": user.is_bot,
        "chips": chips,
        "rating": user.rating,
        "games_played": user.games_played,
        "games_won": user.games_won,
    }


class WebhookInput(serializers.Serializer):
    url = serializers.URLField(max_length=500)
    secret = StrictCharField(
        min_length=16,
        max_length=128,
        required=False,
        help_text="Omitted: the server makes one and shows it once.",
    )


class WebhookOutput(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField()
    created_at = serializers.DateTimeField()
    secret = serializers.CharField(required=False, help_text="Only in the creation response.")


class WebhookDeliveryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    event = serializers.CharField()
    payload = serializers.DictField()
    status = serializers.ChoiceField(choices=["pending", "delivered", "failed"])
    attempts = serializers.IntegerField()
    last_status_code = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField()
    created_at = serializers.DateTimeField()
    delivered_at = serializers.DateTimeField(allow_null=True)
