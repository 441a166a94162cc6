import factory

from accounts.models import User

DEFAULT_PASSWORD = "correct-horse-battery-staple"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"player{n}")
    password = factory.PostGenerationMethodCall("set_password", DEFAULT_PASSWORD)

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class PlayerFactory(UserFactory):
    """A user with the starting chips a registered account gets."""

    @factory.post_generation
    def chips(obj, create, extracted, **kwargs):
        if create:
            from ledger.services import signup_grant

            signup_grant(user=obj, amount=extracted)


# Passes every password validator (AUTH_PASSWORD_VALIDATORS and ours).
STRONG_PASSWORD = "a-Long-and-unusual-passphrase-42"
