from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from games.services.endings import abort_agreement_veto
        from games.services.publish import match_end_listen
        from ledger.selectors import audit_check_register
        from tournaments.money import CLOSED_POOLS_CHECK
        from tournaments.services import table_abort_veto, table_ended

        audit_check_register(CLOSED_POOLS_CHECK)
        match_end_listen(table_ended)
        abort_agreement_veto(table_abort_veto)
