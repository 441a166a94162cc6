from rest_framework import serializers

from ledger.models import AccountKind, TransferKind

# The API reports a transfer's scope the way it always has: the id of a "match:<id>"
# scope as `match_id`. The ledger only reads the string; it knows no Match.
MATCH_SCOPE_PREFIX = "match:"


def scope_number(scope: str, prefix: str) -> int | None:
    """The number of a "<prefix><number>" scope, None for any other scope."""
    number = scope.removeprefix(prefix)
    return int(number) if number != scope and number.isascii() and number.isdigit() else None


class TransactionOutput(serializers.Serializer):
    """One ledger entry seen from the caller's wallet."""

    id = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    kind = serializers.ChoiceField(choices=TransferKind.choices)
    amount = serializers.IntegerField(help_text="Signed: positive into your wallet, negative out.")
    balance_after = serializers.IntegerField(
        allow_null=True, help_text="Your wallet's balance right after this entry."
    )
    match_id = serializers.IntegerField(allow_null=True)
    round_number = serializers.IntegerField(allow_null=True)
    counterparty_kind = serializers.ChoiceField(choices=AccountKind.choices)
    reason = serializers.CharField(allow_blank=True)


def transaction_payload(transfer, *, wallet_id: int) -> dict:
    incoming = transfer.credit_id == wallet_id
    counterparty = transfer.debit if incoming else transfer.credit
    return {
        "id": transfer.pk,
        "created_at": transfer.created_at,
        "kind": transfer.kind,
        "amount": transfer.amount if incoming else -transfer.amount,
        "balance_after": (
            transfer.credit_balance_after if incoming else transfer.debit_balance_after
        ),
        "match_id": scope_number(transfer.scope, MATCH_SCOPE_PREFIX),
        "round_number": transfer.round_number,
        "counterparty_kind": counterparty.kind,
        "reason": transfer.reason,
    }
