"""The chip ledger: accounts with cached balances and append-only double-entry transfers.

Guarantees held by PostgreSQL itself (installed by migrations, see 0002_triggers and
0003_guard_by_setting_and_no_truncate):
* a transfer row can never be updated, deleted or truncated (triggers);
* inserting a transfer moves its amount from `debit` to `credit` in the same statement
  (AFTER INSERT trigger), so a cached balance always equals the sum of its transfers,
  whoever inserts the row;
* a balance cannot be edited directly, only through transfers (trigger), and no account
  but the issuer may go negative (CHECK constraint), so an overdraft fails even when the
  service check is bypassed.
The Django layer refuses updates and deletes too, with `LedgerImmutable`.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from ledger.errors import LedgerImmutable


class AccountKind(models.TextChoices):
    WALLET = "wallet"  # a player's chips outside any match
    STACK = "stack"  # a seat's chips on the table
    ROUND_POT = "round_pot"
    GAME_POT = "game_pot"
    HOUSE = "house"  # funds sign-up grants and bots
    ISSUER = "issuer"  # -balance = chips in circulation


class TransferKind(models.TextChoices):
    SIGNUP_GRANT = "signup_grant"
    BUY_IN = "buy_in"
    ANTE_ROUND = "ante_round"
    ANTE_GAME = "ante_game"
    ROUND_POT_WIN = "round_pot_win"
    GAME_POT_WIN = "game_pot_win"
    CASH_OUT = "cash_out"
    REFUND = "refund"
    ADJUSTMENT = "adjustment"
    BOT_FUNDING = "bot_funding"
    HOUSE_FUNDING = "house_funding"  # issuer -> house: chips enter circulation


POT_KINDS = (AccountKind.ROUND_POT, AccountKind.GAME_POT)


class AccountQuerySet(models.QuerySet):
    def update(self, **kwargs):
        if "balance" in kwargs:
            raise LedgerImmutable("Balances move only through transfers.")
        return super().update(**kwargs)

    def delete(self):
        raise LedgerImmutable("Ledger accounts are never deleted.")


class Account(models.Model):
    kind = models.CharField(max_length=16, choices=AccountKind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="ledger_accounts",
        help_text="Owner of a wallet, or the player at a stack's seat.",
    )
    match = models.ForeignKey(
        "games.Match",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="ledger_accounts",
    )
    seat = models.ForeignKey(
        "games.Seat",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="ledger_accounts",
    )
    balance = models.BigIntegerField(
        default=0, editable=False, help_text="Cached sum of the account's transfers."
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    objects = AccountQuerySet.as_manager()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(balance__gte=0) | Q(kind=AccountKind.ISSUER),
                name="ledger_account_balance_non_negative",
            ),
            models.CheckConstraint(
                condition=~Q(kind=AccountKind.ISSUER) | Q(balance__lte=0),
                name="ledger_account_issuer_non_positive",
            ),
            models.CheckConstraint(
                condition=(
                    Q(
                        kind=AccountKind.WALLET,
                        user__isnull=False,
                        match__isnull=True,
                        seat__isnull=True,
                    )
                    | Q(
                        kind=AccountKind.STACK,
                        user__isnull=False,
                        match__isnull=False,
                        seat__isnull=False,
                    )
                    | Q(
                        kind__in=POT_KINDS,
                        user__isnull=True,
                        match__isnull=False,
                        seat__isnull=True,
                    )
                    | Q(
                        kind__in=(AccountKind.HOUSE, AccountKind.ISSUER),
                        user__isnull=True,
                        match__isnull=True,
                        seat__isnull=True,
                    )
                ),
                name="ledger_account_kind_shape",
            ),
            models.UniqueConstraint(
                fields=["user"],
                condition=Q(kind=AccountKind.WALLET),
                name="ledger_account_one_wallet_per_user",
            ),
            models.UniqueConstraint(
                fields=["seat"],
                condition=Q(kind=AccountKind.STACK),
                name="ledger_account_one_stack_per_seat",
            ),
            models.UniqueConstraint(
                fields=["match", "kind"],
                condition=Q(kind__in=POT_KINDS),
                name="ledger_account_one_pot_per_kind_per_match",
            ),
            models.UniqueConstraint(
                fields=["kind"],
                condition=Q(kind__in=(AccountKind.HOUSE, AccountKind.ISSUER)),
                name="ledger_account_one_house_one_issuer",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.label} (#{self.pk})"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise LedgerImmutable("Ledger accounts are never edited; make a transfer.")
        if self.balance != 0:
            raise LedgerImmutable("An account opens with a zero balance.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise LedgerImmutable("Ledger accounts are never deleted.")

    @property
    def label(self) -> str:
        """How a movement names this account: seat:2, round_pot, wallet:17, house..."""
        if self.kind == AccountKind.STACK:
            seat = self.seat if "seat" in self._state.fields_cache else None
            return f"seat:{seat.seat}" if seat is not None else f"stack:{self.seat_id}"
        if self.kind == AccountKind.WALLET:
            return f"wallet:{self.user_id}"
        return str(self.kind)


class TransferQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise LedgerImmutable("Transfers are append-only; make a compensating transfer.")

    def delete(self):
        raise LedgerImmutable("Transfers are append-only; make a compensating transfer.")


class Transfer(models.Model):
    """One immutable movement of `amount` chips from `debit` to `credit`."""

    debit = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="debits")
    credit = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="credits")
    amount = models.BigIntegerField()
    kind = models.CharField(max_length=20, choices=TransferKind.choices)
    match = models.ForeignKey(
        "games.Match",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="ledger_transfers",
        db_index=False,  # covered by ledger_transfer_match_idx
    )
    round_number = models.PositiveIntegerField(null=True, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="ledger_actions",
        help_text="Who caused it (the admin for adjustments).",
    )
    reason = models.TextField(blank=True)
    idempotency_key = models.CharField(max_length=255, unique=True)
    # Balances right after this transfer, written by the service from the locked rows and
    # checked by the database trigger (NULL only for rows inserted outside the service).
    debit_balance_after = models.BigIntegerField(null=True, blank=True)
    credit_balance_after = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    objects = TransferQuerySet.as_manager()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(amount__gt=0), name="ledger_transfer_amount_positive"
            ),
            models.CheckConstraint(
                condition=~Q(debit=models.F("credit")), name="ledger_transfer_distinct_accounts"
            ),
            models.CheckConstraint(
                condition=~Q(kind=TransferKind.ADJUSTMENT)
                | (Q(actor__isnull=False) & ~Q(reason="")),
                name="ledger_transfer_adjustment_has_reason_and_actor",
            ),
            models.CheckConstraint(
                condition=~Q(idempotency_key=""), name="ledger_transfer_key_not_empty"
            ),
            models.CheckConstraint(
                condition=Q(kind__in=TransferKind.values), name="ledger_transfer_kind_valid"
            ),
        ]
        indexes = [
            models.Index(fields=["match", "round_number"], name="ledger_transfer_match_idx"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.kind} {self.amount} ({self.debit_id} -> {self.credit_id})"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise LedgerImmutable("Transfers are append-only; make a compensating transfer.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise LedgerImmutable("Transfers are append-only; make a compensating transfer.")

    def payload(self) -> tuple:
        """What an idempotent replay must repeat exactly: who made an adjustment and why
        are part of it, so a key reused for another reason is a conflict, not a replay."""
        return (
            self.debit_id,
            self.credit_id,
            self.amount,
            self.kind,
            self.match_id,
            self.round_number,
            self.actor_id,
            self.reason,
        )
