"""`manage.py house_fund AMOUNT --by USERNAME --reason TEXT`: a moderator funds the
house's bankroll (or draws it down, with a negative amount) from the command line, as
the admin's "Adjust chips" on the house account does: one staff adjustment from the
issuer, with its reason and author, and its audit record (docs/MODERATION.md)."""

import uuid

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from accounts.models import User
from ledger import services as ledger
from ledger.errors import LedgerError
from ledger.selectors import house_balance
from moderation.services import chips_adjust_record


class Command(BaseCommand):
    help = (
        "Fund the house's bankroll (the chips it stakes its bots with) by a staff "
        "adjustment: positive adds chips from the issuer, negative takes them back."
    )

    def add_arguments(self, parser):
        parser.add_argument("amount", type=int, help="Chips to add (negative: to remove).")
        parser.add_argument("--by", required=True, help="The staff member's username.")
        parser.add_argument("--reason", required=True, help="Why, for the ledger and audit.")

    def handle(self, *args, amount: int, by: str, reason: str, **options):
        actor = User.objects.filter(username=by, is_staff=True, is_active=True).first()
        if actor is None:
            raise CommandError(f"No active staff member named {by!r}.")
        try:
            with transaction.atomic():
                house = ledger.house_account()
                move = ledger.adjustment(
                    account=house,
                    amount=amount,
                    reason=reason,
                    actor=actor,
                    idempotency_key=f"house-fund:{uuid.uuid4().hex}",
                )
                chips_adjust_record(actor=actor, account=house, move=move)
        except LedgerError as exc:
            raise CommandError(exc.detail) from exc
        self.stdout.write(
            self.style.SUCCESS(
                f"Transfer #{move.transfer.pk}: {amount:+d} chips to the house; "
                f"its bankroll holds {house_balance()}."
            )
        )
