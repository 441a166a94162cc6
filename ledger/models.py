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

The ledger knows no game: accounts belong to a user (wallets, through
settings.AUTH_USER_MODEL) or to an opaque owner reference, `scope` plus `ref` (e.g. a
stack is scope "match:812", ref "seat:4031"; a pot is scope "match:812" with no ref), and
a transfer records the `scope` and `round_number` it belongs to. Only the layer that
writes a reference knows what it means.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from ledger.errors import LedgerImmutable


class AccountKind(models.TextChoices):
    WALLET = "wallet"  # a user's chips outside any scope
    STACK = "stack"  # a user's chips held inside a scope (e.g. at a table)
    ROUND_POT = "round_pot"  # pots: one of each kind per scope, owned by no user
    GAME_POT = "game_pot"
    PRIZE_POOL = "prize_pool"  # a tournament's buy-ins, one per scope, owned by no user
    # Chips owed to the house but held in a scope until its owner releases them to the
    # house (or returns them to whoever paid), one per scope, owned by no user.
    ESCROW = "escrow"
    HOUSE = "house"  # the house's bankroll: stakes its bots; never minted into
    ISSUER = "issuer"  # -balance = chips in circulation


class TransferKind(models.TextChoices):
    SIGNUP_GRANT = "signup_grant"  # issuer -> a new account's wallet
    BUY_IN = "buy_in"
    ANTE_ROUND = "ante_round"
    ANTE_GAME = "ante_game"
    ROUND_POT_WIN = "round_pot_win"
    GAME_POT_WIN = "game_pot_win"
    CASH_OUT = "cash_out"
    REFUND = "refund"
    ADJUSTMENT = "adjustment"  # issuer <-> a wallet or the house, by staff with a reason
    BOT_FUNDING = "bot_funding"  # house -> a bot's wallet, from the bankroll
    # Retired: issuer -> house, the mint that once covered the house's shortfall. Never
    # written since the bankroll rule; older rows stay (the ledger is append-only).
    HOUSE_FUNDING = "house_funding"
    ENTRY = "entry"  # a tournament's buy-in: wallet (or house) -> its prize pool
    # An entry's fee: wallet -> its scope's escrow, then escrow -> house once settled
    ENTRY_FEE = "entry_fee"
    PRIZE = "prize"  # prize pool -> a placed entrant's wallet (or the house)


POT_KINDS = (AccountKind.ROUND_POT, AccountKind.GAME_POT)
# Accounts held in a scope by no user: a table's pots, a prize pool, chips in escrow for
# the house.
UNOWNED_SCOPED_KINDS = (*POT_KINDS, AccountKind.PRIZE_POOL, AccountKind.ESCROW)
SCOPED_KINDS = (AccountKind.STACK, *UNOWNED_SCOPED_KINDS)

# Longest scope and ref: "<name>:<id>" strings.
REFERENCE_LENGTH = 64


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
        help_text="Owner of a wallet, or the user holding a stack.",
    )
    scope = models.CharField(
        max_length=REFERENCE_LENGTH,
        blank=True,
        default="",
        db_default="",
        help_text='Opaque owner of a stack or pot, e.g. "match:812"; empty otherwise.',
    )
    ref = models.CharField(
        max_length=REFERENCE_LENGTH,
        blank=True,
        default="",
        db_default="",
        help_text='A stack\'s holder within its scope, e.g. "seat:4031"; empty otherwise.',
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
                    Q(kind=AccountKind.WALLET, user__isnull=False, scope="", ref="")
                    | (Q(kind=AccountKind.STACK, user__isnull=False) & ~Q(scope="") & ~Q(ref=""))
                    | (Q(kind__in=UNOWNED_SCOPED_KINDS, user__isnull=True, ref="") & ~Q(scope=""))
                    | Q(
                        kind__in=(AccountKind.HOUSE, AccountKind.ISSUER),
                        user__isnull=True,
                        scope="",
                        ref="",
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
                fields=["scope", "ref"],
                condition=Q(kind=AccountKind.STACK),
                name="ledger_account_one_stack_per_ref",
            ),
            models.UniqueConstraint(
                fields=["scope", "kind"],
                condition=Q(kind__in=UNOWNED_SCOPED_KINDS),
                name="ledger_account_one_pot_per_kind_per_scope",
            ),
            models.UniqueConstraint(
                fields=["kind"],
                condition=Q(kind__in=(AccountKind.HOUSE, AccountKind.ISSUER)),
                name="ledger_account_one_house_one_issuer",
            ),
        ]
        indexes = [
            models.Index(
                fields=["scope", "kind"], condition=~Q(scope=""), name="ledger_account_scope_idx"
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
        """How a movement names this account: wallet:17, house, round_pot, a stack's ref
        ("seat:4031"), or the name its owner gave it in memory (`account.label = "seat:2"`;
        never stored)."""
        given = self.__dict__.get("given_label")
        if given is not None:
            return given
        if self.kind == AccountKind.WALLET:
            return f"wallet:{self.user_id}"
        if self.kind == AccountKind.STACK:
            return self.ref
        return str(self.kind)

    @label.setter
    def label(self, value: str) -> None:
        self.__dict__["given_label"] = value


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
    scope = models.CharField(
        max_length=REFERENCE_LENGTH,
        blank=True,
        default="",
        db_default="",
        help_text='Opaque reference of what moved it, e.g. "match:812"; empty for none.',
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
            models.Index(
                fields=["scope", "round_number"],
                condition=~Q(scope=""),
                name="ledger_transfer_scope_idx",
            ),
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
            self.scope,
            self.round_number,
            self.actor_id,
            self.reason,
        )
