"""Password rules beyond Django's validators (settings.AUTH_PASSWORD_VALIDATORS)."""

import re

from django.core.exceptions import ValidationError

_NOT_LETTERS = re.compile(r"[\W\d_]+")


class NotBlankValidator:
    """Refuses a password made only of whitespace, which passes the length rule."""

    def validate(self, password: str, user=None) -> None:
        if not password.strip():
            raise ValidationError("This password is only whitespace.", code="password_blank")

    def get_help_text(self) -> str:
        return "Your password can't be only whitespace."


class SiteNameValidator:
    """Refuses the site's own name, in any case and with digits or punctuation around it
    (`LiarsDice2024!`): the first word an attacker tries against this site."""

    def __init__(self, names: tuple[str, ...] = ("liarsdice",)) -> None:
        self.names = {_NOT_LETTERS.sub("", n.casefold()) for n in names}

    def validate(self, password: str, user=None) -> None:
        if _NOT_LETTERS.sub("", password.casefold()) in self.names:
            raise ValidationError("This password is the site's name.", code="password_site_name")

    def get_help_text(self) -> str:
        return "Your password can't be the site's name."
