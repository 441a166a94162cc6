"""`manage.py ledger_check`: audits every ledger invariant; exits 1 when any fails."""

from django.core.management.base import BaseCommand, CommandError

from ledger.selectors import circulation, ledger_problems


class Command(BaseCommand):
    help = (
        "Verify the chip ledger: double entry sums to zero, every cached balance equals its "
        "transfers, no negative balance, and the checks other apps register (e.g. finished and "
        "aborted matches hold no chips)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--limit", type=int, default=20, help="Offending rows shown per failed check."
        )

    def handle(self, *args, limit: int = 20, **options):
        failures = ledger_problems(limit=limit)
        if not failures:
            self.stdout.write(
                self.style.SUCCESS(f"Ledger OK: {circulation()} chips in circulation.")
            )
            return
        for name, rows in failures:
            self.stderr.write(self.style.ERROR(f"FAILED: {name}"))
            for row in rows:
                self.stderr.write("  " + ", ".join(f"{k}={v}" for k, v in row.items()))
        raise CommandError(f"{len(failures)} ledger invariant(s) failed.", returncode=1)
