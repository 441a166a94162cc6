from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Players and tokens"

    def ready(self) -> None:
        from django.db.models.signals import post_delete

        from accounts.authentication import token_deleted
        from accounts.models import ApiToken

        # A token deleted outside the services (the admin's delete, a user's cascade) is
        # refused at once by the processes that remember token checks, as a revoked one.
        post_delete.connect(token_deleted, sender=ApiToken, dispatch_uid="token_deleted")
