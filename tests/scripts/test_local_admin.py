"""`make run`'s local admin, created through `manage.py` as `scripts/stack.py` does it,
with generated passwords (about one in 64 starts with "-", once read as an option)."""

import os
import secrets

import pytest
from django.contrib.auth import authenticate

from scripts import stack
from tests.servers import database_url

pytestmark = pytest.mark.django_db(transaction=True)


def _generated_starting_with_dash() -> str:
    while not (password := secrets.token_urlsafe(12)).startswith("-"):
        pass
    return password


PASSWORDS = {
    "seen": lambda: "-CUEOki45lCuiMYp",
    "generated_with_dash": _generated_starting_with_dash,
    "generated": lambda: secrets.token_urlsafe(12),
    "an_option_name": lambda: "--help",
}


@pytest.mark.parametrize("kind", PASSWORDS)
def test_local_admin_gets_any_generated_password(kind):
    password = PASSWORDS[kind]()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": database_url(),
    }
    stack.ensure_local_admin(env, password)
    stack.ensure_local_admin(env, password)  # every later `make run` does it again

    admin = authenticate(username="admin", password=password)
    assert admin is not None and admin.is_superuser and admin.is_staff
