"""`manage.py rules_help`: print docs/RULES.md section 5 as games/rules_help.py makes it,
or (`--write`) put it into docs/RULES.md."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from games.rules_help import rules_help_markdown, with_rules_help


class Command(BaseCommand):
    help = "Print (or --write into docs/RULES.md) the players' rules help section."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--write", action="store_true", help="Rewrite docs/RULES.md.")

    def handle(self, *args, write: bool = False, **options) -> None:
        if not write:
            self.stdout.write(rules_help_markdown(), ending="")
            return
        page = Path(settings.BASE_DIR) / "docs" / "RULES.md"
        page.write_text(with_rules_help(page.read_text()))
        self.stdout.write(f"wrote {page}")
