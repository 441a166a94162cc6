from django.core.management.base import BaseCommand

from accounts.models import User


class Command(BaseCommand):
    help = "Creates (or resets the password of) a superuser for local development."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--username", default="admin")
        parser.add_argument("--password", required=True)

    def handle(self, *args, username: str, password: str, **options) -> None:
        user, created = User.objects.get_or_create(
            username=username, defaults={"is_staff": True, "is_superuser": True}
        )
        user.is_staff = user.is_superuser = True
        user.set_password(password)
        user.save()
        self.stdout.write(f"{'Created' if created else 'Updated'} local admin '{username}'.")
