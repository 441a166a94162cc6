import os

from django.core.management.base import BaseCommand, CommandError

from accounts.models import User

PASSWORD_VARIABLE = "LOCAL_ADMIN_PASSWORD"


class Command(BaseCommand):
    help = (
        "Creates (or resets the password of) a superuser for local development. The "
        f"password comes from {PASSWORD_VARIABLE} (or --password=<pw>), so one starting "
        'with "-" is not taken for an option.'
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--username", default="admin")
        parser.add_argument("--password", default=None)

    def handle(self, *args, username: str, password: str | None, **options) -> None:
        password = password if password is not None else os.environ.get(PASSWORD_VARIABLE)
        if not password:
            raise CommandError(f"Set {PASSWORD_VARIABLE} (or pass --password=<pw>).")
        user, created = User.objects.get_or_create(
            username=username, defaults={"is_staff": True, "is_superuser": True}
        )
        user.is_staff = user.is_superuser = True
        user.set_password(password)
        user.save()
        self.stdout.write(f"{'Created' if created else 'Updated'} local admin '{username}'.")
