"""Reads of the ledger: balances, a user's history, accounts and transfers by scope, and
the invariant audit."""

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Q, QuerySet, Sum

from core.prebuilt import PrebuiltSelect
from ledger.models import Account, AccountKind, Transfer

# A user: any instance of settings.AUTH_USER_MODEL (only its `pk` is read).
User = Any


# GET /me reads it on every call (its SQL built once: core.prebuilt); one wallet a user.
_WALLET = PrebuiltSelect(Account, "WHERE m.kind = %s AND m.user_id = %s")


def wallet_balance(*, user: User) -> int:
    """Chips in the player's wallet: the cached balance, one indexed read."""
    wallet = _WALLET.one([AccountKind.WALLET.value, user.pk])
    return wallet.balance if wallet is not None else 0


def wallet_get(*, user: User) -> Account | None:
    return Account.objects.filter(kind=AccountKind.WALLET, user_id=user.pk).first()


def transfers_for_wallet(*, user: User) -> QuerySet[Transfer]:
    """Every transfer in or out of the player's wallet (empty when it has none)."""
    wallet = wallet_get(user=user)
    if wallet is None:
        return Transfer.objects.none()
    return (
        Transfer.objects.filter(Q(debit_id=wallet.pk) | Q(credit_id=wallet.pk))
        .select_related("debit", "credit")
        .order_by("-id")
    )


def accounts_in_scope(*, scope: str, kinds: Sequence[str] | None = None) -> QuerySet[Account]:
    """The stacks and pots held in `scope` (e.g. "match:812"), of `kinds` when given."""
    accounts = Account.objects.filter(scope=scope)
    if kinds is not None:
        accounts = accounts.filter(kind__in=list(kinds))
    return accounts


def transfers_in_scope(*, scope: str) -> QuerySet[Transfer]:
    """Every transfer recorded under `scope` (e.g. "match:812"), oldest first."""
    return Transfer.objects.filter(scope=scope).order_by("id")


def wallet_results_by_scope(*, since: datetime) -> dict[str, dict[int, int]]:
    """{scope: {user id: chips that came back to the user's wallet (+) less what left it
    (-)}}, for every scope with a transfer since `since`, from all of its transfers."""
    recent = Transfer.objects.filter(created_at__gte=since).exclude(scope="").values("scope")
    scoped = Transfer.objects.filter(scope__in=recent)
    results: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for side, sign in (("credit", 1), ("debit", -1)):
        rows = (
            scoped.filter(**{f"{side}__kind": AccountKind.WALLET})
            .values_list("scope", f"{side}__user_id")
            .annotate(total=Sum("amount"))
            .order_by()
        )
        for scope, user_id, total in rows:
            results[scope][user_id] += sign * total
    return {scope: dict(result) for scope, result in results.items()}


def circulation() -> int:
    """Chips in circulation: minus the issuer's balance."""
    balance = (
        Account.objects.filter(kind=AccountKind.ISSUER).values_list("balance", flat=True).first()
    )
    return -(balance or 0)


def house_balance() -> int:
    """The house's bankroll: what it holds, all it may stake (0 before any transfer)."""
    balance = (
        Account.objects.filter(kind=AccountKind.HOUSE).values_list("balance", flat=True).first()
    )
    return balance or 0


def house_flows() -> dict[str, dict[str, int]]:
    """Where the house's bankroll came from and went: {"in": {kind: chips}, "out": {kind:
    chips}}, summed over every transfer into and out of the house (two aggregates)."""
    house = Account.objects.filter(kind=AccountKind.HOUSE).first()
    if house is None:
        return {"in": {}, "out": {}}
    flows = {}
    for side, field in (("in", "credit"), ("out", "debit")):
        rows = (
            Transfer.objects.filter(**{field: house}).values("kind").annotate(chips=Sum("amount"))
        )
        flows[side] = {row["kind"]: row["chips"] for row in rows.order_by("kind")}
    return flows


# --------------------------------------------------------------------------- audit

# The bankroll invariants hold from the migration that made the house's bankroll finite:
# earlier rows are history (the ledger is append-only), so they check what came after.
_SINCE_BANKROLL = """COALESCE((SELECT applied FROM django_migrations
    WHERE app = 'ledger' AND name = '0008_house_bankroll'), '-infinity')"""

_CHECKS: list[tuple[str, str]] = [
    (
        "double entry: the balances of all accounts sum to zero",
        "SELECT COALESCE(SUM(balance), 0) AS total FROM ledger_account"
        " HAVING COALESCE(SUM(balance), 0) <> 0",
    ),
    (
        "every cached balance equals the sum of its transfers",
        """
        SELECT a.id, a.kind, a.balance AS cached, COALESCE(t.total, 0) AS from_transfers
        FROM ledger_account a
        LEFT JOIN (
            SELECT account_id, SUM(delta) AS total FROM (
                SELECT credit_id AS account_id, amount AS delta FROM ledger_transfer
                UNION ALL
                SELECT debit_id, -amount FROM ledger_transfer
            ) postings GROUP BY account_id
        ) t ON t.account_id = a.id
        WHERE a.balance <> COALESCE(t.total, 0)
        ORDER BY a.id
        """,
    ),
    (
        "no account but the issuer is negative, and the issuer is not positive",
        "SELECT id, kind, balance FROM ledger_account"
        " WHERE (kind <> 'issuer' AND balance < 0) OR (kind = 'issuer' AND balance > 0)"
        " ORDER BY id",
    ),
    (
        "every transfer moves a positive amount between two different accounts",
        "SELECT id, debit_id, credit_id, amount FROM ledger_transfer"
        " WHERE amount <= 0 OR debit_id = credit_id ORDER BY id",
    ),
    (
        "every recorded balance-after matches the running sum of its account",
        """
        SELECT transfer_id, account_id, stated, running FROM (
            SELECT transfer_id, account_id, stated,
                   SUM(delta) OVER (PARTITION BY account_id ORDER BY transfer_id) AS running
            FROM (
                SELECT id AS transfer_id, credit_id AS account_id, amount AS delta,
                       credit_balance_after AS stated FROM ledger_transfer
                UNION ALL
                SELECT id, debit_id, -amount, debit_balance_after FROM ledger_transfer
            ) postings
        ) r
        WHERE stated IS NOT NULL AND stated <> running
        ORDER BY transfer_id
        """,
    ),
    (
        "chips are minted only as signup grants to a wallet and staff adjustments (never"
        " for the house's stakes)",
        f"""
        SELECT t.id, t.kind, t.amount, c.kind AS credit_kind, t.idempotency_key
        FROM ledger_transfer t
        JOIN ledger_account d ON d.id = t.debit_id
        JOIN ledger_account c ON c.id = t.credit_id
        WHERE d.kind = 'issuer' AND t.created_at >= {_SINCE_BANKROLL}
          AND NOT (t.kind = 'signup_grant' AND c.kind = 'wallet')
          AND NOT (t.kind = 'adjustment' AND t.actor_id IS NOT NULL)
        ORDER BY t.id
        """,
    ),
    (
        "signup grants come from the issuer, never from the house's bankroll",
        f"""
        SELECT t.id, t.amount, d.kind AS debit_kind, t.idempotency_key
        FROM ledger_transfer t JOIN ledger_account d ON d.id = t.debit_id
        WHERE t.kind = 'signup_grant' AND d.kind <> 'issuer'
          AND t.created_at >= {_SINCE_BANKROLL}
        ORDER BY t.id
        """,
    ),
]


@dataclass(frozen=True)
class AuditCheck:
    """An invariant a higher layer adds to the audit: `sql` returns the offending rows
    (none when it holds), with `params()` for its placeholders. The games layer adds that
    closed tables hold no chips, as only it knows which scopes are closed."""

    name: str
    sql: str
    params: Callable[[], list] | None = None


_EXTRA_CHECKS: dict[str, AuditCheck] = {}


def audit_check_register(check: AuditCheck) -> None:
    """Adds `check` to `ledger_problems` (and so to `manage.py ledger_check`); registering
    the same name again replaces it (an app's `ready()` may run more than once)."""
    _EXTRA_CHECKS[check.name] = check


def ledger_problems(*, limit: int = 20) -> list[tuple[str, list[dict]]]:
    """Runs every invariant; returns (invariant, offending rows) for each one that fails.

    Runs in one REPEATABLE READ snapshot so concurrent transfers cannot cause false alarms.
    """
    failures: list[tuple[str, list[dict]]] = []
    checks = [(name, sql, None) for name, sql in _CHECKS] + [
        (c.name, c.sql, c.params) for c in _EXTRA_CHECKS.values()
    ]
    with connection.cursor() as cursor:
        in_atomic = connection.in_atomic_block
        if not in_atomic:
            cursor.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        try:
            for name, sql, params in checks:
                cursor.execute(sql, params() if params is not None else None)
                columns = [c.name for c in cursor.description]
                rows = [dict(zip(columns, row, strict=True)) for row in cursor.fetchmany(limit)]
                if rows:
                    failures.append((name, rows))
        finally:
            if not in_atomic:
                cursor.execute("COMMIT")
    return failures
