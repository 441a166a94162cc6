"""The ledger's writes: every chip movement goes through `transfer` (one movement) or
`transfer_batch` (many, one INSERT). The ledger knows no game: accounts are wallets,
the house, the issuer, or stacks and pots named by an opaque `scope`/`ref` that the layer
above chooses (games.stakes holds the table's money rules and key formats).

Locks: every function here locks the accounts it touches with one `SELECT ... ORDER BY
id FOR UPDATE` before moving anything (`accounts_lock`), so accounts are always locked
in ascending id. Where that falls among the locks of the layers above (a caller's own
rows before, users after) is written once, in games/services/locks.py.
Accounts are created (get-or-create) before any account lock is taken, as waiting on
another transaction's insert while holding locks could deadlock.

Idempotency: every transfer carries a unique key. `transfer` inserts with
`ON CONFLICT (idempotency_key) DO NOTHING`: when the key exists (a replay, or a concurrent
caller that won the race, whose commit the insert waits for) the stored transfer is
compared with the request: the same payload returns it and moves nothing, a different
payload raises `IdempotencyKeyReused`. Callers derive keys from what they do (the games
layer from match, round and seat), so a retried operation is safe.

All functions are keyword-only where they take options, may run inside the caller's
transaction, and the movement helpers return `Movement`s a caller can report as
`{from, to, amount, kind}` (named by `Account.label`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Max, Q
from django.utils import timezone

from ledger.errors import (
    HouseBankrollInsufficient,
    IdempotencyKeyReused,
    InsufficientChips,
    InvalidTransfer,
    LedgerError,
)
from ledger.models import SCOPED_KINDS, Account, AccountKind, Transfer, TransferKind

# A user: any instance of settings.AUTH_USER_MODEL (the ledger reads only its `pk`).
User = Any

MAX_KEY_LENGTH = 255


@dataclass(frozen=True)
class Movement:
    """One transfer as the game reports it."""

    transfer: Transfer
    from_label: str
    to_label: str
    replayed: bool = False

    @property
    def amount(self) -> int:
        return self.transfer.amount

    @property
    def kind(self) -> str:
        return self.transfer.kind

    def as_dict(self) -> dict[str, Any]:
        return {
            "from": self.from_label,
            "to": self.to_label,
            "amount": self.transfer.amount,
            "kind": self.transfer.kind,
        }

    @classmethod
    def replay_of(cls, existing: Transfer, debit: Account, credit: Account) -> Movement:
        """A transfer found under its key, reported as a replay (nothing moved)."""
        existing.replayed = True
        return cls(existing, debit.label, credit.label, replayed=True)


# --------------------------------------------------------------------------- accounts


def issuer_account() -> Account:
    return Account.objects.get_or_create(kind=AccountKind.ISSUER)[0]


def house_account() -> Account:
    return Account.objects.get_or_create(kind=AccountKind.HOUSE)[0]


def wallet_for(user: User) -> Account:
    return wallet_for_user_id(user.pk)


def wallet_for_user_id(user_id: int) -> Account:
    return Account.objects.get_or_create(kind=AccountKind.WALLET, user_id=user_id)[0]


def scoped_account(*, kind: str, scope: str, ref: str = "", user_id: int | None = None) -> Account:
    """The stack (`ref` and its holder `user_id` given) or pot of `scope`, opened at zero
    the first time it is asked for."""
    if kind not in SCOPED_KINDS or not scope:
        raise InvalidTransfer(f"A {kind!r} account is not held in a scope.")
    defaults = {"user_id": user_id} if kind == AccountKind.STACK else {}
    return Account.objects.get_or_create(kind=kind, scope=scope, ref=ref, defaults=defaults)[0]


def accounts_lock(*, accounts: Iterable[Account]) -> None:
    """Locks the accounts in ascending id order and refreshes their `balance` in place."""
    by_id: dict[int, list[Account]] = {}
    for account in accounts:
        by_id.setdefault(account.pk, []).append(account)
    if not by_id:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, balance FROM ledger_account WHERE id = ANY(%s) ORDER BY id FOR UPDATE",
            [sorted(by_id)],
        )
        for account_id, balance in cursor.fetchall():
            for account in by_id[account_id]:
                account.balance = balance


# --------------------------------------------------------------------------- transfer

_LOCK_PAIR_SQL = (
    "SELECT id, kind, balance FROM ledger_account WHERE id IN (%s, %s) ORDER BY id FOR UPDATE"
)
_INSERT_HEAD = (
    "INSERT INTO ledger_transfer (debit_id, credit_id, amount, kind, scope, round_number,"
    " actor_id, reason, idempotency_key, debit_balance_after, credit_balance_after,"
    " created_at) VALUES "
)
_INSERT_ROW = "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
_INSERT_SQL = f"{_INSERT_HEAD}{_INSERT_ROW} ON CONFLICT (idempotency_key) DO NOTHING RETURNING id"


def _validate(
    *,
    debit: Account,
    credit: Account,
    amount: int,
    kind: str,
    idempotency_key: str,
    actor: User | None,
    reason: str,
) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise InvalidTransfer(f"A transfer moves a positive whole number of chips, not {amount!r}.")
    if debit.pk is None or credit.pk is None:
        raise InvalidTransfer("Both accounts must exist.")
    if debit.pk == credit.pk:
        raise InvalidTransfer("A transfer needs two different accounts.")
    if kind not in TransferKind.values:
        raise InvalidTransfer(f"Unknown transfer kind {kind!r}.")
    if not idempotency_key or len(idempotency_key) > MAX_KEY_LENGTH:
        raise InvalidTransfer(f"An idempotency key has 1 to {MAX_KEY_LENGTH} characters.")
    if kind == TransferKind.ADJUSTMENT and (actor is None or not reason.strip()):
        raise InvalidTransfer("An adjustment needs a reason and the person making it.")


def transfer(
    *,
    debit: Account,
    credit: Account,
    amount: int,
    kind: str,
    idempotency_key: str,
    scope: str = "",
    round_number: int | None = None,
    actor: User | None = None,
    reason: str = "",
) -> Transfer:
    """Moves `amount` chips from `debit` to `credit`, atomically and exactly once.

    `scope` and `round_number` say what the movement belongs to (opaque to the ledger).
    Returns the Transfer with `replayed` set: False when this call moved the chips, True
    when the key was already used for the same payload (nothing moved). Updates
    `debit.balance` and `credit.balance` in place. Raises InsufficientChips,
    IdempotencyKeyReused or InvalidTransfer; a domain error leaves the caller's
    transaction usable (nothing was written).
    """
    _validate(
        debit=debit,
        credit=credit,
        amount=amount,
        kind=kind,
        idempotency_key=idempotency_key,
        actor=actor,
        reason=reason,
    )
    actor_id = actor.pk if actor is not None else None
    error: LedgerError | None = None
    # No savepoint: a domain error is raised after the block, and only when nothing was
    # written, so the caller's transaction stays usable without SAVEPOINT/RELEASE.
    with transaction.atomic(savepoint=False), connection.cursor() as cursor:
        try:
            result = _transfer_locked(
                cursor,
                debit=debit,
                credit=credit,
                amount=amount,
                kind=kind,
                idempotency_key=idempotency_key,
                scope=scope,
                round_number=round_number,
                actor_id=actor_id,
                reason=reason,
            )
        except LedgerError as exc:
            if isinstance(exc.__cause__, IntegrityError):
                raise  # the database refused: this transaction is aborted anyway
            error = exc
    if error is not None:
        raise error
    return result


def _transfer_locked(
    cursor,
    *,
    debit: Account,
    credit: Account,
    amount: int,
    kind: str,
    idempotency_key: str,
    scope: str,
    round_number: int | None,
    actor_id: int | None,
    reason: str,
) -> Transfer:
    payload = (debit.pk, credit.pk, amount, kind, scope, round_number, actor_id, reason)
    cursor.execute(_LOCK_PAIR_SQL, [debit.pk, credit.pk])
    locked = {row[0]: (row[1], row[2]) for row in cursor.fetchall()}
    if len(locked) != 2:
        raise InvalidTransfer("Both accounts must exist.")
    debit_kind, debit_balance = locked[debit.pk]
    credit_balance = locked[credit.pk][1]
    debit.balance, credit.balance = debit_balance, credit_balance
    if debit_balance < amount and debit_kind != AccountKind.ISSUER:
        replay = _replay_of(idempotency_key, payload)
        if replay is not None:
            return replay
        raise InsufficientChips(
            f"The {debit.label} account holds {debit_balance} chips; {amount} are needed."
        )
    created_at = timezone.now()
    debit_after, credit_after = debit_balance - amount, credit_balance + amount
    try:
        cursor.execute(
            _INSERT_SQL,
            [
                debit.pk,
                credit.pk,
                amount,
                kind,
                scope,
                round_number,
                actor_id,
                reason,
                idempotency_key,
                debit_after,
                credit_after,
                created_at,
            ],
        )
    except IntegrityError as exc:
        if _constraint_name(exc) == "ledger_account_balance_non_negative":
            raise InsufficientChips(f"The {debit.label} account cannot pay.") from exc
        raise
    row = cursor.fetchone()
    if row is None:  # the key exists: a replay, or a concurrent caller won the race
        replay = _replay_of(idempotency_key, payload)
        if replay is None:  # pragma: no cover - ON CONFLICT saw a committed row
            raise LedgerError(f"Idempotency key {idempotency_key!r} vanished.")
        return replay
    result = Transfer(
        id=row[0],
        debit=debit,
        credit=credit,
        amount=amount,
        kind=kind,
        scope=scope,
        round_number=round_number,
        actor_id=actor_id,
        reason=reason,
        idempotency_key=idempotency_key,
        debit_balance_after=debit_after,
        credit_balance_after=credit_after,
        created_at=created_at,
    )
    result._state.adding = False
    result._state.db = "default"
    result.replayed = False
    debit.balance, credit.balance = debit_after, credit_after
    return result


def _replay_of(idempotency_key: str, payload: tuple) -> Transfer | None:
    """The stored transfer under this key if its payload matches; raises if it differs."""
    existing = Transfer.objects.filter(idempotency_key=idempotency_key).first()
    if existing is None:
        return None
    if existing.payload() != payload:
        raise IdempotencyKeyReused(
            f"Idempotency key {idempotency_key!r} was already used for another movement."
        )
    existing.replayed = True
    return existing


def _constraint_name(exc: IntegrityError) -> str | None:
    diag = getattr(exc.__cause__, "diag", None)
    return getattr(diag, "constraint_name", None)


def move(
    debit: Account,
    credit: Account,
    amount: int,
    kind: str,
    key: str,
    *,
    scope: str = "",
    round_number: int | None = None,
    actor: User | None = None,
    reason: str = "",
) -> Movement:
    """`transfer`, reported as a Movement named by the accounts' labels."""
    done = transfer(
        debit=debit,
        credit=credit,
        amount=amount,
        kind=kind,
        idempotency_key=key,
        scope=scope,
        round_number=round_number,
        actor=actor,
        reason=reason,
    )
    return Movement(done, debit.label, credit.label, replayed=done.replayed)


def existing_transfers(keys: Iterable[str]) -> dict[str, Transfer]:
    """The transfers already made under these idempotency keys, by key (one query)."""
    return {t.idempotency_key: t for t in Transfer.objects.filter(idempotency_key__in=list(keys))}


def last_transfer_id(account: Account, *, kinds: Sequence[str] | None = None) -> int:
    """The id of the account's latest transfer in or out (only debits of `kinds` when
    given), 0 when there is none: a mark for keys like "...:after:<id>"."""
    if kinds is None:
        rows = Transfer.objects.filter(Q(debit_id=account.pk) | Q(credit_id=account.pk))
    else:
        rows = Transfer.objects.filter(debit_id=account.pk, kind__in=kinds)
    return rows.aggregate(m=Max("id"))["m"] or 0


# --------------------------------------------------------------------------- batch


class PlannedTransfer(NamedTuple):
    """One row of `transfer_batch`."""

    debit: Account
    credit: Account
    amount: int
    kind: str
    key: str


def transfer_batch(
    planned: Sequence[PlannedTransfer], *, scope: str = "", round_number: int | None = None
) -> list[Movement]:
    """Writes `planned` transfers, in order, with one multi-row INSERT.

    For a caller holding the locks of every account involved (`accounts_lock`, so their
    balances are current) that found none of the keys used (`existing_transfers`). Each
    row states the balances it leaves and the per-row trigger checks them against the real
    ones, so a plan that is off (or a key taken after all: ON CONFLICT skips its row)
    aborts the transaction instead of moving the wrong chips. A domain error is raised
    before anything is written. Updates the accounts' `balance` in place.
    """
    if not planned:
        return []
    balances: dict[int, int] = {}
    for p in planned:
        _validate(
            debit=p.debit,
            credit=p.credit,
            amount=p.amount,
            kind=p.kind,
            idempotency_key=p.key,
            actor=None,
            reason="",
        )
        balances.setdefault(p.debit.pk, p.debit.balance)
        balances.setdefault(p.credit.pk, p.credit.balance)
        if balances[p.debit.pk] < p.amount and p.debit.kind != AccountKind.ISSUER:
            raise InsufficientChips(
                f"The {p.debit.label} account holds {balances[p.debit.pk]} chips;"
                f" {p.amount} are needed."
            )
        balances[p.debit.pk] -= p.amount
        balances[p.credit.pk] += p.amount
    created_at = timezone.now()
    transfers = []
    for p in planned:
        p.debit.balance -= p.amount
        p.credit.balance += p.amount
        transfers.append(
            Transfer(
                debit=p.debit,
                credit=p.credit,
                amount=p.amount,
                kind=p.kind,
                scope=scope,
                round_number=round_number,
                reason="",
                idempotency_key=p.key,
                debit_balance_after=p.debit.balance,
                credit_balance_after=p.credit.balance,
                created_at=created_at,
            )
        )
    params = [
        value
        for t in transfers
        for value in (
            t.debit_id,
            t.credit_id,
            t.amount,
            t.kind,
            t.scope,
            t.round_number,
            None,
            t.reason,
            t.idempotency_key,
            t.debit_balance_after,
            t.credit_balance_after,
            t.created_at,
        )
    ]
    sql = (
        f"{_INSERT_HEAD}{', '.join([_INSERT_ROW] * len(transfers))}"
        " ON CONFLICT (idempotency_key) DO NOTHING RETURNING id, idempotency_key"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        ids = {key: pk for pk, key in cursor.fetchall()}
    if len(ids) != len(transfers):
        raise LedgerError("A planned transfer's key was used concurrently.")
    movements = []
    for t in transfers:
        t.pk = ids[t.idempotency_key]
        t._state.adding = False
        t._state.db = "default"
        t.replayed = False
        movements.append(Movement(t, t.debit.label, t.credit.label))
    return movements


# --------------------------------------------------------------------------- house


def pay_from_house(
    target: Account,
    amount: int,
    *,
    kind: str,
    key: str,
    actor: User | None = None,
    scope: str = "",
) -> Movement:
    """Pays `amount` from the house's bankroll, its balance, which is finite: the ledger
    never mints to cover the house. `HouseBankrollInsufficient`, moving nothing, when the
    bankroll is short (a replay of `key` returns the payment made). `scope` is what the
    payment belongs to (e.g. the table a bot's stake goes to)."""
    house = house_account()
    # A savepoint: `move` may refuse a reused key after locking, which leaves the
    # caller's transaction usable; the bankroll's refusal is raised after the block.
    with transaction.atomic():
        accounts_lock(accounts=[house, target])
        short = house.balance < amount and key not in existing_transfers([key])
        if not short:
            return move(house, target, amount, kind, key, scope=scope, actor=actor)
    raise HouseBankrollInsufficient(
        f"The house's bankroll cannot cover {amount} chips; a moderator funds it."
    )


def signup_grant(
    *, user: User, amount: int | None = None, actor: User | None = None
) -> Movement | None:
    """Grants a new account its starting chips (settings.SIGNUP_CHIPS), minted from the
    issuer: the game's faucet for people, which never touches the house's bankroll;
    `actor` is who caused it (the registering user)."""
    amount = settings.SIGNUP_CHIPS if amount is None else amount
    if amount <= 0:
        return None
    key = f"signup_grant:user:{user.pk}"
    return move(
        issuer_account(), wallet_for(user), amount, TransferKind.SIGNUP_GRANT, key, actor=actor
    )


def bot_funding(*, user: User, amount: int, idempotency_key: str | None = None) -> Movement:
    """Gives a bot's wallet `amount` chips from the house's bankroll (e.g. before it sits
    down); `HouseBankrollInsufficient` when the bankroll is short."""
    key = idempotency_key or f"bot_funding:{uuid.uuid4().hex}"
    return pay_from_house(wallet_for(user), amount, kind=TransferKind.BOT_FUNDING, key=key)


# The largest single correction: far beyond any real one, and far from the 64-bit limit
# of a balance (an amount past it would fail in PostgreSQL, not as a domain error).
MAX_ADJUSTMENT = 10**12


def adjustment(
    *,
    account: Account,
    amount: int,
    reason: str,
    actor: User,
    idempotency_key: str | None = None,
) -> Movement:
    """A correction: `amount` > 0 credits the account from the issuer, < 0 debits it back.

    Never edits history; it is a new compensating transfer naming its reason and author.
    The house's bankroll is funded (or drawn down) this way: by a staff member, with a
    reason, on the record.
    """
    if isinstance(amount, bool) or not isinstance(amount, int) or amount == 0:
        raise InvalidTransfer("An adjustment moves a non-zero whole number of chips.")
    if abs(amount) > MAX_ADJUSTMENT:
        raise InvalidTransfer(f"An adjustment moves at most {MAX_ADJUSTMENT} chips.")
    if actor is None or not reason or not reason.strip():
        raise InvalidTransfer("An adjustment needs a reason and the person making it.")
    if account.kind == AccountKind.ISSUER:
        raise InvalidTransfer("The issuer cannot be adjusted against itself.")
    issuer = issuer_account()
    key = idempotency_key or f"adjustment:{uuid.uuid4().hex}"
    debit, credit = (issuer, account) if amount > 0 else (account, issuer)
    return move(
        debit,
        credit,
        abs(amount),
        TransferKind.ADJUSTMENT,
        key,
        scope=account.scope,
        actor=actor,
        reason=reason.strip(),
    )
