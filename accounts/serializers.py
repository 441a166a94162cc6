from django.contrib.auth.validators import UnicodeUsernameValidator
from drf_spectacular.utils import (
    extend_schema_field,
)
from rest_framework import serializers

from accounts.models import User
from accounts.rating_scale import shown_rating
from accounts.scopes import SCOPES
from core.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictRegexField,
)
from core.inputs import StrictInput

_username_field = StrictRegexField(
    r"^[A-Za-z0-9_.-]{3,30}$",
    max_length=30,
    error_messages={"invalid": "Use 3 to 30 letters, digits, '.', '_' or '-'."},
)


def _expires_in_field() -> StrictIntegerField:
    return StrictIntegerField(
        required=False,
        min_value=60,
        max_value=366 * 24 * 3600,
        help_text="Lifetime in seconds; omitted: the token lasts until revoked.",
    )


def _scopes_field(**kwargs: object) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.ChoiceField(choices=list(SCOPES)),
        max_length=len(SCOPES),
        **kwargs,
    )


_SCOPES_HELP = "What the token may do; omitted: every scope. " + " ".join(
    f"`{scope}`: {allows}" for scope, allows in SCOPES.items()
)


class RegisterInput(StrictInput):
    username = _username_field
    password = StrictCharField(max_length=128, trim_whitespace=False, write_only=True)
    is_bot = StrictBooleanField(
        required=False,
        default=False,
        help_text="A program's account: shown on every seat, kept apart from people in "
        "quick play unless a seek asks. Chosen for good.",
    )
    expires_in = _expires_in_field()
    scopes = _scopes_field(required=False, allow_empty=False, help_text=_SCOPES_HELP)


class IssuedTokenOutput(serializers.Serializer):
    token = serializers.CharField(help_text="Shown once; store it safely.")
    expires_at = serializers.DateTimeField(allow_null=True)
    scopes = _scopes_field(help_text="What the token may do.")


class RegisterOutput(IssuedTokenOutput):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()


class TokenObtainInput(StrictInput):
    username = StrictCharField(max_length=150, validators=[UnicodeUsernameValidator()])
    password = StrictCharField(max_length=128, trim_whitespace=False, write_only=True)
    expires_in = _expires_in_field()
    name = StrictCharField(
        max_length=100,
        required=False,
        allow_blank=True,
        default="",
        help_text="A label for the token list. A login replaces your live token of the "
        'same name; omitted or empty: "login".',
    )
    scopes = _scopes_field(required=False, allow_empty=False, help_text=_SCOPES_HELP)


class TokenOutput(IssuedTokenOutput):
    name = serializers.CharField(help_text="The token's name (the one it replaced, if any).")


class PlayerRef(serializers.Serializer):
    """How a player is named in every other response."""

    id = serializers.IntegerField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()


class PlayerSearchQuery(serializers.Serializer):
    search = serializers.RegexField(
        UnicodeUsernameValidator.regex,
        max_length=150,
        help_text="The start of a username (any case): letters, digits and @.+-_ only.",
    )
    limit = serializers.IntegerField(
        min_value=1, max_value=20, default=10, help_text="How many players at most."
    )


class ShownRatingOutput(serializers.Serializer):
    """A rating on the 1500-based scale players see (docs/API.md, "Ratings shown to
    players"): 1500 + 20 (mu - 25), with 20 sigma as its deviation."""

    value = serializers.IntegerField(help_text="1500 + 20 (mu - 25); a newcomer is 1500.")
    deviation = serializers.IntegerField(help_text="20 sigma: 167 for a newcomer.")
    provisional = serializers.BooleanField(
        help_text="sigma above 6 (about the first ten rated matches): shown as 1500?."
    )


class RulesetRatingOutput(serializers.Serializer):
    rating = serializers.FloatField(help_text="The conservative estimate, mu - 3 sigma.")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField(help_text="Rated matches in this preset.")
    shown = serializers.SerializerMethodField(help_text="mu and sigma as players see them.")

    @extend_schema_field(ShownRatingOutput)
    def get_shown(self, rating) -> dict:
        return shown_rating(rating.mu, rating.sigma)


class PlayerProfileOutput(PlayerRef):
    rating = serializers.FloatField(help_text="Over every preset.")
    rating_shown = serializers.SerializerMethodField(
        help_text="The rating over every preset as players see it."
    )
    games_played = serializers.IntegerField()
    games_won = serializers.IntegerField()
    date_joined = serializers.DateTimeField()
    ratings = serializers.SerializerMethodField(
        help_text="By preset, for the presets this player has finished a match in."
    )

    @extend_schema_field(ShownRatingOutput)
    def get_rating_shown(self, user: User) -> dict:
        return shown_rating(user.rating_mu, user.rating_sigma)

    @extend_schema_field(serializers.DictField(child=RulesetRatingOutput()))
    def get_ratings(self, user: User) -> dict:
        return {r.ruleset: RulesetRatingOutput(r).data for r in user.ratings.order_by("ruleset")}


class MeOutput(PlayerRef):
    chips = serializers.IntegerField(help_text="Wallet balance in the chip ledger.")
    show_chips = serializers.BooleanField(
        help_text="Whether the leaderboard by chips lists you with your balance (off by "
        "default: nobody else learns it otherwise)."
    )
    rating = serializers.FloatField()
    rating_shown = ShownRatingOutput(help_text="The rating as players see it.")
    games_played = serializers.IntegerField()
    games_won = serializers.IntegerField()


class MeUpdateInput(StrictInput):
    is_bot = StrictBooleanField(
        required=False,
        help_text="`true` makes your account a bot's, for good; `false` on a bot's is a 409.",
    )
    show_chips = StrictBooleanField(
        required=False,
        help_text="`true` lists you, with your wallet balance, on the leaderboard by chips; "
        "`false` (the default for every account) keeps your balance to yourself.",
    )


def me_payload(user: User, *, chips: int) -> dict:
    return {
        "id": user.pk,
        "username": user.username,
        "is_bot": user.is_bot,
        "chips": chips,
        "show_chips": user.show_chips,
        "rating": user.rating,
        "rating_shown": shown_rating(user.rating_mu, user.rating_sigma),
        "games_played": user.games_played,
        "games_won": user.games_won,
    }


class WebhookInput(StrictInput):
    url = serializers.URLField(max_length=500)
    secret = StrictCharField(
        min_length=16,
        max_length=128,
        required=False,
        help_text="16 to 128 characters, to sign each delivery. Omitted: the server makes "
        "one and shows it once.",
    )


class WebhookOutput(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField()
    created_at = serializers.DateTimeField()
    secret = serializers.CharField(required=False, help_text="Only in the creation response.")


@extend_schema_field({"$ref": "#/components/schemas/WebhookPayload"})
class WebhookPayloadField(serializers.DictField):
    """The stored body as sent (a plain dict at run time), typed by `event` in the schema
    (the account events' registry, `games.events`, adds the component)."""


class WebhookDeliveryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    event = serializers.CharField(help_text="The event's type, as in the body's `event`.")
    payload = WebhookPayloadField()
    status = serializers.ChoiceField(choices=["pending", "delivered", "failed"])
    attempts = serializers.IntegerField()
    last_status_code = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField()
    created_at = serializers.DateTimeField()
    delivered_at = serializers.DateTimeField(allow_null=True)


class TokenListEntryOutput(serializers.Serializer):
    """One of your tokens; never its secret."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="Its first characters, to tell tokens apart.")
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(
        allow_null=True, help_text="To the minute; null when never used."
    )
    expires_at = serializers.DateTimeField(allow_null=True, help_text="Null: until revoked.")
    scopes = _scopes_field(help_text="What the token may do.")
    current = serializers.BooleanField(help_text="The token authenticating this request.")
