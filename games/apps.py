from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Matches"

    def ready(self) -> None:
        from games.stakes import CLOSED_TABLES_CHECK
        from ledger.selectors import audit_check_register

        audit_check_register(CLOSED_TABLES_CHECK)
