"""A tournament's chips in the ledger (docs/RULES.md, "Tournaments"): each entry's buy-in
moves into the tournament's prize pool (scope "tournament:<id>"), its fee, if any, to
the house; the pool leaves only as prizes or as refunds, each entry's exactly what it
paid. The server's bots enter on the house's chips (as they sit at tables,
`games.stakes.is_house_staked`): their buy-in comes from the house, pays no fee, and
their refund or prize goes back to it.

Every call runs in the caller's transaction under the tournament's row lock (the lock
order: `games.services.locks`), and locks the ledger accounts it moves through the
ledger. Keys name the entry, so nothing is paid or refunded twice."""

from collections.abc import Sequence

from django.db import transaction

from accounts.models import User
from games.stakes import is_house_staked
from ledger import services as ledger
from ledger.errors import InsufficientChips
from ledger.models import Account, AccountKind, TransferKind
from ledger.selectors import AuditCheck
from tournaments.models import Entry, Tournament


def pool_scope(tournament_id: int) -> str:
    """The ledger scope of a tournament's prize pool and of every transfer into or out."""
    return f"tournament:{tournament_id}"


def pool_account(tournament: Tournament) -> Account:
    return ledger.scoped_account(kind=AccountKind.PRIZE_POOL, scope=pool_scope(tournament.pk))


def _entry_key(entry: Entry) -> str:
    return f"tournament_entry:entry:{entry.pk}"


def _fee_key(entry: Entry) -> str:
    return f"tournament_fee:entry:{entry.pk}"


def _owner_account(entry: Entry) -> Account:
    """Where an entry's chips come from and go back to: the player's wallet, or the
    house for a server bot."""
    if is_house_staked(entry.user):
        return ledger.house_account()
    return ledger.wallet_for_user_id(entry.user_id)


def entry_pay(*, tournament: Tournament, entry: Entry) -> None:
    """The entry's buy-in into the pool and its fee to the house; `InsufficientChips`,
    moving nothing, when the wallet cannot cover both."""
    scope = pool_scope(tournament.pk)
    pool = pool_account(tournament)
    if is_house_staked(entry.user):
        if tournament.buy_in:
            ledger.pay_from_house(
                pool, tournament.buy_in, kind=TransferKind.ENTRY, key=_entry_key(entry), scope=scope
            )
        return
    wallet, house = ledger.wallet_for_user_id(entry.user_id), ledger.house_account()
    with transaction.atomic(savepoint=False):
        # The house's row is busy (every bot's stake): locked only when a fee goes to it.
        ledger.accounts_lock(accounts=[wallet, pool, *([house] if tournament.fee else [])])
        cost = tournament.buy_in + tournament.fee
        if wallet.balance < cost:
            raise InsufficientChips(f"You have {wallet.balance} chips; the entry costs {cost}.")
        actor = entry.user
        if tournament.buy_in:
            ledger.move(
                wallet,
                pool,
                tournament.buy_in,
                TransferKind.ENTRY,
                _entry_key(entry),
                scope=scope,
                actor=actor,
            )
        if tournament.fee:
            ledger.move(
                wallet,
                house,
                tournament.fee,
                TransferKind.ENTRY_FEE,
                _fee_key(entry),
                scope=scope,
                actor=actor,
            )


def entries_refund(
    *, tournament: Tournament, entries: Sequence[Entry], actor: User | None = None
) -> dict[int, int]:
    """Gives each entry back exactly what it paid (buy-in from the pool, fee from the
    house), as recorded under its keys; returns the chips refunded by entry id. Every
    account it moves is locked at once, in the ledger's order (ascending id)."""
    scope = pool_scope(tournament.pk)
    paid = ledger.existing_transfers(
        key for entry in entries for key in (_entry_key(entry), _fee_key(entry))
    )
    refunded = {entry.pk: 0 for entry in entries}
    if not paid:
        return refunded
    pool, house = pool_account(tournament), ledger.house_account()
    owners = {entry.pk: _owner_account(entry) for entry in entries}
    # A fee's refund may mint from the issuer (ledger.pay_from_house): it is locked with
    # the rest, never after them.
    fees = any(_fee_key(entry) in paid for entry in entries)
    issuer = [ledger.issuer_account()] if fees else []
    with transaction.atomic(savepoint=False):
        ledger.accounts_lock(accounts=[pool, house, *issuer, *owners.values()])
        for entry in entries:
            done = paid.get(_entry_key(entry))
            if done is not None:
                ledger.move(
                    pool,
                    owners[entry.pk],
                    done.amount,
                    TransferKind.REFUND,
                    f"tournament_refund:{_entry_key(entry)}",
                    scope=scope,
                    actor=actor,
                )
                refunded[entry.pk] += done.amount
            fee = paid.get(_fee_key(entry))
            if fee is not None:
                # The house may have spent the fee since (on bots' buy-ins): it pays the
                # refund as it pays anything, minting a shortfall.
                ledger.pay_from_house(
                    owners[entry.pk],
                    fee.amount,
                    kind=TransferKind.REFUND,
                    key=f"tournament_refund:{_fee_key(entry)}",
                    actor=actor,
                    scope=scope,
                )
                refunded[entry.pk] += fee.amount
    return refunded


def prizes_pay(*, tournament: Tournament, winners: Sequence[tuple[Entry, int]]) -> None:
    """Pays each (entry, prize) from the pool, which they empty."""
    scope = pool_scope(tournament.pk)
    pool = pool_account(tournament)
    owners = {entry.pk: _owner_account(entry) for entry, _ in winners}
    with transaction.atomic(savepoint=False):
        ledger.accounts_lock(accounts=[pool, *owners.values()])
        for entry, amount in winners:
            if amount > 0:
                ledger.move(
                    pool,
                    owners[entry.pk],
                    amount,
                    TransferKind.PRIZE,
                    f"tournament_prize:entry:{entry.pk}",
                    scope=scope,
                )


def pool_balance(tournament: Tournament) -> int:
    return pool_account(tournament).balance


# Only this app knows which pools are closed: ledger_check runs this as well.
CLOSED_POOLS_CHECK = AuditCheck(
    name="every finished or cancelled tournament has an empty prize pool",
    sql="""
        SELECT t.id AS tournament_id, t.status, a.id AS account_id, a.balance
        FROM ledger_account a JOIN tournaments_tournament t ON a.scope = 'tournament:' || t.id
        WHERE t.status IN (%s, %s) AND a.kind = 'prize_pool' AND a.balance <> 0
        ORDER BY t.id
        """,
    params=lambda: [Tournament.Status.FINISHED, Tournament.Status.CANCELLED],
)
