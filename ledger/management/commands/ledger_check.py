"""`manage.py ledger_check`: audits every ledger invariant; exits 1 when any fails. It
also reads out the house's bankroll: its balance and where its chips came from and went."""

from django.core.management.base import BaseCommand, CommandError

from ledger.selectors import circulation, house_balance, house_flows, ledger_problems


class Command(BaseCommand):
    help = (
        "Verify the chip ledger: double entry sums to zero, every cached balance equals its "
        "transfers, no negative balance, chips minted only as signup grants and staff "
        "adjustments (never for the house), and the checks other apps register (e.g. "
        "finished and aborted matches hold no chips). Prints the house's bankroll."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--limit", type=int, default=20, help="Offending rows shown per failed check."
        )

    def handle(self, *args, limit: int = 20, **options):
        failures = ledger_problems(limit=limit)
        flows = house_flows()
        self.stdout.write(f"House bankroll: {house_balance()} chips.")
        for side, label in (("in", "  in"), ("out", "  out")):
            parts = ", ".join(f"{kind} {chips}" for kind, chips in flows[side].items())
            self.stdout.write(f"{label}: {parts or 'nothing'}")
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
