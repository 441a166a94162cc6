"""Typed ledger errors with stable codes (turned into problem+json by core.problems)."""

from core.errors import DomainError


class LedgerError(DomainError):
    code = "ledger_conflict"
    status = 409
    title = "Ledger conflict"


class InsufficientChips(LedgerError):
    """The debited account does not hold enough chips."""

    code = "insufficient_chips"
    status = 409
    title = "Not enough chips"


class HouseBankrollInsufficient(LedgerError):
    """The house's bankroll (its balance) cannot cover a payment: the ledger never mints
    to cover the house."""

    code = "house_bankroll_insufficient"
    status = 409
    title = "The house's bankroll cannot cover this"


class IdempotencyKeyReused(LedgerError):
    """The idempotency key was already used for a different movement."""

    code = "idempotency_key_reused"
    status = 422
    title = "Idempotency key reused"


class InvalidTransfer(LedgerError):
    """A movement that can never be valid (zero amount, same account, no reason...)."""

    code = "invalid_transfer"
    status = 400
    title = "Invalid transfer"


class LedgerImmutable(LedgerError):
    """Transfers are append-only and balances move only through transfers."""

    code = "ledger_immutable"
    status = 409
    title = "The ledger is append-only"
